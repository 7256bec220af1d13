//go:build !purego

package vision

// adlerBlocksAVX2 sums blocks (at least one) 32-byte blocks from p; see
// adler_amd64.s for what s and w receive.
//
//go:noescape
func adlerBlocksAVX2(p *byte, blocks int, s *[8]uint64, w *[8]uint32)

// adlerFast folds the whole 32-byte blocks at the start of p into the
// Adler-32 sums s1 and s2 (reduced) with AVX2 when the CPU has it, and
// returns the bytes left for the portable code.
func adlerFast(s1, s2 uint64, p []byte) (uint64, uint64, []byte) {
	const mod = 65521
	for hasAVX2 && len(p) >= 32 {
		// 2^15 blocks keep the weighted lanes below 2^31.
		n := min(len(p)/32, 1<<15)
		var s [8]uint64
		var w [8]uint32
		adlerBlocksAVX2(&p[0], n, &s, &w)
		sum := s[0] + s[1] + s[2] + s[3]
		weighted := 32 * (s[4] + s[5] + s[6] + s[7])
		for _, x := range w {
			weighted += uint64(x)
		}
		s2 = (s2 + s1*uint64(32*n) + weighted) % mod
		s1 = (s1 + sum) % mod
		p = p[32*n:]
	}
	return s1, s2, p
}
