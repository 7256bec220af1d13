package script

import (
	"testing"

	"deskpilot/vision"
)

// BenchmarkExecSmallBlock measures parse + run of a typical 5-line block
// with 3 clicks on a fake Input (the executor's own overhead per step).
func BenchmarkExecSmallBlock(b *testing.B) {
	const code = `for (x, y) in [(100, 200), (300, 400)]:
    click(x, y)
press("ctrl+s")
click(500, 300, button="right")
print("done")
`
	e := New(Options{}, Desktop(DesktopDeps{Mapper: vision.NewMapper(testDisplay, 960, ""), Input: &discardInput{}})...)
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		if res := e.Exec(ctx, code); res.Err != nil {
			b.Fatal(res.Err.Msg)
		}
	}
}

// BenchmarkExecWithHelpers is the same block after earlier blocks defined
// five helper functions, which every block defines afresh.
func BenchmarkExecWithHelpers(b *testing.B) {
	e := New(Options{}, Desktop(DesktopDeps{Mapper: vision.NewMapper(testDisplay, 960, ""), Input: &discardInput{}})...)
	ctx := b.Context()
	for i := range 5 {
		src := "def helper" + string(rune('a'+i)) + "(x, y):\n    click(x, y)\n    return x + y\n"
		if res := e.Exec(ctx, src); res.Err != nil {
			b.Fatal(res.Err.Msg)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if res := e.Exec(ctx, "helpera(1, 2)\nhelperb(3, 4)\nclick(5, 6)\n"); res.Err != nil {
			b.Fatal(res.Err.Msg)
		}
	}
}
