package vision

import (
	"bytes"
	"fmt"
	"image"
	"slices"
	"time"
)

// Overlay is what Observe paints on a frame, all in root coordinates (the
// same space as Mapper.Display and ScreenPoint).
type Overlay struct {
	// Cursor is the mouse pointer's position; nil means not drawn.
	Cursor *image.Point
	// Marks are drawn on the model's image (a click marker, a drag arrow).
	Marks []Mark
	// Mask are areas to paint out (deskpilot's own window), so neither the
	// model, nor zoom, nor the trace shows them.
	Mask []image.Rectangle
	// Boxes are set-of-marks boxes (Box in root coordinates), drawn with
	// DrawBoxMarks on the model's image under the cursor and marks.
	Boxes []BoxMark
}

// Observation is one frame made ready for the model.
//
// It holds the encoded image once, as Data. The data URL a request needs is
// built from it when the request is written (DataURL, AppendDataURL), so a
// caller that keeps past screenshots in a conversation keeps their bytes
// only: a kept data URL string would cost a third more than the bytes, and
// keeping both would more than double it.
type Observation struct {
	// Full is the full-resolution frame with Overlay.Mask painted out; keep
	// it for the trace and zoom. It is the frame passed to Observe when no
	// mask touches it, else a masked copy: Observe never writes to its input,
	// so the frame can still serve as Settle's "before".
	Full *image.RGBA
	// Image is what the model sees: Full scaled to Mapper.Image, with the
	// cursor and marks drawn. It is Observer's buffer: the next Observe
	// overwrites it, so Clone (or Crop) it to keep it longer.
	Image *image.RGBA
	// Data is Image encoded in Format; the caller's to keep.
	Data []byte
	// Format is the encoding of Data.
	Format Format
	// Size is len(Data), the encoded image's length in bytes (before base64).
	Size int
	// Downscale and Encode are the time spent in each step.
	Downscale, Encode time.Duration
}

// DataURL returns Data as a base64 data URL ("data:image/png;base64,...").
// Each call builds a new string: call it when a request is built, and do
// not keep the result beside Data.
func (o Observation) DataURL() string { return DataURL(o.Format, o.Data) }

// AppendDataURL appends the data URL of Data to dst (see DataURL), for
// writing it straight into a request body.
func (o Observation) AppendDataURL(dst []byte) []byte { return AppendDataURL(dst, o.Format, o.Data) }

// Observer runs the observation pipeline on captured frames: mask (a copy
// of the full frame) -> scale to the model's image size -> draw the cursor
// and marks -> encode. Marks are drawn after scaling, in the model image's
// pixels, so they keep the same legible size whatever the display's
// resolution. The model image, the scaling weights and the encoder's
// buffers are reused from call to call, and so is the work for the parts of
// the screen that did not change since the previous call: rows whose source
// rows are the same are not scaled again, and PNG bands whose pixels are the
// same are not compressed again (both found by a seeded hash per row).
//
// The model's image may be smaller than the display on both axes (the
// usual downscale), larger (a model family that wants its image rounded
// up to a multiple of 28 px: 1920x1080 -> 1932x1092), or smaller on one
// axis and larger on the other; the cursor and marks land where
// Mapper.ToImage puts them in every case.
//
// Set Mapper before the first Observe; the zero Encoder encodes PNG. An
// Observer is not safe for concurrent use.
type Observer struct {
	// Mapper gives the display (root coordinates of the frame's top-left
	// pixel and its size) and the size of the model's image.
	Mapper Mapper
	// Encoder encodes the model's image; the zero value is PNG.
	Encoder Encoder

	scaler scaler
	img    *image.RGBA
	drawn  []image.Rectangle // where the last cursor and marks were drawn on img
}

// Observe turns frame, a capture of o.Mapper.Display, into an Observation.
// It does not modify frame, and keeps a reference to it until the next call
// to find the rows the next frame shares with it: do not modify a frame once
// observed (captures never are). Passing the very same image again is
// fine: it is then scaled again in full.
func (o *Observer) Observe(frame *image.RGBA, ov Overlay) (Observation, error) {
	obs, err := o.observe(frame, ov)
	if err != nil {
		return Observation{}, err
	}
	obs.Data = bytes.Clone(obs.Data)
	return obs, nil
}

// observe is Observe with Data left in the encoder's buffer (valid until
// the next call).
func (o *Observer) observe(frame *image.RGBA, ov Overlay) (Observation, error) {
	d := o.Mapper.Display
	if frame == nil || frame.Rect.Size() != d.Size() {
		var got image.Point
		if frame != nil {
			got = frame.Rect.Size()
		}
		return Observation{}, fmt.Errorf("observe: frame size %v does not match display %v", got, d)
	}
	full := masked(frame, ov.Mask, frame.Rect.Min.Sub(d.Min))

	start := time.Now()
	size := o.Mapper.image()
	if o.img == nil || o.img.Rect.Size() != size {
		o.img = image.NewRGBA(image.Rectangle{Max: size})
	}
	// Rows of the model image whose source rows did not change keep their
	// pixels from the last call, except where the cursor and marks were drawn.
	o.scaler.reuse = true
	for _, r := range o.drawn {
		o.scaler.spoil(r.Min.Y, r.Max.Y)
	}
	o.scaler.scale(o.img, full)
	scaled := time.Now()

	toImage := func(p image.Point) image.Point { return o.Mapper.ToImage(ScreenPoint{p.X, p.Y}) }
	var cursor *image.Point
	if ov.Cursor != nil {
		c := toImage(*ov.Cursor)
		cursor = &c
	}
	marks := make([]Mark, len(ov.Marks))
	for i, m := range ov.Marks {
		marks[i] = Mark{Kind: m.Kind, At: toImage(m.At), To: toImage(m.To), Label: m.Label}
	}
	boxes := drawBoxes(o.img, o.Mapper, ov.Boxes)
	o.drawn = append(annotationBounds(o.img.Rect, cursor, marks), boxes...)
	Annotate(o.img, cursor, marks)

	data, err := o.Encoder.encode(o.img)
	if err != nil {
		return Observation{}, fmt.Errorf("observe: %w", err)
	}
	return Observation{
		Full: full, Image: o.img, Data: data, Format: o.Encoder.Format.normal(), Size: len(data),
		Downscale: scaled.Sub(start), Encode: time.Since(scaled),
	}, nil
}

// masked returns frame, or a copy of it with the rects (moved by shift into
// frame's coordinates) painted out when any of them touches it.
func masked(frame *image.RGBA, rects []image.Rectangle, shift image.Point) *image.RGBA {
	var in []image.Rectangle
	for _, r := range rects {
		if r = r.Add(shift); r.Overlaps(frame.Rect) {
			in = append(in, r)
		}
	}
	if len(in) == 0 {
		return frame
	}
	c := &image.RGBA{Pix: slices.Clone(frame.Pix), Stride: frame.Stride, Rect: frame.Rect}
	MaskRects(c, in)
	return c
}
