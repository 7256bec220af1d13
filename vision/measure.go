package vision

import (
	"context"
	"errors"
	"fmt"
	"image"
	"time"
)

// Measurement is what MeasureObserve timed.
type Measurement struct {
	// Times holds one duration per observation: capture, Observe and
	// building the data URL.
	Times []time.Duration
	// Changed counts the observations whose captured frame differed from
	// the one before (the first is not counted): how much the screen itself
	// changed during the measurement.
	Changed int
	// Bytes is the encoded size of the last observation's image.
	Bytes int
}

// MeasureObserve times n observations the way the agent makes them: capture
// a frame from c, Observe it with o (no overlay), write the data URL into a
// request buffer reused from call to call (AppendDataURL). It is
// what `deskpilot bench` reports as observe_ms (reuse false) and
// observe_static_ms (reuse true).
//
// With reuse false, o forgets the rows it scaled and the PNG bands it
// compressed before every observation, so each one costs what a screen that
// changed everywhere costs, whatever the display shows: an honest figure even
// on a still desktop. With reuse true, rows and bands equal to the previous
// frame's are kept, as they are in the agent; on a still screen that is the
// cheapest observation there is, and the figure says nothing about a
// changing one. Capture is always done in full.
//
// It stops with ctx's error when ctx is done.
func MeasureObserve(ctx context.Context, c Capturer, o *Observer, n int, reuse bool) (Measurement, error) {
	if n < 1 {
		return Measurement{}, errors.New("measure observe: n must be at least 1")
	}
	m := Measurement{Times: make([]time.Duration, 0, n)}
	var prev *image.RGBA
	var body []byte
	for i := range n {
		if err := ctx.Err(); err != nil {
			return m, fmt.Errorf("measure observe: %w", err)
		}
		if !reuse {
			o.Encoder.png.forget()
			o.scaler.forget()
		}
		t0 := time.Now()
		f, err := c.Capture(ctx)
		if err != nil {
			return m, fmt.Errorf("measure observe %d: capture: %w", i, err)
		}
		obs, err := o.observe(f, Overlay{}, false)
		if err != nil {
			return m, fmt.Errorf("measure observe %d: %w", i, err)
		}
		body = obs.AppendDataURL(body[:0])
		m.Times = append(m.Times, time.Since(t0))
		m.Bytes = obs.Size
		if prev != nil && !same(prev, f, nil) {
			m.Changed++
		}
		prev = f
	}
	return m, nil
}
