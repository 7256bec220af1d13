//go:build !purego

#include "textflag.h"

// Bytes b g r x of each pixel to r g b, the fourth left zero for the alpha.
DATA bgrx<>+0(SB)/8, $0x8004050680000102
DATA bgrx<>+8(SB)/8, $0x800c0d0e8008090a
DATA bgrx<>+16(SB)/8, $0x8004050680000102
DATA bgrx<>+24(SB)/8, $0x800c0d0e8008090a
GLOBL bgrx<>(SB), RODATA|NOPTR, $32

DATA opaque<>+0(SB)/4, $0xff000000
GLOBL opaque<>(SB), RODATA|NOPTR, $4

// func bgrxAVX2(dst, src *byte, pixels int)
// pixels is a positive multiple of 8.
TEXT ·bgrxAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ pixels+16(FP), CX
	VMOVDQU bgrx<>(SB), Y7
	VPBROADCASTD opaque<>(SB), Y6

loop:
	VMOVDQU (SI), Y0
	VPSHUFB Y7, Y0, Y0
	VPOR Y6, Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ loop

	VZEROUPPER
	RET
