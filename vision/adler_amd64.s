//go:build !purego

#include "textflag.h"

// The weights of a 32-byte block's bytes in s2: 32 for the first, 1 for the last.
DATA adlerTaps<>+0(SB)/8, $0x191a1b1c1d1e1f20
DATA adlerTaps<>+8(SB)/8, $0x1112131415161718
DATA adlerTaps<>+16(SB)/8, $0x090a0b0c0d0e0f10
DATA adlerTaps<>+24(SB)/8, $0x0102030405060708
GLOBL adlerTaps<>(SB), RODATA|NOPTR, $32

DATA ones16<>+0(SB)/2, $0x0001
GLOBL ones16<>(SB), RODATA|NOPTR, $2

// func adlerBlocksAVX2(p *byte, blocks int, s *[8]uint64, w *[8]uint32)
// Over blocks 32-byte blocks: s[0:4] gets the bytes' sum (four lanes),
// s[4:8] the sum over blocks of the bytes before each block, w the bytes
// weighted 32..1 within their block (eight lanes).
TEXT ·adlerBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ s+16(FP), DI
	MOVQ w+24(FP), DX
	VMOVDQU adlerTaps<>(SB), Y7
	VPBROADCASTW ones16<>(SB), Y6
	VPXOR Y5, Y5, Y5
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2

block:
	VMOVDQU (SI), Y3
	VPADDQ Y0, Y1, Y1
	VPSADBW Y5, Y3, Y4
	VPADDQ Y4, Y0, Y0
	VPMADDUBSW Y7, Y3, Y4
	VPMADDWD Y6, Y4, Y4
	VPADDD Y4, Y2, Y2
	ADDQ $32, SI
	DECQ CX
	JNZ block

	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, (DX)
	VZEROUPPER
	RET
