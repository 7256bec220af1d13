//go:build linux

package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"
)

// metricSpec is one OSWorld metric: what it needs from its getters and options,
// and the function itself. Each reproduces OSWorld's function of the same name
// (desktop_env/evaluators/metrics) on the values eval's getters give: strings,
// file paths, rule objects, or nil where OSWorld gets None.
type metricSpec struct {
	options []string // option names it accepts
	check   func(f string, r, e *getter) error
	fn      func(result, expected any, opts map[string]any) (score float64, note string, err error)
}

// metricFor returns the metric named f; ok is false for one eval lacks.
func metricFor(f string) (metricSpec, bool) {
	rules := func(need ...string) func(string, *getter, *getter) error {
		return func(f string, _, e *getter) error { _, err := rulesObject(f, e, need...); return err }
	}
	switch f {
	case "exact_match":
		return metricSpec{check: rules("expected"), fn: exactMatch}, true
	case "check_include_exclude":
		return metricSpec{check: checkIncludeExcludeRules, fn: checkIncludeExclude}, true
	case "is_in_list":
		return metricSpec{check: rules("expected"), fn: isInList}, true
	case "match_in_list":
		return metricSpec{check: rules("expected"), fn: matchInList}, true
	case "fuzzy_match":
		return metricSpec{check: fuzzyRules, fn: fuzzyMatch}, true
	case "compare_text_file":
		return metricSpec{options: []string{"ignore_blanks", "ignore_case"}, check: textFiles, fn: compareTextFile}, true
	case "file_contains":
		return metricSpec{check: fileContainsRules, fn: fileContains}, true
	}
	return metricSpec{}, false
}

// validate checks a metric's getters and options when the task loads.
func (m metricSpec) validate(f string, r, e *getter, opts map[string]any) error {
	for k, v := range opts {
		if !slices.Contains(m.options, k) {
			return &UnsupportedError{What: "option of " + f, Name: k}
		}
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: option %s must be true or false", f, k)
		}
	}
	return m.check(f, r, e)
}

func checkIncludeExcludeRules(f string, _, e *getter) error {
	m, err := rulesObject(f, e)
	if err != nil {
		return err
	}
	for _, k := range []string{"include", "exclude"} {
		if v, ok := m[k]; ok && !stringList(v) {
			return fmt.Errorf("%s: rules.%s must be a list of strings", f, k)
		}
	}
	return nil
}

func fuzzyRules(f string, _, e *getter) error {
	m, err := rulesObject(f, e, "expected")
	if err != nil {
		return err
	}
	if _, ok := m["expected"].(string); !ok {
		return fmt.Errorf("%s: rules.expected must be a string", f)
	}
	return nil
}

func fileContainsRules(f string, r, e *getter) error {
	if r.kind != "vm_file" {
		return fmt.Errorf("%s needs a vm_file result", f)
	}
	m, err := rulesObject(f, e, "expected")
	if err != nil {
		return err
	}
	if !stringList(m["expected"]) {
		return fmt.Errorf("%s: rules.expected must be a list of strings", f)
	}
	return nil
}

// textFiles: compare_text_file opens both values as files.
func textFiles(f string, r, e *getter) error {
	if r.kind != "vm_file" || e == nil || e.kind != "vm_file" {
		return fmt.Errorf("%s needs vm_file result and expected getters", f)
	}
	return nil
}

// exactMatch: 1 when result == rules["expected"] (Python equality).
func exactMatch(result, expected any, _ map[string]any) (float64, string, error) {
	want := expected.(map[string]any)["expected"]
	if pyEqual(result, want) {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("got %s, expected %s", show(result), show(want)), nil
}

// checkIncludeExclude: 1 when every rules["include"] item is in result and no
// rules["exclude"] item is; 0 for no result.
func checkIncludeExclude(result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "no result", nil
	}
	rules := expected.(map[string]any)
	for _, k := range []string{"include", "exclude"} {
		items, _ := rules[k].([]any)
		for _, it := range items {
			in, err := pyIn(it, result)
			if err != nil {
				return 0, "", err
			}
			if in != (k == "include") {
				verb := "lacks"
				if k == "exclude" {
					verb = "contains"
				}
				return 0, fmt.Sprintf("%s %s %s", show(result), verb, show(it)), nil
			}
		}
	}
	return 1, "", nil
}

// isInList: 1 when rules["expected"] is in result.
func isInList(result, expected any, _ map[string]any) (float64, string, error) {
	want := expected.(map[string]any)["expected"]
	in, err := pyIn(want, result)
	if err != nil || in {
		return b2f(in), "", err
	}
	return 0, fmt.Sprintf("%s is not in %s", show(want), show(result)), nil
}

// matchInList: 1 when result is in rules["expected"].
func matchInList(result, expected any, _ map[string]any) (float64, string, error) {
	list := expected.(map[string]any)["expected"]
	in, err := pyIn(result, list)
	if err != nil || in {
		return b2f(in), "", err
	}
	return 0, fmt.Sprintf("%s is not in %s", show(result), show(list)), nil
}

// fuzzyMatch: rapidfuzz's fuzz.ratio(result, rules["expected"]) / 100, the
// normalized InDel similarity of the two strings' code points (0 for no result;
// two empty strings are a perfect match).
func fuzzyMatch(result, expected any, _ map[string]any) (float64, string, error) {
	want := expected.(map[string]any)["expected"].(string)
	if result == nil {
		return 0, "no result", nil
	}
	got, ok := result.(string)
	if !ok {
		return 0, "", fmt.Errorf("fuzzy_match: result is %s, not a string", pyType(result))
	}
	score, err := indelSimilarity(got, want)
	if err != nil {
		return 0, "", err
	}
	note := ""
	if score < 1 {
		note = fmt.Sprintf("similarity %.3f of %s to %s", score, show(got), show(want))
	}
	return score, note, nil
}

// maxFuzzy is the longest string (in code points) fuzzy_match compares.
const maxFuzzy = 20000

// indelSimilarity is 1 - InDel distance / (len(a) + len(b)) over code points,
// that is 2·LCS / (len(a) + len(b)); 1 when both are empty.
func indelSimilarity(a, b string) (float64, error) {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > maxFuzzy || len(rb) > maxFuzzy {
		return 0, fmt.Errorf("fuzzy_match: strings longer than %d characters", maxFuzzy)
	}
	if len(ra)+len(rb) == 0 {
		return 1, nil
	}
	if len(rb) > len(ra) {
		ra, rb = rb, ra
	}
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			if ra[i-1] == rb[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return 2 * float64(prev[len(rb)]) / float64(len(ra)+len(rb)), nil
}

// compareTextFile: 1 when the two files' text is equal, after the options
// ignore_blanks (tabs and newlines as spaces, trimmed, runs of whitespace as one
// space) and ignore_case; 0 when the result file is missing.
func compareTextFile(result, expected any, opts map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "the result file does not exist", nil
	}
	if expected == nil {
		return 0, "", errors.New("compare_text_file: the expected file does not exist")
	}
	got, err := readText(result.(string))
	if err != nil {
		return 0, "", err
	}
	want, err := readText(expected.(string))
	if err != nil {
		return 0, "", err
	}
	if opts["ignore_blanks"] == true {
		got, want = squeezeBlanks(got), squeezeBlanks(want)
	}
	if opts["ignore_case"] == true {
		got, want = pyLower(got), pyLower(want)
	}
	if got == want {
		return 1, "", nil
	}
	return 0, fmt.Sprintf("the text differs: got %s, expected %s", show(got), show(want)), nil
}

// fileContains: 1 when the result file's text contains every rules["expected"]
// string; 0 when the file is missing or unreadable (OSWorld catches that).
func fileContains(result, expected any, _ map[string]any) (float64, string, error) {
	if result == nil {
		return 0, "the result file does not exist", nil
	}
	text, err := readText(result.(string))
	if err != nil {
		return 0, err.Error(), nil
	}
	for _, w := range expected.(map[string]any)["expected"].([]any) {
		if !strings.Contains(text, w.(string)) {
			return 0, fmt.Sprintf("the file lacks %s", show(w)), nil
		}
	}
	return 1, "", nil
}

// maxTextFile is the largest file a metric reads.
const maxTextFile = 16 << 20

// readText reads a file as Python's open(path).read() does: UTF-8 (anything else
// is an error) with universal newlines ("\r\n" and "\r" read as "\n").
func readText(path string) (string, error) {
	data, err := readLimited(path, maxTextFile)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%s is not UTF-8 text", path)
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n"), nil
}

// squeezeBlanks is compare_text_file's ignore_blanks: re.sub(r'[\t\n]', ' ', s)
// .strip(), then re.sub(r'\s+', ' ', s).
func squeezeBlanks(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimFunc(s, pyIsSpace)
	var b strings.Builder
	space := false
	for _, r := range s {
		if pyIsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// pyEqual is Python's == on values decoded from JSON or given by getters:
// numbers compare by value (1 == 1.0), True == 1, lists and objects deeply.
func pyEqual(a, b any) bool {
	if x, ok := pyNumber(a); ok {
		y, ok := pyNumber(b)
		return ok && x.Cmp(y) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, pyEqual)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !pyEqual(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// pyNumber returns a JSON number or a bool (Python's bool is an int) as a rational.
func pyNumber(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case bool:
		return big.NewRat(int64(b2f(x)), 1), true
	case json.Number:
		r, ok := new(big.Rat).SetString(string(x))
		return r, ok
	}
	return nil, false
}

// pyIn is Python's `item in container`: a substring test for strings, membership
// for lists, a key test for objects; a TypeError (here an error) otherwise.
func pyIn(item, container any) (bool, error) {
	switch c := container.(type) {
	case string:
		s, ok := item.(string)
		if !ok {
			return false, fmt.Errorf("'in <string>' requires string as left operand, not %s", pyType(item))
		}
		return strings.Contains(c, s), nil
	case []any:
		return slices.ContainsFunc(c, func(x any) bool { return pyEqual(item, x) }), nil
	case map[string]any:
		switch k := item.(type) {
		case string:
			_, ok := c[k]
			return ok, nil
		case []any, map[string]any:
			return false, fmt.Errorf("unhashable type: '%s'", pyType(item))
		}
		return false, nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", pyType(container))
}

// pyType names a value's Python type, for error messages.
func pyType(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case string:
		return "str"
	case bool:
		return "bool"
	case json.Number:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

// show renders a value for a check's note, shortened.
func show(v any) string {
	if v == nil {
		return "None"
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return cut(string(data), 200)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
