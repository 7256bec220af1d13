package vision

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	adler "hash/adler32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

func opaqueRandom(r *rand.Rand, w, h int) *image.RGBA {
	m := randomRGBA(r, image.Rect(0, 0, w, h))
	for i := 3; i < len(m.Pix); i += 4 {
		m.Pix[i] = 255
	}
	return m
}

// decodePNG decodes data and also checks what image/png does not: that the
// zlib stream inside the IDAT chunks ends cleanly with a valid Adler-32.
func decodePNG(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("png.Decode: %v", err)
	}
	var idat []byte
	for rest := data[8:]; len(rest) >= 12; {
		n := binary.BigEndian.Uint32(rest)
		typ := string(rest[4:8])
		if typ == "IDAT" {
			idat = append(idat, rest[8:8+n]...)
		}
		rest = rest[12+n:]
	}
	zr, err := zlib.NewReader(bytes.NewReader(idat))
	if err != nil {
		t.Fatalf("zlib header: %v", err)
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		t.Fatalf("zlib stream: %v", err)
	}
	return img
}

func samePixels(t *testing.T, got image.Image, want *image.RGBA) {
	t.Helper()
	if got.Bounds().Size() != want.Rect.Size() {
		t.Fatalf("size %v, want %v", got.Bounds().Size(), want.Rect.Size())
	}
	if g, ok := got.(*image.RGBA); ok { // fast path: compare rows
		w := 4 * want.Rect.Dx()
		for y := range want.Rect.Dy() {
			gr := g.Pix[g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y+y):][:w]
			wr := want.Pix[want.PixOffset(want.Rect.Min.X, want.Rect.Min.Y+y):][:w]
			if !bytes.Equal(gr, wr) {
				for i := range gr {
					if gr[i] != wr[i] {
						t.Fatalf("pixel (%d,%d) differs: %v, want %v", i/4, y, gr[i/4*4:i/4*4+4], wr[i/4*4:i/4*4+4])
					}
				}
			}
		}
		return
	}
	gb, wb := got.Bounds().Min, want.Rect.Min
	for y := range want.Rect.Dy() {
		for x := range want.Rect.Dx() {
			g := color.RGBAModel.Convert(got.At(gb.X+x, gb.Y+y)).(color.RGBA)
			if w := want.RGBAAt(wb.X+x, wb.Y+y); g != w {
				t.Fatalf("pixel (%d,%d) = %v, want %v", x, y, g, w)
			}
		}
	}
}

func TestEncodePNGRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	busy := Downscale(loadRGBA(t, "busy1080.png"), ScaledSize(1920, 1080, 0))
	tests := []struct {
		name string
		img  *image.RGBA
	}{
		{"busy screenshot", busy},
		{"1x1", opaqueRandom(r, 1, 1)},
		{"one row", opaqueRandom(r, 300, 1)},
		{"one column", opaqueRandom(r, 1, 300)},
		{"noise 257x131", opaqueRandom(r, 257, 131)},
		{"sub-image", busy.SubImage(image.Rect(100, 50, 700, 400)).(*image.RGBA)},
	}
	var e Encoder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := e.Encode(tt.img)
			if err != nil {
				t.Fatal(err)
			}
			got := decodePNG(t, data)
			if _, ok := got.(*image.RGBA); !ok {
				t.Errorf("decoded as %T; want 8-bit RGB (decoded as *image.RGBA)", got)
			}
			samePixels(t, got, tt.img)
		})
	}
}

func TestEncodeReusesBuffersSafely(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	a, b := opaqueRandom(r, 64, 40), opaqueRandom(r, 200, 90)
	var e Encoder
	da, err := e.Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	db, err := e.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	samePixels(t, decodePNG(t, da), a) // the first result survives the second call
	samePixels(t, decodePNG(t, db), b)
}

func TestEncodeFallbacks(t *testing.T) {
	t.Run("translucent RGBA", func(t *testing.T) {
		m := image.NewRGBA(image.Rect(0, 0, 20, 10))
		for i := range m.Pix {
			m.Pix[i] = 255
		}
		m.SetRGBA(3, 4, color.RGBA{0, 0, 0, 0})
		data, err := new(Encoder).Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		got := decodePNG(t, data)
		if _, _, _, a := got.At(3, 4).RGBA(); a != 0 {
			t.Errorf("transparent pixel has alpha %d after a round trip", a)
		}
		samePixels(t, got, m)
	})
	t.Run("gray", func(t *testing.T) {
		g := image.NewGray(image.Rect(0, 0, 9, 9))
		g.Pix[40] = 200
		data, err := new(Encoder).Encode(g)
		if err != nil {
			t.Fatal(err)
		}
		if c := decodePNG(t, data).At(4, 4).(color.Gray); c.Y != 200 {
			t.Errorf("centre = %v, want 200", c)
		}
	})
}

func TestEncodeJPEG(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	m := opaqueRandom(r, 64, 48)
	for _, q := range []int{0, 30, 100} {
		e := Encoder{Format: FormatJPEG, Quality: q}
		data, err := e.Encode(m)
		if err != nil {
			t.Fatalf("quality %d: %v", q, err)
		}
		got, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil || got.Bounds().Size() != m.Rect.Size() {
			t.Fatalf("quality %d: decode = %v, %v", q, got.Bounds(), err)
		}
	}
	if _, err := (&Encoder{Format: FormatJPEG, Quality: 101}).Encode(m); err == nil {
		t.Error("quality 101 accepted")
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := new(Encoder).Encode(image.NewRGBA(image.Rect(0, 0, 0, 5))); err == nil {
		t.Error("empty image encoded without error")
	}
}

func TestAdler32Combine(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	data := make([]byte, 200000)
	for i := range data {
		data[i] = byte(r.IntN(256))
	}
	for _, cut := range []int{0, 1, 5551, 65521, 65522, 100000, len(data)} {
		a, b := data[:cut], data[cut:]
		got := adler32Combine(adler.Checksum(a), adler.Checksum(b), len(b))
		if want := adler.Checksum(data); got != want {
			t.Errorf("cut at %d: combined %08x, want %08x", cut, got, want)
		}
	}
}

func TestDataURL(t *testing.T) {
	data := []byte("\x89PNG fake bytes, long enough to cross a base64 chunk: " + strings.Repeat("x", 5000))
	tests := []struct {
		f      Format
		prefix string
	}{
		{FormatPNG, "data:image/png;base64,"},
		{"", "data:image/png;base64,"},
		{FormatJPEG, "data:image/jpeg;base64,"},
		{FormatWebP, "data:image/webp;base64,"},
	}
	for _, tt := range tests {
		t.Run(string(tt.f), func(t *testing.T) {
			u := DataURL(tt.f, data)
			if len(u) != DataURLLen(tt.f, len(data)) {
				t.Errorf("len %d, DataURLLen says %d", len(u), DataURLLen(tt.f, len(data)))
			}
			rest, ok := strings.CutPrefix(u, tt.prefix)
			if !ok {
				t.Fatalf("DataURL(%q) = %.40q, want prefix %q", tt.f, u, tt.prefix)
			}
			if got, err := base64.StdEncoding.DecodeString(rest); err != nil || !bytes.Equal(got, data) {
				t.Errorf("payload decodes to %.40q, %v", got, err)
			}
			body := AppendDataURL([]byte(`{"url":"`), tt.f, data)
			if want := `{"url":"` + u; string(body) != want {
				t.Errorf("AppendDataURL differs from DataURL")
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]Format{"": FormatPNG, "PNG": FormatPNG, "jpg": FormatJPEG, " jpeg": FormatJPEG, "WebP": FormatWebP} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"gif", "avif", "png8", "image/png"} {
		if _, err := ParseFormat(bad); err == nil {
			t.Errorf("ParseFormat(%q) succeeded", bad)
		}
	}
	for f, want := range map[Format][2]string{
		FormatPNG: {"image/png", "png"}, "": {"image/png", "png"}, "bmp": {"image/png", "png"},
		FormatJPEG: {"image/jpeg", "jpeg"}, FormatWebP: {"image/webp", "webp"},
	} {
		if got := [2]string{f.MIME(), f.Ext()}; got != want {
			t.Errorf("%q: MIME, Ext = %q, want %q", f, got, want)
		}
	}
}

func TestEncodeReusesUnchangedBands(t *testing.T) {
	base := Downscale(loadRGBA(t, "busy1080.png"), image.Pt(683, 384))
	edit := func(y int) func(*image.RGBA) {
		return func(m *image.RGBA) { m.SetRGBA(m.Rect.Dx()/2, y, color.RGBA{1, 2, 3, 255}) }
	}
	steps := []struct {
		name           string
		edit           func(*image.RGBA)
		wantCompressed int
	}{
		{"first", func(*image.RGBA) {}, 8}, // 384 rows, 48 per band
		{"same again", func(*image.RGBA) {}, 0},
		{"first row changed", edit(0), 1},
		{"middle row changed", edit(200), 1},
		{"last row changed", edit(383), 1},
		{"cursor drawn", func(m *image.RGBA) { Annotate(m, &image.Point{300, 100}, nil) }, 1},
		{"band boundary", edit(47), 1},
		{"next band start", edit(48), 1},
		{"two bands", func(m *image.RGBA) { edit(10)(m); edit(300)(m) }, 2},
	}
	var e Encoder
	m := Crop(base, base.Rect)
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			st.edit(m)
			data, err := e.Encode(m)
			if err != nil {
				t.Fatal(err)
			}
			samePixels(t, decodePNG(t, data), m)
			if got := e.png.compressed; got != st.wantCompressed {
				t.Errorf("compressed %d bands, want %d", got, st.wantCompressed)
			}
		})
	}
	t.Run("fresh encoder gives the same bytes", func(t *testing.T) {
		cached, _ := e.Encode(m)
		fresh, _ := new(Encoder).Encode(m)
		if !bytes.Equal(cached, fresh) {
			t.Error("cached bands produce different bytes than a fresh encoder")
		}
	})
}

func TestAdler32(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(r.IntN(256))
	}
	ff := bytes.Repeat([]byte{0xFF}, 3<<20) // the largest sums
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 31, 32, 33, 64, 95, 4099, 5552, 5553, 65521, 196752, 1 << 20, 1<<20 + 3, 3 << 20} {
		for _, in := range [][]byte{data[:n], ff[:n], data[len(data)-n:]} {
			if got, want := adlerSum(in), adler32std(in); got != want {
				t.Errorf("%d bytes: %08x, want %08x", n, got, want)
			}
		}
	}
}

// adler32std is hash/adler32's checksum, the reference.
func adler32std(p []byte) uint32 { return adler.Checksum(p) }
