package checks

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"

	"deskpilot/internal/smallfile"
)

// This file holds images as Pillow (9.4) holds them for OSWorld's image
// metrics: a mode ("L", "LA", "RGB", "RGBA", "P") and 8-bit bands, with
// Pillow's conversions between modes (its integer luma, its HSV), its
// resampling filters, and the arrays numpy makes of them.

// maxImagePixels bounds the images a check decodes.
const maxImagePixels = 64 << 20

// pimg is an image as Pillow holds it.
type pimg struct {
	mode  string
	w, h  int
	bands int
	pix   []uint8    // h rows of w pixels of bands bytes
	pal   [][3]uint8 // for mode "P": the palette
	fname string
}

func newPimg(mode string, w, h int) *pimg {
	b := map[string]int{"L": 1, "P": 1, "LA": 2, "RGB": 3, "RGBA": 4, "HSV": 3, "RGBa": 4, "La": 2}[mode]
	return &pimg{mode: mode, w: w, h: h, bands: b, pix: make([]uint8, w*h*b)}
}

// openImage is Image.open(p) followed by loading the first frame.
func openImage(p string) (*pimg, error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return nil, err
	}
	cfg, format, err := decodeConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot identify image file: %w", p, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxImagePixels {
		return nil, fmt.Errorf("%s: %dx%d pixels, more than the %d allowed", p, cfg.Width, cfg.Height, maxImagePixels)
	}
	var img image.Image
	switch format {
	case "gif":
		g, err := gif.DecodeAll(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		img = gifFirstFrame(g)
	case "png":
		img, err = png.Decode(bytes.NewReader(data))
	case "jpeg":
		img, err = jpeg.Decode(bytes.NewReader(data))
	case "bmp":
		img, err = bmp.Decode(bytes.NewReader(data))
	case "tiff":
		img, err = tiff.Decode(bytes.NewReader(data))
	case "webp":
		img, err = webp.Decode(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	out, err := fromImage(img, format, pngColorType(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	out.fname = p
	return out, nil
}

func decodeConfig(data []byte) (image.Config, string, error) {
	r := bytes.NewReader(data)
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		c, err := png.DecodeConfig(r)
		return c, "png", err
	case bytes.HasPrefix(data, []byte("\xff\xd8")):
		c, err := jpeg.DecodeConfig(r)
		return c, "jpeg", err
	case bytes.HasPrefix(data, []byte("GIF8")):
		c, err := gif.DecodeConfig(r)
		return c, "gif", err
	case bytes.HasPrefix(data, []byte("BM")):
		c, err := bmp.DecodeConfig(r)
		return c, "bmp", err
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		c, err := tiff.DecodeConfig(r)
		return c, "tiff", err
	case len(data) > 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		c, err := webp.DecodeConfig(r)
		return c, "webp", err
	}
	return image.Config{}, "", errors.New("unknown image format")
}

// pngColorType is the PNG's IHDR colour type (-1 for another format).
func pngColorType(data []byte) int {
	if len(data) < 26 || !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) || string(data[12:16]) != "IHDR" {
		return -1
	}
	return int(data[25])
}

// gifFirstFrame is the first frame on the GIF's logical screen, the rest of
// the screen in the background colour, as Pillow loads it.
func gifFirstFrame(g *gif.GIF) image.Image {
	f := g.Image[0]
	w, h := g.Config.Width, g.Config.Height
	if f.Bounds() == image.Rect(0, 0, w, h) || w == 0 || h == 0 {
		return f
	}
	out := image.NewPaletted(image.Rect(0, 0, w, h), f.Palette)
	for i := range out.Pix {
		out.Pix[i] = g.BackgroundIndex
	}
	draw.Draw(out, f.Bounds(), f, f.Bounds().Min, draw.Src)
	return out
}

// fromImage maps a decoded image to Pillow's mode for that file: for PNG
// its colour type, for others the decoder's pixel type.
func fromImage(img image.Image, format string, pngType int) (*pimg, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	mode := "RGB"
	switch pngType {
	case 0:
		mode = "L"
	case 2:
		mode = "RGB"
	case 3:
		mode = "P"
	case 4:
		mode = "LA"
	case 6:
		mode = "RGBA"
	default:
		switch img.(type) {
		case *image.Gray:
			mode = "L"
		case *image.Paletted:
			mode = "P"
		case *image.NRGBA, *image.RGBA:
			if format != "jpeg" {
				mode = "RGBA"
			}
		}
	}
	if _, ok := img.(*image.Gray16); ok && mode == "L" {
		return nil, errors.New("16-bit grey images (Pillow's mode I;16) are not supported")
	}
	out := newPimg(mode, w, h)
	if mode == "P" {
		pi, ok := img.(*image.Paletted)
		if !ok {
			return nil, errors.New("a palette image without a palette")
		}
		for _, c := range pi.Palette {
			r, g, bl, _ := color.NRGBAModel.Convert(c).RGBA()
			out.pal = append(out.pal, [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)})
		}
		for y := range h {
			copy(out.pix[y*w:(y+1)*w], pi.Pix[y*pi.Stride:y*pi.Stride+w])
		}
		return out, nil
	}
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			switch mode {
			case "L":
				out.pix[i] = c.R
			case "LA":
				out.pix[i], out.pix[i+1] = c.R, c.A
			case "RGB":
				out.pix[i], out.pix[i+1], out.pix[i+2] = c.R, c.G, c.B
			case "RGBA":
				out.pix[i], out.pix[i+1], out.pix[i+2], out.pix[i+3] = c.R, c.G, c.B, c.A
			}
			i += out.bands
		}
	}
	return out, nil
}

// rgbAt is pixel i's red, green and blue as Pillow's conversions read them.
func (m *pimg) rgbAt(i int) (r, g, b uint8) {
	switch m.mode {
	case "L", "LA":
		v := m.pix[i*m.bands]
		return v, v, v
	case "P":
		idx := int(m.pix[i])
		if idx < len(m.pal) {
			c := m.pal[idx]
			return c[0], c[1], c[2]
		}
		return 0, 0, 0
	}
	o := i * m.bands
	return m.pix[o], m.pix[o+1], m.pix[o+2]
}

// luma is Pillow's L24: ITU-R 601-2 luma in 16-bit fixed point.
func luma(r, g, b uint8) uint8 {
	return uint8((uint32(r)*19595 + uint32(g)*38470 + uint32(b)*7471 + 0x8000) >> 16)
}

// convert is Image.convert(mode) for the conversions the metrics use.
func (m *pimg) convert(mode string) (*pimg, error) {
	if mode == m.mode {
		c := *m
		c.pix = append([]uint8(nil), m.pix...)
		return &c, nil
	}
	out := newPimg(mode, m.w, m.h)
	n := m.w * m.h
	switch mode {
	case "L":
		for i := range n {
			if m.mode == "LA" {
				out.pix[i] = m.pix[2*i]
				continue
			}
			out.pix[i] = luma(m.rgbAt(i))
		}
	case "RGB":
		for i := range n {
			out.pix[3*i], out.pix[3*i+1], out.pix[3*i+2] = m.rgbAt(i)
		}
	case "HSV":
		if m.mode != "RGB" && m.mode != "RGBA" {
			return nil, fmt.Errorf("ValueError: conversion from %s to HSV not supported", m.mode)
		}
		for i := range n {
			r, g, b := m.rgbAt(i)
			out.pix[3*i], out.pix[3*i+1], out.pix[3*i+2] = rgbToHSV(r, g, b)
		}
	case "RGBa":
		if m.mode != "RGBA" {
			return nil, fmt.Errorf("ValueError: conversion from %s to RGBa not supported", m.mode)
		}
		for i := range n {
			a := uint32(m.pix[4*i+3])
			for c := range 3 {
				out.pix[4*i+c] = mulDiv255(uint32(m.pix[4*i+c]), a)
			}
			out.pix[4*i+3] = uint8(a)
		}
	case "La":
		if m.mode != "LA" {
			return nil, fmt.Errorf("ValueError: conversion from %s to La not supported", m.mode)
		}
		for i := range n {
			a := uint32(m.pix[2*i+1])
			out.pix[2*i], out.pix[2*i+1] = mulDiv255(uint32(m.pix[2*i]), a), uint8(a)
		}
	default:
		return nil, fmt.Errorf("ValueError: conversion to %s not supported here", mode)
	}
	return out, nil
}

// unpremultiply turns an RGBa or La image back into RGBA or LA.
func (m *pimg) unpremultiply() *pimg {
	mode := map[string]string{"RGBa": "RGBA", "La": "LA"}[m.mode]
	out := newPimg(mode, m.w, m.h)
	nb := m.bands
	for i := 0; i < len(m.pix); i += nb {
		a := uint32(m.pix[i+nb-1])
		for c := 0; c < nb-1; c++ {
			v := uint32(m.pix[i+c])
			if a != 0 && a != 255 {
				v = min(255*v/a, 255)
			}
			out.pix[i+c] = uint8(v)
		}
		out.pix[i+nb-1] = uint8(a)
	}
	return out
}

func mulDiv255(v, a uint32) uint8 {
	t := v*a + 128
	return uint8(((t >> 8) + t) >> 8)
}

// rgbToHSV is Pillow's rgb2hsv (colorsys's formulas in C floats, bytes out).
func rgbToHSV(r, g, b uint8) (uint8, uint8, uint8) {
	maxc, minc := max(r, g, b), min(r, g, b)
	if maxc == minc {
		return 0, 0, maxc
	}
	cr := float32(maxc - minc)
	s := cr / float32(maxc)
	rc := float32(maxc-r) / cr
	gc := float32(maxc-g) / cr
	bc := float32(maxc-b) / cr
	var h float32
	switch {
	case r == maxc:
		h = bc - gc
	case g == maxc:
		h = 2.0 + rc - bc
	default:
		h = 4.0 + gc - rc
	}
	h = float32(math.Mod(float64(h)/6.0+1.0, 1.0))
	return clip8(int(float64(h) * 255.0)), clip8(int(float64(s) * 255.0)), maxc
}

func clip8(v int) uint8 {
	return uint8(min(max(v, 0), 255))
}

// band returns band k of the image as a one-band ("L") image: Image.split.
func (m *pimg) band(k int) *pimg {
	out := newPimg("L", m.w, m.h)
	for i := range m.w * m.h {
		out.pix[i] = m.pix[i*m.bands+k]
	}
	return out
}

// array is np.array(img) as float64: its values and shape (h, w) for one
// band, (h, w, bands) for more.
func (m *pimg) array() ([]float64, []int) {
	a := make([]float64, len(m.pix))
	for i, v := range m.pix {
		a[i] = float64(v)
	}
	if m.bands == 1 {
		return a, []int{m.h, m.w}
	}
	return a, []int{m.h, m.w, m.bands}
}

// flipLeftRight is Image.transpose(FLIP_LEFT_RIGHT).
func (m *pimg) flipLeftRight() *pimg {
	out := *m
	out.pix = make([]uint8, len(m.pix))
	for y := range m.h {
		for x := range m.w {
			s := (y*m.w + x) * m.bands
			d := (y*m.w + m.w - 1 - x) * m.bands
			copy(out.pix[d:d+m.bands], m.pix[s:s+m.bands])
		}
	}
	return &out
}
