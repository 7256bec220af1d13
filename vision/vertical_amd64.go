//go:build !purego

package vision

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// verticalAVX2 is vertical for the first pixels pixels (a positive multiple
// of 8) of every row, eight pixels a step in 16-bit lanes of 256-bit
// registers: the same sums, rounding and lane order as the portable code,
// so the results are identical bit for bit.
//
//go:noescape
func verticalAVX2(lanes *uint64, rows **byte, ws *uint64, taps int, pixels int)

// hasAVX2 is whether this CPU runs verticalAVX2 (decided once at start).
var hasAVX2 = cpu.X86.HasAVX2

// verticalFast blends the first pixels of rows with ws into lanes with AVX2
// when the CPU has it, and returns how many pixels it did (0: none; the
// portable code does the rest). ptrs is scratch space for the row pointers.
func verticalFast(lanes []uint64, rows [][]byte, ws []uint64, ptrs []*byte) int {
	n := min(len(lanes), len(rows[0])/4) &^ 7
	if !hasAVX2 || n == 0 || len(rows) > len(ptrs) {
		return 0
	}
	for t, r := range rows {
		if len(r) < 4*n {
			return 0
		}
		ptrs[t] = unsafe.SliceData(r)
	}
	verticalAVX2(unsafe.SliceData(lanes), unsafe.SliceData(ptrs), unsafe.SliceData(ws), len(rows), n)
	return n
}

// horizontalAVX2 is horizontal for the first pixels output pixels (a
// positive multiple of 4): wv holds each tap's weights for every output
// pixel, tap t's at [t*stride:], replicated in the four 16-bit lanes.
//
//go:noescape
func horizontalAVX2(out *byte, lanes *uint64, first *int, wv *uint64, taps int, stride int, pixels int)

// horizontalFast filters the first output pixels of one row with AVX2 when
// the CPU has it and wv is set, and returns how many it did (0: none).
func horizontalFast(out []byte, lanes []uint64, t *taps) int {
	n := len(t.first) &^ 3
	if !hasAVX2 || n == 0 || len(t.wv) != t.n*len(t.first) || len(out) < 4*n {
		return 0
	}
	horizontalAVX2(unsafe.SliceData(out), unsafe.SliceData(lanes), unsafe.SliceData(t.first),
		unsafe.SliceData(t.wv), t.n, len(t.first), n)
	return n
}

// setAVX2 turns the AVX2 passes on or off (tests comparing them with the
// portable code); on only where the CPU has AVX2.
func setAVX2(on bool) { hasAVX2 = on && cpu.X86.HasAVX2 }
