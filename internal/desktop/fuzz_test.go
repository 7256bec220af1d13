package desktop

import (
	"image"
	"strings"
	"testing"
	"unicode"
)

// FuzzNormalizeText: text from the model either comes back with only
// printable characters, "\n" and "\t", or is refused.
func FuzzNormalizeText(f *testing.F) {
	for _, s := range []string{"Grüße, 東京 ✓", "a\r\nb\rc", "bell\a", "\xff", "tab\tend", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := normalizeText(s)
		if err != nil {
			return
		}
		if strings.Contains(out, "\r") {
			t.Fatalf("%q kept a carriage return: %q", s, out)
		}
		for _, r := range out {
			if unicode.IsControl(r) && r != '\n' && r != '\t' {
				t.Fatalf("%q let control character %U through", s, r)
			}
		}
	})
}

// FuzzVisibleParts: the parts lie inside their own window, never inside a
// window of another program stacked above it, and are disjoint per window.
func FuzzVisibleParts(f *testing.F) {
	f.Add([]byte{0, 0, 10, 10, 1, 5, 5, 20, 20, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var wins []stacked
		for ; len(b) >= 5 && len(wins) < 8; b = b[5:] {
			x, y := int(b[0]%40), int(b[1]%40)
			wins = append(wins, stacked{rect: image.Rect(x, y, x+int(b[2]%30), y+int(b[3]%30)), own: b[4]%2 == 1})
		}
		parts := visibleParts(wins)
		for _, p := range parts {
			if p.Empty() {
				t.Fatalf("empty part %v", p)
			}
		}
		for y := 0; y < 72; y++ {
			for x := 0; x < 72; x++ {
				pt := image.Pt(x, y)
				if in(pt, parts) != visibleAt(pt, wins) {
					t.Fatalf("pixel %v: in parts %v, visible %v (windows %v, parts %v)", pt, in(pt, parts), visibleAt(pt, wins), wins, parts)
				}
			}
		}
	})
}
