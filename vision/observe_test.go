package vision

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/jpeg"
	"strings"
	"testing"
)

func TestObserve(t *testing.T) {
	display := image.Rect(1920, 0, 3840, 1080) // the right-hand monitor
	tests := []struct {
		name   string
		origin image.Point // where the captured frame's bounds start
	}{
		{"frame at origin", image.Point{}},
		{"frame in root coordinates", display.Min},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := loadRGBA(t, "busy1080.png")
			src.Rect = src.Rect.Add(tt.origin)
			o := Observer{Mapper: NewMapper(display, 0, CoordPixels)}
			cursor := image.Pt(1920+960, 540)
			mask := image.Rect(1920+1500, 800, 1920+1900, 1000)
			obs, err := o.Observe(src, Overlay{
				Cursor: &cursor,
				Marks:  []Mark{{At: image.Pt(1920+200, 300)}},
				Mask:   []image.Rectangle{mask},
			})
			if err != nil {
				t.Fatal(err)
			}
			if obs.Full.Rect != src.Rect || obs.Image.Rect.Size() != image.Pt(1366, 768) {
				t.Fatalf("Full %v (want %v), Image %v (want 1366x768)", obs.Full.Rect, src.Rect, obs.Image.Rect)
			}
			// The mask is painted into a copy of the full frame at the same
			// root rectangle; the frame itself is left alone.
			inFrame := mask.Sub(display.Min).Add(tt.origin)
			p := inFrame.Min.Add(image.Pt(1, 5))
			if c := obs.Full.RGBAAt(p.X, p.Y); c != rgb(maskRGB) && c != rgb(hatchRGB) {
				t.Errorf("full frame inside the mask = %v, want mask colours", c)
			}
			if DiffFraction(src, loadRGBA(t, "busy1080.png")) != 0 {
				t.Error("Observe modified its input frame")
			}
			corner := o.Mapper.ToImage(ScreenPoint{mask.Min.X + 3, mask.Min.Y + 3})
			if c := obs.Image.RGBAAt(corner.X, corner.Y); c.R < rgb(maskRGB).R || c.R > rgb(hatchRGB).R || c.R > c.B {
				t.Errorf("model image inside the mask = %v, want a mix of mask and hatch grey", c)
			}
			// Cursor tip and click marker land where the Mapper puts them.
			tip := o.Mapper.ToImage(ScreenPoint{cursor.X, cursor.Y})
			if c := obs.Image.RGBAAt(tip.X, tip.Y); c != (rgb(0)) {
				t.Errorf("model image at the cursor tip %v = %v, want black", tip, c)
			}
			click := o.Mapper.ToImage(ScreenPoint{1920 + 200, 300})
			if c := obs.Image.RGBAAt(click.X, click.Y); c != rgb(markRGB) {
				t.Errorf("model image at the click %v = %v, want the mark colour", click, c)
			}
			// The data URL holds exactly the model image.
			url := obs.DataURL()
			payload, ok := strings.CutPrefix(url, "data:image/png;base64,")
			if !ok {
				t.Fatalf("URL starts %q", url[:min(40, len(url))])
			}
			data, err := base64.StdEncoding.DecodeString(payload)
			if err != nil || len(data) != obs.Size {
				t.Fatalf("payload: %d bytes, %v; Size %d", len(data), err, obs.Size)
			}
			samePixels(t, decodePNG(t, data), obs.Image)
			if !bytes.Equal(obs.Data, data) {
				t.Error("Data is not the bytes behind URL")
			}
			// Data stays the caller's: the next observation does not overwrite it.
			kept := bytes.Clone(obs.Data)
			if _, err := o.Observe(whiteImage(1920, 1080), Overlay{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(obs.Data, kept) {
				t.Error("the next Observe changed an earlier Observation's Data")
			}
		})
	}
}

func TestObserveReusesAndReports(t *testing.T) {
	display := image.Rect(0, 0, 640, 400)
	o := Observer{Mapper: NewMapper(display, 320, CoordNorm1000), Encoder: Encoder{Format: FormatJPEG}}
	a := whiteImage(640, 400)
	first, err := o.Observe(a, Overlay{})
	if err != nil {
		t.Fatal(err)
	}
	b := whiteImage(640, 400)
	MaskRects(b, []image.Rectangle{b.Rect})
	second, err := o.Observe(b, Overlay{})
	if err != nil {
		t.Fatal(err)
	}
	if first.Image != second.Image {
		t.Error("the model image buffer was not reused")
	}
	if second.Full != b {
		t.Error("Full is a copy although nothing was masked")
	}
	url := second.DataURL()
	if second.Format != FormatJPEG || !strings.HasPrefix(url, "data:image/jpeg;base64,") {
		t.Errorf("format %q, URL %.30q; want JPEG", second.Format, url)
	}
	data, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, "data:image/jpeg;base64,"))
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Size() != image.Pt(320, 200) {
		t.Fatalf("decoded %v, %v; want 320x200", img.Bounds(), err)
	}
	if r, _, _, _ := img.At(160, 100).RGBA(); r>>8 > 200 {
		t.Errorf("second observation looks white (r=%d): it shows the first frame", r>>8)
	}
	if _, err := o.Observe(whiteImage(100, 100), Overlay{}); err == nil || !strings.Contains(err.Error(), "does not match display") {
		t.Errorf("frame of the wrong size: error %v", err)
	}
}

// TestObserveScalesEitherWay checks model images larger than the frame (a
// smart_resize family rounds 1920x1080 up to 1932x1092), smaller, and mixed
// per axis: the picture lands where Mapper.ToImage says, and so do the
// cursor and the marks.
func TestObserveScalesEitherWay(t *testing.T) {
	display := image.Rect(1920, 0, 1920+1366, 768)
	blocks := []struct {
		r image.Rectangle // root coordinates
		c uint32
	}{
		{image.Rect(1920+100, 100, 1920+300, 250), 0x2060C0},
		{image.Rect(1920+900, 500, 1920+1300, 700), 0x30A040},
	}
	frame := whiteImage(display.Dx(), display.Dy())
	for _, b := range blocks {
		r := b.r.Sub(display.Min)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				frame.SetRGBA(x, y, rgb(b.c))
			}
		}
	}
	tests := []struct {
		name string
		size image.Point
	}{
		{"up both axes 1372x784", image.Pt(1372, 784)},
		{"up a lot 1932x1092", image.Pt(1932, 1092)},
		{"down both axes 683x384", image.Pt(683, 384)},
		{"up x, down y", image.Pt(1500, 600)},
		{"down x, up y", image.Pt(1000, 900)},
		{"same size", display.Size()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Mapper{Display: display, Image: tt.size, Mode: CoordPixels}
			o := Observer{Mapper: m}
			cursor := image.Pt(1920+600, 400)
			click := image.Pt(1920+1000, 150)
			obs, err := o.Observe(frame, Overlay{Cursor: &cursor, Marks: []Mark{{At: click}}})
			if err != nil {
				t.Fatal(err)
			}
			if obs.Image.Rect.Size() != tt.size {
				t.Fatalf("model image %v, want %v", obs.Image.Rect.Size(), tt.size)
			}
			samePixels(t, decodePNG(t, obs.Data), obs.Image)
			for _, b := range blocks {
				// Inside the block, away from its edges, the colour is exact.
				in := image.Pt((b.r.Min.X+b.r.Max.X)/2, (b.r.Min.Y+b.r.Max.Y)/2)
				p := m.ToImage(ScreenPoint{in.X, in.Y})
				if c := obs.Image.RGBAAt(p.X, p.Y); c != rgb(b.c) {
					t.Errorf("block centre %v -> image %v is %v, want %v", in, p, c, rgb(b.c))
				}
				// Two screen pixels outside the block it is white again.
				out := m.ToImage(ScreenPoint{b.r.Min.X - 3, b.r.Min.Y - 3})
				if c := obs.Image.RGBAAt(out.X, out.Y); c != rgb(0xFFFFFF) {
					t.Errorf("outside the block at image %v: %v, want white", out, c)
				}
			}
			tip := m.ToImage(ScreenPoint{cursor.X, cursor.Y})
			if c := obs.Image.RGBAAt(tip.X, tip.Y); c != rgb(0) {
				t.Errorf("cursor tip at image %v is %v, want black", tip, c)
			}
			mark := m.ToImage(ScreenPoint{click.X, click.Y})
			if c := obs.Image.RGBAAt(mark.X, mark.Y); c != rgb(markRGB) {
				t.Errorf("click mark at image %v is %v, want the mark colour", mark, c)
			}
		})
	}
}
