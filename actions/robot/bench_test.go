//go:build linux

package robot

import (
	"strings"
	"testing"

	"deskpilot/actions"
)

// BenchmarkClick clicks the target's canvas, alternating between two points
// so every click includes a real pointer motion. One op is one Click call
// (motion, press, release, round trip).
func BenchmarkClick(b *testing.B) {
	tg := startTarget(b)
	points := []actions.Point{tg.at("canvas", 100, 100), tg.at("canvas", 600, 250)}
	ctx := b.Context()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := tg.r.Click(ctx, points[i%2], actions.Left, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkType100 types 100 ASCII characters (letters, digits, shifted
// punctuation) into the target's text box per op.
func BenchmarkType100(b *testing.B) {
	benchmarkType(b, strings.Repeat("Hello, World! 0123456789 ", 4))
}

// BenchmarkType100Unicode types 100 characters of which a third are outside
// the keymap (borrowed keycodes, mapped on the first op and kept).
func BenchmarkType100Unicode(b *testing.B) {
	text := strings.Repeat("Grüße, 東京 ✓ ", 8)[:0]
	for len([]rune(text)) < 100 {
		text += "Grüße, 東京 ✓ "
	}
	benchmarkType(b, string([]rune(text)[:100]))
}

func benchmarkType(b *testing.B, text string) {
	tg := startTarget(b)
	p := tg.center("text")
	if err := tg.r.Click(b.Context(), p, actions.Left, 1); err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	b.ResetTimer()
	for b.Loop() {
		if err := tg.r.Type(ctx, text); err != nil {
			b.Fatal(err)
		}
	}
}
