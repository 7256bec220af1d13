package checks

import (
	"path/filepath"
	"testing"
)

// TestCompareHTMLs compares Calc's HTML export of a sheet (as in
// multi_apps/e135df7c) and a hand-written page with misnested tags against
// near misses of them (testdata/make.sh). Each want is what OSWorld's
// compare_htmls gave on the same files with BeautifulSoup 4.11.2 and lxml
// 4.9.2 (libxml2 2.9.14).
func TestCompareHTMLs(t *testing.T) {
	tests := []struct {
		result, expected string
		want             float64
	}{
		{"html-gold.html", "html-gold.html", 1},
		{"html-offbyone.html", "html-gold.html", 0},
		{"html-align.html", "html-gold.html", 0},
		{"html-class1.html", "html-gold.html", 0},
		{"html-class1.html", "html-class2.html", 1},
		{"html-space.html", "html-gold.html", 0},
		{"html-more.html", "html-gold.html", 0},
		{"html-gold.html", "html-more.html", 0},
		{"html-title.html", "html-gold.html", 0},
		{"html-comment.html", "html-gold.html", 0},
		{"html-endp.html", "html-gold.html", 1},
		{"html-tail.html", "html-gold.html", 1},
		{"html-gold.html", "html-tail.html", 1},
		{"html-messy2.html", "html-messy.html", 0},
		{"html-messy3.html", "html-messy.html", 1},
		{"html-messy4.html", "html-messy.html", 0},
		{"html-messy.html", "html-messy.html", 1},
	}
	m, _ := Lookup("compare_htmls")
	for _, tt := range tests {
		t.Run(tt.result+"/"+tt.expected, func(t *testing.T) {
			s, err := m.Fn(t.Context(), Call{Result: filepath.Join("testdata", tt.result), Expected: filepath.Join("testdata", tt.expected)})
			if err != nil || s.Value != tt.want {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, tt.want)
			}
		})
	}
	if _, err := m.Fn(t.Context(), Call{Result: filepath.Join("testdata", "html-none.html"), Expected: filepath.Join("testdata", "html-gold.html")}); err == nil {
		t.Error("a missing file gave no error")
	}
	if _, err := m.Fn(t.Context(), Call{Result: nil, Expected: filepath.Join("testdata", "html-gold.html")}); err == nil {
		t.Error("None gave no error")
	}
}
