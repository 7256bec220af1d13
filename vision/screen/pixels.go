package screen

import (
	"errors"
	"fmt"
	"image"
	"math/bits"
	"runtime"
	"sync"
	"unsafe"

	"github.com/jezek/xgb/xproto"
)

// pixelFormat describes ZPixmap images of the root window's depth and visual.
type pixelFormat struct {
	bpp     int // bits per pixel: 16 or 32
	pad     int // scanline pad in bits
	lsb     bool
	r, g, b channel
}

// channel locates one colour component inside a pixel value.
type channel struct {
	shift, width uint
}

func newChannel(mask uint32) channel {
	return channel{shift: uint(bits.TrailingZeros32(mask)), width: uint(bits.OnesCount32(mask))}
}

// get extracts the component from pixel value v, scaled to 8 bits.
func (c channel) get(v uint32) uint8 {
	x := (v >> c.shift) & (1<<c.width - 1)
	switch {
	case c.width >= 8:
		return uint8(x >> (c.width - 8))
	case c.width == 0:
		return 0
	default:
		return uint8(x * 255 / (1<<c.width - 1))
	}
}

// rootFormat reads the pixmap format and TrueColor masks of the root window.
func rootFormat(setup *xproto.SetupInfo, sc *xproto.ScreenInfo) (pixelFormat, error) {
	f := pixelFormat{lsb: setup.ImageByteOrder == xproto.ImageOrderLSBFirst}
	for _, pf := range setup.PixmapFormats {
		if pf.Depth == sc.RootDepth {
			f.bpp, f.pad = int(pf.BitsPerPixel), int(pf.ScanlinePad)
		}
	}
	if f.bpp != 16 && f.bpp != 32 {
		return f, fmt.Errorf("unsupported root pixmap format: depth %d, %d bits per pixel", sc.RootDepth, f.bpp)
	}
	for _, d := range sc.AllowedDepths {
		for _, v := range d.Visuals {
			if v.VisualId == sc.RootVisual {
				if v.Class != xproto.VisualClassTrueColor && v.Class != xproto.VisualClassDirectColor {
					return f, fmt.Errorf("unsupported root visual class %d", v.Class)
				}
				f.r, f.g, f.b = newChannel(v.RedMask), newChannel(v.GreenMask), newChannel(v.BlueMask)
				return f, nil
			}
		}
	}
	return f, errors.New("root visual not found in setup")
}

// stride is the length in bytes of one scanline of width w.
func (f pixelFormat) stride(w int) int {
	pad := max(f.pad, 8)
	return (w*f.bpp + pad - 1) / pad * pad / 8
}

// fast reports whether pixels are little-endian 32-bit 0x00RRGGBB (BGRX in memory).
func (f pixelFormat) fast() bool {
	return f.bpp == 32 && f.lsb && f.r == channel{16, 8} && f.g == channel{8, 8} && f.b == channel{0, 8} &&
		hostLittleEndian()
}

// parallelMin is the pixel count above which conversion is split across CPUs.
const parallelMin = 256 * 1024

// convert writes src (ZPixmap rows of stride bytes) into dst as opaque RGBA.
func (f pixelFormat) convert(dst *image.RGBA, src []byte, stride int) error {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	if len(src) < stride*h {
		return fmt.Errorf("convert: %d bytes for %dx%d", len(src), w, h)
	}
	rows := func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			s := src[y*stride : y*stride+w*f.bpp/8]
			d := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
			if f.fast() {
				bgrxToRGBA(d, s)
			} else {
				f.slowRow(d, s)
			}
		}
	}
	n := min(runtime.GOMAXPROCS(0), h, 8)
	if w*h < parallelMin || n < 2 {
		rows(0, h)
		return nil
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { rows(h*i/n, h*(i+1)/n) })
	}
	wg.Wait()
	return nil
}

// bgrxToRGBA converts one row of little-endian 0x00RRGGBB pixels: eight at a
// time with AVX2 (convert_amd64.s), the rest two at a time.
func bgrxToRGBA(dst, src []byte) {
	if done := bgrxFast(dst, src); done > 0 {
		dst, src = dst[4*done:], src[4*done:]
	}
	n := len(src) / 4
	if n == 0 {
		return
	}
	// Both buffers are 8-byte aligned at the start of the segment or allocation, and
	// rows are whole 4-byte pixels, so they can be read as uint32 (and as uint64 when
	// the row start is 8-byte aligned too).
	if n >= 2 && uintptr(unsafe.Pointer(&src[0]))%8 == 0 && uintptr(unsafe.Pointer(&dst[0]))%8 == 0 {
		const lo, mid, alpha = 0x000000ff000000ff, 0x0000ff000000ff00, 0xff000000ff000000
		s := unsafe.Slice((*uint64)(unsafe.Pointer(&src[0])), n/2)
		d := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), n/2)[:len(s)]
		for i, v := range s {
			d[i] = alpha | (v&lo)<<16 | v&mid | (v>>16)&lo
		}
		if n%2 == 0 {
			return
		}
		src, dst, n = src[len(src)-4:], dst[len(dst)-4:], 1
	}
	s := unsafe.Slice((*uint32)(unsafe.Pointer(&src[0])), n)
	d := unsafe.Slice((*uint32)(unsafe.Pointer(&dst[0])), n)[:len(s)]
	for i, v := range s {
		d[i] = 0xff000000 | (v&0xff)<<16 | v&0xff00 | (v>>16)&0xff
	}
}

// slowRow converts one row of any supported format using the channel masks.
func (f pixelFormat) slowRow(dst, src []byte) {
	step := f.bpp / 8
	for i, j := 0, 0; i+step <= len(src); i, j = i+step, j+4 {
		var v uint32
		switch {
		case step == 4 && f.lsb:
			v = uint32(src[i]) | uint32(src[i+1])<<8 | uint32(src[i+2])<<16 | uint32(src[i+3])<<24
		case step == 4:
			v = uint32(src[i+3]) | uint32(src[i+2])<<8 | uint32(src[i+1])<<16 | uint32(src[i])<<24
		case f.lsb:
			v = uint32(src[i]) | uint32(src[i+1])<<8
		default:
			v = uint32(src[i+1]) | uint32(src[i])<<8
		}
		dst[j], dst[j+1], dst[j+2], dst[j+3] = f.r.get(v), f.g.get(v), f.b.get(v), 0xff
	}
}

func hostLittleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
