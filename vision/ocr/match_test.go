package ocr

import (
	"image"
	"strings"
	"testing"
	"unicode/utf8"
)

// textOf builds a Text from rows of words: each row is a line at y = 20*row,
// each word 8 px per rune wide with a 8 px space, confidence 0.9.
func textOf(rows ...string) *Text {
	t := &Text{Bounds: image.Rect(0, 0, 2000, 20*len(rows)+20)}
	for i, row := range rows {
		var words []Word
		x := 10
		for _, w := range strings.Fields(row) {
			n := utf8.RuneCountInString(w)
			words = append(words, Word{Text: w, Box: image.Rect(x, 20*i+4, x+8*n, 20*i+16), Conf: 0.9})
			x += 8*n + 8
		}
		if len(words) > 0 {
			t.Lines = append(t.Lines, newLine(words))
		}
	}
	return t
}

func TestFind(t *testing.T) {
	screen := textOf(
		"(Alpha) (Bravo) (Charlie)",
		"File Edit View Bookmarks",
		"Save As... SaveAs",
		"Cance1 0K",
		"rnodern Preferenoes",
		"Settlngs Saved [Save]",
	)
	tests := []struct {
		name  string
		query string
		exact bool
		want  []string // matched texts, best first
		score float64  // score of the first match
	}{
		{"word in parentheses", "Charlie", false, []string{"Charlie"}, scoreWhole},
		{"case and spaces", "  charlie ", false, []string{"Charlie"}, scoreWhole},
		{"phrase across words", "save as", false, []string{"Save As", "SaveAs"}, scoreWhole},
		{"part of a word", "Char", false, []string{"Char"}, scorePart},
		{"whole word before part", "ok", false, []string{"0K", "ok"}, scoreLookWhole},
		{"look-alike l/1", "Cancel", false, []string{"Cance1"}, scoreLookWhole},
		{"look-alike rn/m", "modern", false, []string{"rnodern"}, scoreLookWhole},
		{"look-alike i/l", "Settings", false, []string{"Settlngs"}, scoreLookWhole},
		{"fuzzy edit", "Preferences", false, []string{"Preferenoes"}, 0.7},
		{"nothing", "Zebra", false, nil, 0},
		{"short queries are not fuzzy", "Xyz", false, nil, 0},
		{"blank query", " \t", false, nil, 0},
		{"exact whole words", "Save", true, []string{"Save", "Save"}, scoreWhole},
		{"exact is case-sensitive", "save", true, nil, 0},
		{"exact phrase", "Save As...", true, []string{"Save As..."}, scoreWhole},
		{"exact collapses spaces", "Edit   View", true, []string{"Edit View"}, scoreWhole},
		{"exact not inside a word", "Book", true, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := screen.Find(tt.query, tt.exact)
			var texts []string
			for _, m := range got {
				texts = append(texts, m.Text)
			}
			if strings.Join(texts, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("Find(%q, %v) = %q, want %q", tt.query, tt.exact, texts, tt.want)
			}
			if len(got) > 0 && got[0].Score != tt.score {
				t.Errorf("score %v, want %v", got[0].Score, tt.score)
			}
		})
	}
}

func TestFindBox(t *testing.T) {
	screen := textOf("(Alpha) (Bravo) (Charlie)", "Save As now")
	tests := []struct {
		name  string
		query string
		want  image.Rectangle
	}{
		// "(Charlie)" spans x 138..210 (9 runes); "Charlie" is runes 1..8.
		{"inside parentheses", "charlie", image.Rect(146, 4, 202, 16)},
		{"two words", "save as", image.Rect(10, 24, 66, 36)},
		{"start of a word", "Alp", image.Rect(18, 4, 42, 16)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := screen.Find(tt.query, false)
			if len(got) == 0 {
				t.Fatalf("Find(%q) found nothing", tt.query)
			}
			if got[0].Box != tt.want {
				t.Errorf("box %v, want %v", got[0].Box, tt.want)
			}
			if c := got[0].Center(); !c.In(got[0].Box) {
				t.Errorf("centre %v outside %v", c, got[0].Box)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	screen := textOf("Alpha Bravo", "Charlie Delta", "Echo")
	got := screen.Closest("Charly", 2)
	if len(got) != 2 {
		t.Fatalf("Closest = %v, want 2 places", got)
	}
	if got[0].Text != "Charlie" || got[0].Line != "Charlie Delta" {
		t.Errorf("closest = %q on %q, want Charlie on Charlie Delta", got[0].Text, got[0].Line)
	}
	if got[0].Score <= got[1].Score {
		t.Errorf("not best first: %v", got)
	}
	if got := screen.Closest("", 3); got != nil {
		t.Errorf("Closest of nothing = %v", got)
	}
}

func FuzzFind(f *testing.F) {
	f.Add("Charlie", "(Alpha) (Bravo) (Charlie)", false)
	f.Add("save as", "Save As... SaveAs", false)
	f.Add("rn", "rnrnrn m", false)
	f.Add("ﬁle", "file ﬁle", true)
	f.Add("\xff\xfe", "a\xffb", false)
	f.Fuzz(func(t *testing.T, query, line string, exact bool) {
		screen := textOf(line)
		for _, m := range screen.Find(query, exact) {
			checkMatch(t, screen, m, MinScore)
		}
		for _, m := range screen.Closest(query, 3) {
			checkMatch(t, screen, m, 0)
		}
	})
}

func checkMatch(t *testing.T, screen *Text, m Match, minScore float64) {
	t.Helper()
	if m.Score < minScore || m.Score > 1 {
		t.Fatalf("score %v out of [%v, 1]", m.Score, minScore)
	}
	if len(screen.Lines) == 0 {
		t.Fatalf("match %+v on an empty screen", m)
	}
	if !m.Box.In(screen.Lines[0].Box) || m.Box.Empty() {
		t.Fatalf("box %v not inside the line %v", m.Box, screen.Lines[0].Box)
	}
}
