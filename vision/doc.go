// Package vision owns the frames deskpilot shows a model and the coordinate
// spaces around them: it maps model coordinates to screen pixels (Mapper),
// waits for the screen to settle after an action (Settle), masks, annotates,
// scales and encodes frames (the observation pipeline, composed by
// Observer) as PNG, JPEG or lossless WebP, and draws set-of-marks overlays
// (DrawBoxMarks).
//
// The package is pure Go: it never talks to X (vision/screen does) and never
// logs. Frames are *image.RGBA in screen pixels; opaque screenshots are
// assumed where it matters for speed (the encoder writes opaque RGBA as RGB),
// but every function stays correct for translucent pixels.
//
// Speed: on a busy 1920x1080 frame that changed everywhere, Observer turns a
// capture into a 1366x768 PNG data URL in about 14 ms of CPU split over the
// cores, and in about 4 ms when little changed since the previous call,
// since rows and PNG bands equal to the previous frame's are reused
// (BenchmarkObserve; docs/benchmarks.md). MeasureObserve times the whole
// observation as `deskpilot bench` reports it.
//
// Unless a doc comment says otherwise, functions are safe for concurrent use
// on distinct images, and types with buffers (Encoder, Observer) are not safe
// for concurrent use.
package vision
