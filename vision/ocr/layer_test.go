package ocr

import (
	"fmt"
	"image"
	"strings"
	"testing"
)

func TestLayer(t *testing.T) {
	screen := textOf("File Edit View", "OK", "|| ~~ --", strings.Repeat("lorem ipsum dolor sit amet ", 8))
	screen.Lines[1].Conf = 0.3 // "OK" read badly

	got := screen.Layer(LayerOptions{})
	want := "(66,10) File Edit View\n" +
		"(870,70) " + strings.Repeat("lorem ipsum dolor sit amet ", 6)[:160] + "…\n" +
		"[2 unreadable lines left out]\n"
	if got != want {
		t.Errorf("Layer() =\n%s\nwant\n%s", got, want)
	}

	pos := LayerOptions{Position: func(p image.Point) string { return fmt.Sprintf("%d,%d", p.X*1000/2000, p.Y*1000/100) }}
	if got := screen.Layer(pos); !strings.HasPrefix(got, "(33,100) File Edit View\n") {
		t.Errorf("Position not applied: %q", got)
	}
	if got := (&Text{}).Layer(LayerOptions{}); got != "" {
		t.Errorf("empty screen: %q", got)
	}
}

// Over budget, short confident lines (labels, buttons) are kept before long
// ones, the kept lines stay in reading order, and a note says what was cut.
func TestLayerBudget(t *testing.T) {
	var rows []string
	for i := range 40 {
		rows = append(rows, fmt.Sprintf("row %d %s", i, strings.Repeat("words ", 12)))
	}
	rows = append(rows, "Save", "Cancel")
	screen := textOf(rows...)
	got := screen.Layer(LayerOptions{MaxChars: 600})
	if len(got) > 600 {
		t.Errorf("layer is %d bytes, budget 600", len(got))
	}
	for _, label := range []string{") Save\n", ") Cancel\n"} {
		if !strings.Contains(got, label) {
			t.Errorf("short label %q cut:\n%s", label, got)
		}
	}
	if !strings.Contains(got, "more lines not shown: over the 600-character budget]") {
		t.Errorf("no note about the cut:\n%s", got)
	}
	if i, j := strings.Index(got, ") row "), strings.Index(got, ") Save"); i < 0 || i > j {
		t.Errorf("not in reading order:\n%s", got)
	}
}
