//go:build !purego

package screen

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// bgrxAVX2 converts pixels (a positive multiple of 8) BGRX pixels to
// opaque RGBA, eight a step.
//
//go:noescape
func bgrxAVX2(dst, src *byte, pixels int)

// bgrxFast converts the first pixels of a row with AVX2 when the CPU has it
// and returns how many it did (0: none).
func bgrxFast(dst, src []byte) int {
	n := min(len(src), len(dst)) / 4 &^ 7
	if !cpu.X86.HasAVX2 || n == 0 {
		return 0
	}
	bgrxAVX2(unsafe.SliceData(dst), unsafe.SliceData(src), n)
	return n
}
