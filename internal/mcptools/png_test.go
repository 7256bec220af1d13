package mcptools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// pngWith encodes a 3x2 image and inserts an ancillary tEXt chunk after
// IHDR, its checksum spoilt when bad; spoil names a critical chunk whose
// checksum is spoilt too ("" = none).
func pngWith(t *testing.T, bad bool, spoil string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(2, 1, color.RGBA{R: 200, G: 10, B: 30, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	text := []byte("tEXtComment\x00made by a server")
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(text)-4))
	chunk = append(chunk, text...)
	sum := crc32.ChecksumIEEE(text)
	if bad {
		sum ^= 0xdeadbeef
	}
	chunk = binary.BigEndian.AppendUint32(chunk, sum)
	ihdrEnd := 8 + 12 + 13
	out := append(append(append([]byte{}, data[:ihdrEnd]...), chunk...), data[ihdrEnd:]...)
	if spoil != "" {
		i := bytes.Index(out, []byte(spoil))
		n := int(binary.BigEndian.Uint32(out[i-4:]))
		out[i+4+n] ^= 0xff
	}
	return out
}

// Go's decoder refuses a PNG whose ancillary chunk fails its checksum;
// decodeImage drops that chunk and reads the image. A critical chunk that
// fails is a *ChunkError naming it. Sound data is not copied.
func TestDecodeImageDropsBadAncillaryChunks(t *testing.T) {
	broken := pngWith(t, true, "")
	if _, err := png.Decode(bytes.NewReader(broken)); err == nil {
		t.Fatal("image/png read the broken file: the test proves nothing")
	}
	img, err := decodeImage(broken)
	if err != nil {
		t.Fatalf("decodeImage: %v", err)
	}
	if img.Bounds().Dx() != 3 || img.Bounds().Dy() != 2 || img.RGBAAt(2, 1) != (color.RGBA{R: 200, G: 10, B: 30, A: 255}) {
		t.Errorf("decoded %v, pixel %v", img.Bounds(), img.RGBAAt(2, 1))
	}
	if _, dropped, _ := repairPNG(broken); len(dropped) != 1 || dropped[0] != "tEXt" {
		t.Errorf("dropped %v, want [tEXt]", dropped)
	}

	sound := pngWith(t, false, "")
	if out, dropped, err := repairPNG(sound); err != nil || len(dropped) != 0 || &out[0] != &sound[0] {
		t.Errorf("a sound PNG was changed: dropped %v, err %v", dropped, err)
	}

	for _, typ := range []string{"IHDR", "IDAT", "IEND"} {
		_, err := decodeImage(pngWith(t, true, typ))
		var ce *ChunkError
		if !errors.As(err, &ce) || ce.Type != typ {
			t.Errorf("a bad %s: %v, want a *ChunkError for it", typ, err)
		}
	}

	// Not a PNG, or cut short: the decoders' own errors.
	for _, data := range [][]byte{[]byte("GIF89a..."), broken[:40]} {
		if _, err := decodeImage(data); err == nil {
			t.Errorf("%q decoded", data[:6])
		}
	}
}
