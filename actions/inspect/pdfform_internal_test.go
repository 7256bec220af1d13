package inspect

import (
	"strings"
	"testing"
)

// TestMergeFields: a form value goes where its widget is unless the page
// already shows it there; shown in part, the part gives way to the whole; a
// check box's own glyph gives way to its mark; a widget without a place is
// returned for the list after the page.
func TestMergeFields(t *testing.T) {
	label := box{left: 72, right: 120, top: 712, bottom: 700, text: "Name:"}
	rect := box{left: 130, right: 300, top: 714, bottom: 698}
	in := func(s string) box { return box{left: 132, right: 200, top: 712, bottom: 700, text: s} }
	cases := []struct {
		name     string
		boxes    []box
		field    formField
		want     string // the page's text
		unplaced int
	}{
		{"not drawn", []box{label}, formField{value: "Alice", rect: rect, place: true}, "Name: Alice", 0},
		{"drawn by its appearance", []box{label, in("Alice")}, formField{value: "Alice", rect: rect, place: true}, "Name: Alice", 0},
		{"drawn spaced out (a comb field)", []box{label, in("A l i c e")}, formField{value: "Alice", rect: rect, place: true}, "Name: A l i c e", 0},
		{"drawn in part (a field that scrolls)", []box{label, in("Alice Lidd")}, formField{value: "Alice Liddell", rect: rect, place: true}, "Name: Alice Liddell", 0},
		{"other text in the widget (near miss)", []box{label, in("Bob")}, formField{value: "Alice", rect: rect, place: true}, "Name: Alice Bob", 0},
		{"check box glyph replaced", []box{{left: 60, right: 70, top: 712, bottom: 700, text: "4"}, {left: 75, right: 120, top: 712, bottom: 700, text: "Agree"}},
			formField{value: "☑", mark: true, rect: box{left: 58, right: 72, top: 714, bottom: 698}, place: true}, "☑ Agree", 0},
		{"no place", []box{label}, formField{name: "Reference", value: "4711"}, "Name:", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			boxes, unplaced := mergeFields(c.boxes, []formField{c.field})
			if got := layoutPage(boxes); got != c.want || len(unplaced) != c.unplaced {
				t.Errorf("text %q, %d unplaced; want %q, %d", got, len(unplaced), c.want, c.unplaced)
			}
		})
	}
	if got := formSection([]formField{{name: "Reference", value: "47\n11"}, {value: "x"}}); got != "Form fields:\nReference: 47 11\n(unnamed): x" {
		t.Errorf("form section %q", got)
	}
}

// TestDASize: the text size of a default appearance string.
func TestDASize(t *testing.T) {
	for da, want := range map[string]float64{
		"/Helv 12 Tf 0 g": 12, "0 g /F3 9.5 Tf": 9.5, "/Helv 0 Tf 0 g": 0, "": 0, "Tf": 0, "/F1 x Tf": 0, "/F1 1e9 Tf": 0,
	} {
		if got := daSize(da); got != want {
			t.Errorf("daSize(%q) = %v, want %v", da, got, want)
		}
	}
	if f := fieldBoxes(formField{value: "a\nb", multi: true, size: 10, rect: box{left: 0, right: 100, top: 100, bottom: 50}}); len(f) != 2 || f[0].top != 100 || f[1].top >= f[0].bottom+0.01 || !strings.Contains(f[1].text, "b") {
		t.Errorf("multi-line boxes %+v", f)
	}
}
