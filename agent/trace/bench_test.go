package trace

import (
	"bytes"
	"image/color"
	"image/png"
	"testing"
)

// BenchmarkWriteStep records one typical step (five events, fsync included) with its
// 1920x1080 full frame and the 1366x768 model frame as sent. "changed": both differ
// from every earlier step's (one pixel is set to the step number), so both are
// written, the full frame encoded with vision's banded PNG encoder; "unchanged": the
// same screen every step, found stored already. It reports the trace's growth per
// step.
func BenchmarkWriteStep(b *testing.B) {
	for _, changing := range []bool{true, false} {
		name := "unchanged"
		if changing {
			name = "changed"
		}
		b.Run(name, func(b *testing.B) {
			full, model := desktop(1920, 1080, 3), desktop(1366, 768, 3)
			var enc bytes.Buffer
			encodeModel := func() []byte {
				enc.Reset()
				if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&enc, model); err != nil {
					b.Fatal(err)
				}
				return enc.Bytes()
			}
			w, err := Create(b.TempDir(), sampleStart())
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			data := encodeModel()
			writeFrameStep(b, w, 1, full, data) // the first step always writes
			start := dirSize(b, w.Dir())
			step := 1
			b.ReportAllocs()
			for b.Loop() {
				step++
				if changing {
					b.StopTimer()
					mark := color.RGBA{uint8(step), uint8(step >> 8), 0, 255}
					full.SetRGBA(5, 5, mark)
					model.SetRGBA(5, 5, mark)
					data = encodeModel()
					b.StartTimer()
				}
				writeFrameStep(b, w, step, full, data)
			}
			b.StopTimer()
			b.ReportMetric(float64(dirSize(b, w.Dir())-start)/float64(step-1), "bytes/step")
		})
	}
}
