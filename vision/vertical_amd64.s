//go:build !purego

#include "textflag.h"

// Swaps the 16-bit words g and b of each pixel: r g b a -> r b g a, the
// lane order of the scaler (see vertical in downscale.go).
DATA rbga<>+0(SB)/8, $0x0706030205040100
DATA rbga<>+8(SB)/8, $0x0f0e0b0a0d0c0908
DATA rbga<>+16(SB)/8, $0x0706030205040100
DATA rbga<>+24(SB)/8, $0x0f0e0b0a0d0c0908
GLOBL rbga<>(SB), RODATA|NOPTR, $32

DATA half<>+0(SB)/2, $0x0080
GLOBL half<>(SB), RODATA|NOPTR, $2

// func verticalAVX2(lanes *uint64, rows **byte, ws *uint64, taps int, pixels int)
// pixels is a positive multiple of 8.
TEXT ·verticalAVX2(SB), NOSPLIT, $0-40
	MOVQ lanes+0(FP), DI
	MOVQ rows+8(FP), R8
	MOVQ ws+16(FP), R9
	MOVQ taps+24(FP), R10
	MOVQ pixels+32(FP), CX
	VMOVDQU rbga<>(SB), Y7
	VPBROADCASTW half<>(SB), Y6
	XORQ AX, AX // byte offset in the source rows: 4 a pixel

pixel8:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	XORQ R11, R11

tap:
	MOVQ (R8)(R11*8), SI
	VPBROADCASTW (R9)(R11*8), Y5
	VPMOVZXBW (SI)(AX*1), Y2
	VPMOVZXBW 16(SI)(AX*1), Y3
	VPMULLW Y5, Y2, Y2
	VPMULLW Y5, Y3, Y3
	VPADDW Y2, Y0, Y0
	VPADDW Y3, Y1, Y1
	INCQ R11
	CMPQ R11, R10
	JLT tap

	VPADDW Y6, Y0, Y0
	VPADDW Y6, Y1, Y1
	VPSRLW $8, Y0, Y0
	VPSRLW $8, Y1, Y1
	VPSHUFB Y7, Y0, Y0
	VPSHUFB Y7, Y1, Y1
	VMOVDQU Y0, (DI)(AX*2)
	VMOVDQU Y1, 32(DI)(AX*2)
	ADDQ $32, AX
	SUBQ $8, CX
	JNZ pixel8

	VZEROUPPER
	RET

// Picks bytes r, g, b, a (the low bytes of words 0, 2, 1, 3) of each pixel's
// lanes into 4 bytes: two pixels to the low 8 bytes of each 128-bit half.
DATA rgba<>+0(SB)/8, $0x0e0a0c0806020400
DATA rgba<>+8(SB)/8, $0x8080808080808080
DATA rgba<>+16(SB)/8, $0x0e0a0c0806020400
DATA rgba<>+24(SB)/8, $0x8080808080808080
GLOBL rgba<>(SB), RODATA|NOPTR, $32

// func horizontalAVX2(out *byte, lanes *uint64, first *int, wv *uint64, taps int, stride int, pixels int)
// For four output pixels a step: gathers lanes[first[j]+t] for each tap t,
// multiplies by the weights wv[t*stride+j] (replicated in each 16-bit lane),
// sums, rounds and packs to RGBA. pixels is a positive multiple of 4.
TEXT ·horizontalAVX2(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ lanes+8(FP), SI
	MOVQ first+16(FP), R8
	MOVQ wv+24(FP), R9
	MOVQ taps+32(FP), R10
	MOVQ stride+40(FP), R12
	SHLQ $3, R12 // bytes between taps' weights
	MOVQ pixels+48(FP), CX
	VMOVDQU rgba<>(SB), Y7
	VPBROADCASTW half<>(SB), Y6

pixel4:
	VMOVDQU (R8), Y1 // first[j..j+3]
	VPXOR Y0, Y0, Y0
	MOVQ SI, R13 // lanes + t
	MOVQ R9, R14 // wv + t*stride + j
	MOVQ R10, R11

tapH:
	VPCMPEQQ Y4, Y4, Y4
	VPGATHERQQ Y4, (R13)(Y1*8), Y2
	VMOVDQU (R14), Y3
	VPMULLW Y3, Y2, Y2
	VPADDW Y2, Y0, Y0
	ADDQ $8, R13
	ADDQ R12, R14
	DECQ R11
	JNZ tapH

	VPADDW Y6, Y0, Y0
	VPSRLW $8, Y0, Y0
	VPSHUFB Y7, Y0, Y0
	VPERMQ $0x08, Y0, Y0
	VMOVDQU X0, (DI)
	ADDQ $16, DI
	ADDQ $32, R8
	ADDQ $32, R9
	SUBQ $4, CX
	JNZ pixel4

	VZEROUPPER
	RET
