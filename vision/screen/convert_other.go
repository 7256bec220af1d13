//go:build !amd64 || purego

package screen

// bgrxFast does nothing here: the portable code converts every pixel.
func bgrxFast(dst, src []byte) int { return 0 }
