package vision

import (
	"bytes"
	"errors"
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

	// The last call's frame, the mask rectangles painted out of it (its
	// coordinates) and the result, Observation.Full: Again starts from them.
	frame  *image.RGBA
	maskIn []image.Rectangle
	full   *image.RGBA
}

// Observe turns frame, a capture of o.Mapper.Display, into an Observation.
// It does not modify frame, and keeps a reference to it until the next call
// to find the rows the next frame shares with it: do not modify a frame once
// observed (captures never are). Passing the very same image again is
// fine: it is then scaled again in full.
func (o *Observer) Observe(frame *image.RGBA, ov Overlay) (Observation, error) {
	return o.cloned(o.observe(frame, ov, false))
}

// Again observes the frame of the last Observe (or Again) once more, with
// another overlay: a frame the caller knows it has not modified since (a
// new capture found equal to it, and dropped). Only what the overlays
// change is done again: the rows under the last and the new cursor and
// marks are scaled, the PNG bands they touch compressed; with the same
// mask, Full is the last call's. Observe with the same image would scale
// it all again, since it cannot tell a kept frame from a recycled buffer.
func (o *Observer) Again(ov Overlay) (Observation, error) {
	if o.frame == nil {
		return Observation{}, errors.New("observe: Again before any frame was observed")
	}
	return o.cloned(o.observe(o.frame, ov, true))
}

// cloned is an observation with Data copied out of the encoder's buffer.
func (o *Observer) cloned(obs Observation, err error) (Observation, error) {
	if err != nil {
		return Observation{}, err
	}
	obs.Data = bytes.Clone(obs.Data)
	return obs, nil
}

// observe is Observe (Again with kept) with Data left in the encoder's
// buffer (valid until the next call).
func (o *Observer) observe(frame *image.RGBA, ov Overlay, kept bool) (Observation, error) {
	d := o.Mapper.Display
	if frame == nil || frame.Rect.Size() != d.Size() {
		var got image.Point
		if frame != nil {
			got = frame.Rect.Size()
		}
		return Observation{}, fmt.Errorf("observe: frame size %v does not match display %v", got, d)
	}
	in := maskIn(frame, ov.Mask, frame.Rect.Min.Sub(d.Min))
	var full *image.RGBA
	if kept && slices.Equal(in, o.maskIn) {
		// The same pixels with the same mask: the last Full, whose rows the
		// scaler may take as they are.
		full, o.scaler.kept = o.full, true
	} else {
		full = masked(frame, in)
	}
	o.frame, o.maskIn, o.full = frame, in, full

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

	data, err := o.Encoder.encodeRows(o.img, o.untouched)
	if err != nil {
		return Observation{}, fmt.Errorf("observe: %w", err)
	}
	return Observation{
		Full: full, Image: o.img, Data: data, Format: o.Encoder.Format.normal(), Size: len(data),
		Downscale: scaled.Sub(start), Encode: time.Since(scaled),
	}, nil
}

// maskIn is the rects (moved by shift into frame's coordinates) that touch
// frame.
func maskIn(frame *image.RGBA, rects []image.Rectangle, shift image.Point) []image.Rectangle {
	var in []image.Rectangle
	for _, r := range rects {
		if r = r.Add(shift); r.Overlaps(frame.Rect) {
			in = append(in, r)
		}
	}
	return in
}

// untouched reports whether the last Observe left rows [y0, y1) of its
// image as they were the call before: the scaler wrote none of them
// (their source rows were the same), and no cursor, mark or box is drawn
// there now (the ones drawn before were scaled away: spoil). The encoder
// then takes its bands there as they are.
func (o *Observer) untouched(y0, y1 int) bool {
	wrote := o.scaler.wrote
	if len(wrote) == 0 {
		return false
	}
	for c := y0 / scaleChunk; c*scaleChunk < y1; c++ {
		if c >= len(wrote) || wrote[c] {
			return false
		}
	}
	for _, r := range o.drawn {
		if r.Min.Y < y1 && r.Max.Y > y0 {
			return false
		}
	}
	return true
}

// masked returns frame, or a copy of it with the rects in painted out when
// there are any (maskIn).
func masked(frame *image.RGBA, in []image.Rectangle) *image.RGBA {
	if len(in) == 0 {
		return frame
	}
	c := &image.RGBA{Pix: slices.Clone(frame.Pix), Stride: frame.Stride, Rect: frame.Rect}
	MaskRects(c, in)
	return c
}
