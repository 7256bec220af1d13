//go:build !amd64 || purego

package vision

// hasAVX2 is false where there is no assembly for it.
const hasAVX2 = false

// verticalFast does nothing here: the portable code does every pixel.
func verticalFast(lanes []uint64, rows [][]byte, ws []uint64, ptrs []*byte) int { return 0 }

// horizontalFast does nothing here: the portable code does every pixel.
func horizontalFast(out []byte, lanes []uint64, t *taps) int { return 0 }

// setAVX2 does nothing here.
func setAVX2(bool) {}

// adlerFast does nothing here: the portable code sums every byte.
func adlerFast(s1, s2 uint64, p []byte) (uint64, uint64, []byte) { return s1, s2, p }
