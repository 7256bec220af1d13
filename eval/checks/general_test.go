package checks

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rulesOf decodes a rules object as a rule getter gives it.
func rulesOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := decodeJSON([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMetrics checks each metric against what OSWorld's Python function returns
// for the same values (None is nil).
func TestMetrics(t *testing.T) {
	tests := []struct {
		name    string
		metric  string
		result  any
		rules   string
		want    float64
		wantErr string
	}{
		{"exact equal", "exact_match", "100\n", `{"expected": "100\n"}`, 1, ""},
		{"exact differs", "exact_match", "100", `{"expected": "100\n"}`, 0, ""},
		{"exact None", "exact_match", nil, `{"expected": ""}`, 0, ""},
		{"exact string is not a number", "exact_match", "1", `{"expected": 1}`, 0, ""},
		{"exact numbers by value", "exact_match", json.Number("1"), `{"expected": 1.0}`, 1, ""},
		{"exact True == 1", "exact_match", true, `{"expected": 1}`, 1, ""},
		{"exact lists", "exact_match", []any{"a", json.Number("2")}, `{"expected": ["a", 2.0]}`, 1, ""},
		{"exact objects", "exact_match", map[string]any{"a": "b"}, `{"expected": {"a": "b"}}`, 1, ""},
		{"include all", "check_include_exclude", "43 132\n", `{"include": ["43 132"], "exclude": []}`, 1, ""},
		{"include missing", "check_include_exclude", "43 131\n", `{"include": ["43 132"]}`, 0, ""},
		{"exclude present", "check_include_exclude", "final.txt draft.txt", `{"include": ["final.txt"], "exclude": ["draft.txt"]}`, 0, ""},
		{"no rules", "check_include_exclude", "x", `{}`, 1, ""},
		{"include None", "check_include_exclude", nil, `{"include": []}`, 0, ""},
		{"include in a list", "check_include_exclude", []any{"a", "b"}, `{"include": ["a"], "exclude": ["c"]}`, 1, ""},
		{"include substring of list item", "check_include_exclude", []any{"abc"}, `{"include": ["a"]}`, 0, ""},
		{"is_in_list substring", "is_in_list", "a.txt final.txt", `{"expected": "final.txt"}`, 1, ""},
		{"is_in_list member", "is_in_list", []any{"x", "y"}, `{"expected": "y"}`, 1, ""},
		{"is_in_list absent", "is_in_list", "draft.txt", `{"expected": "final.txt"}`, 0, ""},
		{"is_in_list None", "is_in_list", nil, `{"expected": "x"}`, 0, "argument of type 'NoneType' is not iterable"},
		{"is_in_list number in string", "is_in_list", "12", `{"expected": 1}`, 0, "requires string as left operand"},
		{"match_in_list member", "match_in_list", "b", `{"expected": ["a", "b"]}`, 1, ""},
		{"match_in_list absent", "match_in_list", "the folder b", `{"expected": ["a", "b"]}`, 0, ""},
		{"match_in_list substring of string", "match_in_list", "b", `{"expected": "abc"}`, 1, ""},
		{"fuzzy equal", "fuzzy_match", "A-7391", `{"expected": "A-7391"}`, 1, ""},
		// rapidfuzz's documented examples: fuzz.ratio = 96.55171966552734 and 90.9090909090909.
		{"fuzzy rapidfuzz doc 1", "fuzzy_match", "this is a test", `{"expected": "this is a test!"}`, 0.9655172413793104, ""},
		{"fuzzy rapidfuzz doc 2", "fuzzy_match", "fuzzy wuzzy was a bear", `{"expected": "wuzzy fuzzy was a bear"}`, 0.9090909090909091, ""},
		{"fuzzy code points", "fuzzy_match", "ü", `{"expected": "u"}`, 0, ""},
		{"fuzzy both empty", "fuzzy_match", "", `{"expected": ""}`, 1, ""},
		{"fuzzy one empty", "fuzzy_match", "", `{"expected": "abc"}`, 0, ""},
		{"fuzzy None", "fuzzy_match", nil, `{"expected": "abc"}`, 0, ""},
		{"fuzzy too long", "fuzzy_match", strings.Repeat("a", maxFuzzy+1), `{"expected": "a"}`, 0, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, ok := Lookup(tt.metric)
			if !ok {
				t.Fatalf("no metric %s", tt.metric)
			}
			s, err := spec.Fn(t.Context(), Call{Result: tt.result, Expected: rulesOf(t, tt.rules)})
			got := s.Value
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("%s = %v, %v; want %v", tt.metric, got, err, tt.want)
			}
		})
	}
}

func TestTextFileMetrics(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gold := file("gold.txt", "Hello World\nsecond line\n")
	tests := []struct {
		name, metric string
		result       any
		expected     any
		opts         map[string]any
		want         float64
		wantErr      string
	}{
		{"same", "compare_text_file", file("a", "Hello World\nsecond line\n"), gold, nil, 1, ""},
		{"CRLF reads as LF", "compare_text_file", file("b", "Hello World\r\nsecond line\r\n"), gold, nil, 1, ""},
		{"lone CR reads as LF", "compare_text_file", file("c", "Hello World\rsecond line\r"), gold, nil, 1, ""},
		{"no final newline", "compare_text_file", file("d", "Hello World\nsecond line"), gold, nil, 0, ""},
		{"no final newline, ignore blanks", "compare_text_file", file("e", "Hello World\nsecond line"), gold, map[string]any{"ignore_blanks": true}, 1, ""},
		{"runs of blanks", "compare_text_file", file("f", "  Hello \t World\n\n second   line "), gold, map[string]any{"ignore_blanks": true}, 1, ""},
		{"case", "compare_text_file", file("g", "hello world\nSECOND LINE\n"), gold, map[string]any{"ignore_case": true}, 1, ""},
		{"case not ignored", "compare_text_file", file("h", "hello world\nsecond line\n"), gold, nil, 0, ""},
		{"missing result", "compare_text_file", nil, gold, nil, 0, ""},
		{"not UTF-8", "compare_text_file", file("i", "Hello \xff"), gold, nil, 0, "not UTF-8"},
		{"contains all", "file_contains", file("j", "a color scheme\nPick a color\n"), rulesOf(t, `{"expected": ["color scheme", "Pick a color"]}`), nil, 1, ""},
		{"contains not all", "file_contains", file("k", "a colour scheme\n"), rulesOf(t, `{"expected": ["color"]}`), nil, 0, ""},
		{"contains, missing file", "file_contains", nil, rulesOf(t, `{"expected": ["x"]}`), nil, 0, ""},
		{"contains, unreadable file", "file_contains", filepath.Join(dir, "nope"), rulesOf(t, `{"expected": ["x"]}`), nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec, _ := Lookup(tt.metric)
			s, err := spec.Fn(t.Context(), Call{Result: tt.result, Expected: tt.expected, Options: tt.opts})
			got := s.Value
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("%s = %v, %v; want %v", tt.metric, got, err, tt.want)
			}
		})
	}
}

func TestSqueezeBlanks(t *testing.T) {
	// compare_text_file's ignore_blanks in Python 3.11.
	tests := []struct{ in, want string }{
		{"  a \t b\n\nc  ", "a b c"},
		{"a\u00a0\u00a0b", "a b"},
		{"\u3000a\u3000", "a"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := squeezeBlanks(tt.in); got != tt.want {
			t.Errorf("squeezeBlanks(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
