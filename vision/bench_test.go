package vision

import (
	"bytes"
	"image"
	"image/png"
	"testing"
	"time"

	"github.com/disintegration/imaging"

	"deskpilot/internal/proc"
)

// Benchmarks run on testdata/busy1080.png, a 1920x1080 Xvfb screenshot
// (openbox, two xterms full of text, a Tk settings dialog and a photo-like
// plasma image). Figures are in the Encoder and Downscale doc comments.

// cpuMeter reports a benchmark's CPU time per operation (all goroutines,
// as "cpu-ms/op") next to its wall time: on a machine shared with other
// jobs, wall time says more about the neighbours than about the code.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{proc.CPUTime()} }

func (c cpuMeter) report(b *testing.B) {
	if c.start == 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(proc.CPUTime()-c.start)/float64(b.N)/1e6, "cpu-ms/op")
}

// shifted returns m moved right by one pixel, so every row differs from m
// and no cached PNG band can be reused.
func shifted(m *image.RGBA) *image.RGBA {
	s := Crop(m, m.Rect)
	for y := range s.Rect.Dy() {
		row := s.Pix[y*s.Stride : y*s.Stride+4*s.Rect.Dx()]
		copy(row[4:], row[:len(row)-4])
	}
	return s
}

func BenchmarkDownscale1080p(b *testing.B) {
	src := loadRGBA(b, "busy1080.png")
	size := ScaledSize(1920, 1080, 0)
	b.Run("vision", func(b *testing.B) {
		dst := image.NewRGBA(image.Rectangle{Max: size})
		var s scaler
		b.SetBytes(int64(len(src.Pix)))
		cpu := startCPU()
		for b.Loop() {
			s.scale(dst, src)
		}
		cpu.report(b)
	})
	b.Run("vision-up-1932x1092", func(b *testing.B) { // a smart_resize size above the frame's
		dst := image.NewRGBA(image.Rect(0, 0, 1932, 1092))
		var s scaler
		cpu := startCPU()
		for b.Loop() {
			s.scale(dst, src)
		}
		cpu.report(b)
	})
	for _, f := range []struct {
		name string
		f    imaging.ResampleFilter
	}{{"imaging-box", imaging.Box}, {"imaging-linear", imaging.Linear}, {"imaging-lanczos", imaging.Lanczos}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(src.Pix)))
			cpu := startCPU()
			for b.Loop() {
				imaging.Resize(src, size.X, size.Y, f.f)
			}
			cpu.report(b)
		})
	}
}

// BenchmarkEncode encodes the busy desktop at the model's size, 1366x768,
// in every format: size ("bytes") and cost. "png" compresses every band
// each time (two frames that differ in every row, alternating);
// "png-cursor-moved" is a typical step where little changed.
func BenchmarkEncode(b *testing.B) {
	frames := []*image.RGBA{Downscale(loadRGBA(b, "busy1080.png"), ScaledSize(1920, 1080, 0))}
	frames = append(frames, shifted(frames[0]))
	formats := []struct {
		name string
		e    Encoder
	}{
		{"png", Encoder{}},
		{"jpeg85", Encoder{Format: FormatJPEG}},
		{"jpeg70", Encoder{Format: FormatJPEG, Quality: 70}},
		{"webp", Encoder{Format: FormatWebP}},
	}
	for _, tt := range formats {
		b.Run(tt.name, func(b *testing.B) {
			e := tt.e
			var n, i int
			cpu := startCPU()
			for b.Loop() {
				out, err := e.encode(frames[i%2])
				if err != nil {
					b.Fatal(err)
				}
				n, i = len(out), i+1
			}
			cpu.report(b)
			b.ReportMetric(float64(n), "bytes")
		})
	}
	b.Run("png-cursor-moved", func(b *testing.B) {
		var e Encoder
		m := Crop(frames[0], frames[0].Rect)
		clean := Crop(m, m.Rect)
		var i int
		cpu := startCPU()
		for b.Loop() {
			b.StopTimer()
			copy(m.Pix, clean.Pix)
			Annotate(m, &image.Point{100 + 37*(i%20), 200 + 23*(i%20)}, nil)
			i++
			b.StartTimer()
			if _, err := e.encode(m); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report(b)
	})
	for _, lvl := range []struct {
		name string
		l    png.CompressionLevel
	}{{"stdlib-png-bestspeed", png.BestSpeed}, {"stdlib-png-default", png.DefaultCompression}} {
		b.Run(lvl.name, func(b *testing.B) {
			enc := png.Encoder{CompressionLevel: lvl.l, BufferPool: &pngPool{}}
			var buf bytes.Buffer
			cpu := startCPU()
			for b.Loop() {
				buf.Reset()
				if err := enc.Encode(&buf, frames[0]); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b)
			b.ReportMetric(float64(buf.Len()), "bytes")
		})
	}
}

// BenchmarkEncodeFull1080p encodes the full-resolution busy frame, as the trace
// stores it, every band changed each time: vision's banded PNG encoder against
// image/png at BestSpeed (what the trace used before).
func BenchmarkEncodeFull1080p(b *testing.B) {
	frames := []*image.RGBA{loadRGBA(b, "busy1080.png")}
	frames = append(frames, shifted(frames[0]))
	b.Run("vision-png", func(b *testing.B) {
		var e Encoder
		var n, i int
		cpu := startCPU()
		for b.Loop() {
			out, err := e.encode(frames[i%2])
			if err != nil {
				b.Fatal(err)
			}
			n, i = len(out), i+1
		}
		cpu.report(b)
		b.ReportMetric(float64(n), "bytes")
	})
	b.Run("stdlib-png-bestspeed", func(b *testing.B) {
		enc := png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &pngPool{}}
		var buf bytes.Buffer
		var i int
		cpu := startCPU()
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(&buf, frames[i%2]); err != nil {
				b.Fatal(err)
			}
			i++
		}
		cpu.report(b)
		b.ReportMetric(float64(buf.Len()), "bytes")
	})
}

// BenchmarkObserve is the model-facing half of an observation of a busy
// 1920x1080 frame: scale to 1366x768, draw the cursor and a click marker,
// encode, base64 data URL written into a reused request buffer. "png"
// alternates two frames that differ in every row (a screen that changes
// everywhere: nothing is reused); "png-step" moves the cursor only, on two
// captures of a still screen.
func BenchmarkObserve(b *testing.B) {
	src := loadRGBA(b, "busy1080.png")
	frames := []*image.RGBA{src, shifted(src)}
	for _, tt := range []struct {
		name   string
		f      Format
		frames []*image.RGBA
		move   bool
	}{
		{"png", FormatPNG, frames, false},
		{"png-step", FormatPNG, []*image.RGBA{src, Crop(src, src.Rect)}, true}, // new captures of a still screen
		{"jpeg", FormatJPEG, frames, false},
		{"webp", FormatWebP, frames, false},
	} {
		b.Run(tt.name, func(b *testing.B) {
			o := Observer{Mapper: NewMapper(src.Rect, 0, CoordPixels), Encoder: Encoder{Format: tt.f}}
			var size, i int
			var body []byte // the request body the data URL is written into, reused
			cpu := startCPU()
			for b.Loop() {
				cursor := image.Pt(700, 300)
				if tt.move {
					cursor = cursor.Add(image.Pt(40*(i%10), 30*(i%10)))
				}
				ov := Overlay{Cursor: &cursor, Marks: []Mark{{At: image.Pt(700, 300)}}}
				obs, err := o.observe(tt.frames[i%len(tt.frames)], ov, false)
				if err != nil {
					b.Fatal(err)
				}
				body = obs.AppendDataURL(body[:0])
				size, i = len(body), i+1
			}
			cpu.report(b)
			b.ReportMetric(float64(size), "url-bytes")
		})
	}
}

func BenchmarkDiffFraction1080p(b *testing.B) {
	a := loadRGBA(b, "busy1080.png")
	c := Crop(a, a.Rect)
	c.Pix[len(c.Pix)/2] ^= 1
	b.SetBytes(int64(len(a.Pix)))
	for b.Loop() {
		DiffFraction(a, c)
	}
}

func BenchmarkAdler32(b *testing.B) {
	data := Downscale(loadRGBA(b, "busy1080.png"), ScaledSize(1920, 1080, 0)).Pix[:196752]
	b.Run("vision", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			adlerSum(data)
		}
	})
	b.Run("hash-adler32", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			adler32std(data)
		}
	})
}
