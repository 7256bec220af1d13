package vision

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"math"
	"time"
)

// Capturer grabs the current frame of one display or region. Settle calls
// it from one goroutine and keeps the previous frame while taking the next,
// so Capture must not overwrite an image it returned before.
type Capturer interface {
	Capture(ctx context.Context) (*image.RGBA, error)
}

// IntoCapturer is a Capturer that can write a capture into a frame its caller
// no longer needs: CaptureInto uses dst when it has the frame's size and
// returns the image written (dst or a new one). Settle recycles its spent
// frames this way, so watching a 1920x1080 screen does not allocate, zero and
// fault in a new 8 MB buffer every 15 ms.
type IntoCapturer interface {
	Capturer
	CaptureInto(ctx context.Context, dst *image.RGBA) (*image.RGBA, error)
}

// CaptureInto captures from c into spare, a frame the caller no longer
// needs, when c is an IntoCapturer; otherwise (or with a nil spare) into a
// new frame. It returns the frame written.
func CaptureInto(ctx context.Context, c Capturer, spare *image.RGBA) (*image.RGBA, error) {
	if ic, ok := c.(IntoCapturer); ok && spare != nil {
		return ic.CaptureInto(ctx, spare)
	}
	return c.Capture(ctx)
}

// Defaults of SettleOptions.
const (
	DefaultSettleInterval  = 50 * time.Millisecond
	DefaultSettleTimeout   = 2 * time.Second
	DefaultSettleThreshold = 0.0005
	DefaultSettlePatience  = 2
)

// SettleOptions tune Settle. The zero value means the defaults.
type SettleOptions struct {
	// Interval is the time between the starts of two captures; 0 means
	// DefaultSettleInterval (50 ms).
	Interval time.Duration
	// Timeout caps the whole wait; 0 means DefaultSettleTimeout (2 s).
	Timeout time.Duration
	// Threshold is the fraction of pixels (0..1) two consecutive frames may
	// differ by and still count as still; 0 means DefaultSettleThreshold
	// (0.0005: about 1000 pixels of 1920x1080, so a blinking caret does not
	// keep the screen busy); negative means the frames must be identical.
	Threshold float64
	// Patience is how many more still frames Settle waits for a change to
	// begin while the screen still equals before (an app that reacts a
	// little late to a click); 0 means DefaultSettlePatience (2), negative
	// means none.
	Patience int
	// Ignore are areas, in the coordinates of the captured frames, left out
	// of every comparison: deskpilot's own window, whose live view keeps
	// changing while the agent waits.
	Ignore []image.Rectangle
}

// SettleResult is the outcome of Settle.
type SettleResult struct {
	// Frame is the last frame captured (the settled one when Settled).
	Frame *image.RGBA
	// Elapsed is the time Settle took.
	Elapsed time.Duration
	// Changed reports whether Frame differs from before in any pixel (a nil
	// before or a different size counts as changed).
	Changed bool
	// Settled reports whether two consecutive frames were still; false
	// means Timeout ran out first (video, animation, a progress bar).
	Settled bool
}

// Settle captures frames Interval apart until two consecutive ones differ
// by at most Threshold of their pixels, or Timeout runs out; it returns the
// last frame and whether it differs from before (the frame from before the
// action). While the still frame equals before it waits Patience more
// frames, so a change that starts late is not missed. It stops with ctx's
// error when ctx is done. Frames it captured and does not return are written
// over by its later captures when c is an IntoCapturer; before and the
// returned frame never are.
func Settle(ctx context.Context, c Capturer, before *image.RGBA, o SettleOptions) (SettleResult, error) {
	o = o.withDefaults()
	start := time.Now()
	deadline := time.NewTimer(o.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()

	var res SettleResult
	var spare *image.RGBA // a frame captured here and no longer needed
	prev, err := c.Capture(ctx)
	if err != nil {
		return res, fmt.Errorf("settle: capture: %w", err)
	}
	res.Frame = prev
	patience := o.Patience
	for {
		select {
		case <-ctx.Done():
			res.Elapsed = time.Since(start)
			res.Changed = !same(before, res.Frame, o.Ignore)
			return res, fmt.Errorf("settle: %w", ctx.Err())
		case <-deadline.C:
			res.Elapsed = time.Since(start)
			res.Changed = !same(before, res.Frame, o.Ignore)
			return res, nil
		case <-tick.C:
		}
		cur, err := CaptureInto(ctx, c, spare)
		if err != nil {
			res.Elapsed = time.Since(start)
			return res, fmt.Errorf("settle: capture: %w", err)
		}
		res.Frame = cur
		still := !diffExceeds(prev, cur, o.Threshold, o.Ignore)
		prev, spare = cur, prev
		if !still {
			continue
		}
		if same(before, cur, o.Ignore) && patience > 0 {
			patience--
			continue
		}
		res.Elapsed = time.Since(start)
		res.Changed = !same(before, cur, o.Ignore)
		res.Settled = true
		return res, nil
	}
}

func (o SettleOptions) withDefaults() SettleOptions {
	if o.Interval <= 0 {
		o.Interval = DefaultSettleInterval
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultSettleTimeout
	}
	switch {
	case o.Threshold == 0:
		o.Threshold = DefaultSettleThreshold
	case o.Threshold < 0:
		o.Threshold = 0
	}
	switch {
	case o.Patience == 0:
		o.Patience = DefaultSettlePatience
	case o.Patience < 0:
		o.Patience = 0
	}
	return o
}

// DiffFraction returns the fraction of pixels (0..1) that differ in any
// channel between a and b, compared position by position from their
// top-left corners. Images of different sizes differ entirely (1); two
// empty images are equal (0). Identical rows are skipped with a memcmp.
func DiffFraction(a, b *image.RGBA) float64 {
	n := pixels(a, b)
	if n < 0 {
		return 1
	}
	if n == 0 {
		return 0
	}
	return float64(countDiff(a, b, math.MaxInt, nil)) / float64(n)
}

// pixels returns the pixel count of a and b, or -1 when their sizes differ
// or one is nil.
func pixels(a, b *image.RGBA) int {
	if a == nil || b == nil || a.Rect.Size() != b.Rect.Size() {
		return -1
	}
	return a.Rect.Dx() * a.Rect.Dy()
}

// same reports whether a and b have the same size and pixels outside
// ignore.
func same(a, b *image.RGBA, ignore []image.Rectangle) bool {
	return pixels(a, b) >= 0 && countDiff(a, b, 0, ignore) == 0
}

// Same reports whether a and b have the same size and the same pixels outside the
// ignore rectangles (in a's coordinates).
func Same(a, b *image.RGBA, ignore []image.Rectangle) bool { return same(a, b, ignore) }

// diffExceeds reports whether more than the fraction limit of the pixels
// of a and b differ outside ignore, stopping as soon as that is known.
func diffExceeds(a, b *image.RGBA, limit float64, ignore []image.Rectangle) bool {
	n := pixels(a, b)
	if n < 0 {
		return true
	}
	allowed := int(limit * float64(n))
	return countDiff(a, b, allowed, ignore) > allowed
}

// countDiff counts the pixels that differ between a and b (same size)
// outside the ignore rectangles (in a's coordinates), stopping once the
// count exceeds limit.
func countDiff(a, b *image.RGBA, limit int, ignore []image.Rectangle) int {
	w, h := a.Rect.Dx(), a.Rect.Dy()
	var spans, tmp [][2]int // column ranges of the current row to compare
	count := 0
	for y := range h {
		ra := a.Pix[a.PixOffset(a.Rect.Min.X, a.Rect.Min.Y+y):][:4*w]
		rb := b.Pix[b.PixOffset(b.Rect.Min.X, b.Rect.Min.Y+y):][:4*w]
		spans, tmp = compared(spans[:0], tmp, a.Rect, a.Rect.Min.Y+y, ignore)
		for _, sp := range spans {
			sa, sb := ra[4*sp[0]:4*sp[1]], rb[4*sp[0]:4*sp[1]]
			if !bytes.Equal(sa, sb) {
				count += rowDiff(sa, sb)
			}
		}
		if count > limit {
			return count
		}
	}
	return count
}

// compared appends to spans the column ranges [x0, x1), relative to
// r.Min.X, of row y of r that no ignore rectangle covers; tmp is scratch
// space, returned for reuse.
func compared(spans, tmp [][2]int, r image.Rectangle, y int, ignore []image.Rectangle) ([][2]int, [][2]int) {
	spans = append(spans, [2]int{0, r.Dx()})
	for _, ig := range ignore {
		ig = ig.Intersect(r)
		if y < ig.Min.Y || y >= ig.Max.Y || ig.Empty() {
			continue
		}
		x0, x1 := ig.Min.X-r.Min.X, ig.Max.X-r.Min.X
		out := tmp[:0]
		for _, sp := range spans {
			if sp[1] <= x0 || sp[0] >= x1 { // untouched
				out = append(out, sp)
				continue
			}
			if sp[0] < x0 {
				out = append(out, [2]int{sp[0], x0})
			}
			if sp[1] > x1 {
				out = append(out, [2]int{x1, sp[1]})
			}
		}
		spans, tmp = out, spans
	}
	return spans, tmp
}

// rowDiff counts differing pixels of two equal-length RGBA rows, comparing
// two pixels per 8-byte word.
func rowDiff(a, b []byte) int {
	le := binary.LittleEndian
	n := 0
	i := 0
	for ; i+8 <= len(a) && i+8 <= len(b); i += 8 {
		x := le.Uint64(a[i:i+8]) ^ le.Uint64(b[i:i+8])
		if x == 0 {
			continue
		}
		if uint32(x) != 0 {
			n++
		}
		if x>>32 != 0 {
			n++
		}
	}
	if i+4 <= len(a) && i+4 <= len(b) && le.Uint32(a[i:]) != le.Uint32(b[i:]) {
		n++
	}
	return n
}
