package checks

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// fileMetrics are OSWorld's metrics over text, JSON and CSV files.
func fileMetrics() map[string]Metric {
	return map[string]Metric{
		"compare_text_file":      {Fn: compareTextFile, Options: []string{"ignore_blanks", "ignore_case"}, Kwargs: true, Check: filePair},
		"compare_config":         {Fn: compareConfig, Kwargs: true, Check: rulesWith("expected")},
		"compare_answer":         {Fn: compareAnswer, Kwargs: true, Check: rulesWith("expected")},
		"compare_result_files":   {Fn: compareResultFiles},
		"check_json_settings":    {Fn: checkJSONSettings, Kwargs: true, Check: rulesWith("expected")},
		"check_json_keybindings": {Fn: checkJSONKeybindings, Kwargs: true, Check: rulesWith("expected")},
		"is_extension_installed": {Fn: isExtensionInstalled, Kwargs: true, Check: rulesWith("type", "expected")},
		"compare_csv":            {Fn: compareCSV, Options: []string{"strict", "ignore_case"}, Kwargs: true},
	}
}

// compareTextFile is 1 when the two files' text is equal, after ignore_blanks
// (tabs and newlines as spaces, stripped, runs of whitespace as one space) and
// ignore_case.
func compareTextFile(_ context.Context, c Call) (Score, error) {
	a, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the result file does not exist"}, err
	}
	e, ok, err := pathArg(c.Expected, "expected")
	if err != nil {
		return Score{}, err
	}
	if !ok {
		return Score{}, fmt.Errorf("the expected file does not exist")
	}
	got, err := readText(a)
	if err != nil {
		return Score{}, err
	}
	want, err := readText(e)
	if err != nil {
		return Score{}, err
	}
	if optBool(c.Options, "ignore_blanks", false) {
		got, want = squeezeBlanks(got), squeezeBlanks(want)
	}
	if optBool(c.Options, "ignore_case", false) {
		got, want = PyLower(got), PyLower(want)
	}
	if got == want {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("the text differs: got %s, expected %s", show(got), show(want))}, nil
}

// squeezeBlanks is re.sub(r'[\t\n]', ' ', s).strip(), then re.sub(r'\s+', ' ', s).
func squeezeBlanks(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' {
			return ' '
		}
		return r
	}, s)
	return squeezeSpace(pyStrip(s))
}

// compareConfig is 1 when the result file's text is rules["expected"].
func compareConfig(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the result file does not exist"}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := strKey(r, "expected")
	if err != nil {
		return Score{}, err
	}
	got, err := readText(p)
	if err != nil {
		return Score{}, err
	}
	if got == want {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("got %s, expected %s", show(got), show(want))}, nil
}

// compareAnswer is 1 when the result string is rules["expected"].
func compareAnswer(_ context.Context, c Call) (Score, error) {
	if !PyTruthy(c.Result) {
		return Score{Note: "no result"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := key(r, "expected")
	if err != nil {
		return Score{}, err
	}
	if PyEqual(c.Result, want) {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("got %s, expected %s", show(c.Result), show(want))}, nil
}

// compareResultFiles compares two files' stripped text: as numbers when the
// expected one is a number (its text inside the result's passes, else within
// 1e-4), else as strings.
func compareResultFiles(_ context.Context, c Call) (Score, error) {
	a, ok1, err := pathArg(c.Result, "result")
	if err != nil {
		return Score{}, err
	}
	e, ok2, err := pathArg(c.Expected, "expected")
	if err != nil || !ok1 || !ok2 {
		return Score{Note: "a file is missing"}, err
	}
	src, err := readText(a)
	if err != nil {
		return Score{}, err
	}
	tgt, err := readText(e)
	if err != nil {
		return Score{}, err
	}
	src, tgt = pyStrip(src), pyStrip(tgt)
	if t, ok := PyFloat(tgt); ok {
		if strings.Contains(src, tgt) {
			return Score{Value: 1}, nil
		}
		if s, ok := PyFloat(src); ok {
			if math.Abs(s-t) < 1e-4 {
				return Score{Value: 1}, nil
			}
			return Score{Note: fmt.Sprintf("got %s, expected %s", src, tgt)}, nil
		}
	}
	if src == tgt {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("got %s, expected %s", show(src), show(tgt))}, nil
}

// checkJSONSettings is 1 when the result JSON object already holds every key
// of rules["expected"] with its value (dict.update leaves it unchanged).
func checkJSONSettings(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the settings file does not exist"}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, err := key(r, "expected")
	if err != nil {
		return Score{}, err
	}
	text, err := readText(p)
	if err != nil {
		return Score{}, err
	}
	var data any
	if err := decodeJSON([]byte(text), &data); err != nil {
		return Score{}, fmt.Errorf("%s: %w", p, err)
	}
	got, ok := data.(map[string]any)
	if !ok {
		return Score{}, fmt.Errorf("%s holds %s, not an object", p, PyType(data))
	}
	exp, ok := want.(map[string]any)
	if !ok {
		return Score{}, fmt.Errorf("rules.expected must be an object")
	}
	for k, v := range exp {
		if g, ok := got[k]; !ok || !PyEqual(g, v) {
			return Score{Note: fmt.Sprintf("%s: got %s, expected %s", k, show(got[k]), show(v))}, nil
		}
	}
	return Score{Value: 1}, nil
}

// checkJSONKeybindings is 1 when rules["expected"] is one of the bindings of
// the result file's JSON list (read whole, else after its first line, as VS
// Code's keybindings.json starts with a comment).
func checkJSONKeybindings(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	p, _, err := pathArg(c.Result, "result")
	if err != nil {
		return Score{}, err
	}
	text, rerr := readText(p)
	var list []any
	for _, body := range []string{text, afterFirstLine(text)} {
		var v any
		if rerr == nil && decodeJSON([]byte(body), &v) == nil {
			if l, ok := v.([]any); ok {
				list = l
				break
			}
		}
	}
	if list == nil {
		return Score{Note: "the keybindings file is not a JSON list"}, nil
	}
	want, err := key(r, "expected")
	if err != nil {
		return Score{}, err
	}
	if in, _ := PyIn(want, list); in {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("%s is not among the %d bindings", show(want), len(list))}, nil
}

// afterFirstLine is what json.load reads after f.readline().
func afterFirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

// isExtensionInstalled checks rules["expected"] is (type "contain") or is not
// ("not_contain") in the result, a command's output.
func isExtensionInstalled(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	typ, err := strKey(r, "type")
	if err != nil {
		return Score{}, err
	}
	want, err := key(r, "expected")
	if err != nil {
		return Score{}, err
	}
	in, err := PyIn(want, c.Result)
	if err != nil {
		return Score{}, err
	}
	switch typ {
	case "contain":
		if in {
			return Score{Value: 1}, nil
		}
		return Score{Note: fmt.Sprintf("%s is not installed", show(want))}, nil
	case "not_contain":
		if !in {
			return Score{Value: 1}, nil
		}
		return Score{Note: fmt.Sprintf("%s is installed", show(want))}, nil
	}
	return Score{}, fmt.Errorf("is_extension_installed: type %q is not implemented", typ)
}

// compareCSV compares two files line by line (splitlines), stripped unless
// strict (the default), lower-cased with ignore_case.
func compareCSV(_ context.Context, c Call) (Score, error) {
	a, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the result file does not exist"}, err
	}
	if c.Expected == nil {
		return Score{}, errNoExpected
	}
	e, _, err := pathArg(c.Expected, "expected")
	if err != nil {
		return Score{}, err
	}
	got, err := readText(a)
	if err != nil {
		return Score{}, err
	}
	want, err := readText(e)
	if err != nil {
		return Score{}, err
	}
	gl, wl := splitLines(got), splitLines(want)
	for _, l := range [][]string{gl, wl} {
		for i := range l {
			if !optBool(c.Options, "strict", true) {
				l[i] = pyStrip(l[i])
			}
			if optBool(c.Options, "ignore_case", false) {
				l[i] = PyLower(l[i])
			}
		}
	}
	if len(gl) != len(wl) {
		return Score{Note: fmt.Sprintf("%d lines, expected %d", len(gl), len(wl))}, nil
	}
	for i := range gl {
		if gl[i] != wl[i] {
			return Score{Note: fmt.Sprintf("line %d: got %s, expected %s", i+1, show(gl[i]), show(wl[i]))}, nil
		}
	}
	return Score{Value: 1}, nil
}

// checkList: every rules["expect"] regex matches some line of the result file
// and no rules["unexpect"] regex matches any.
func checkList(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the result file does not exist"}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	expect, err := regexps(r["expect"])
	if err != nil {
		return Score{}, err
	}
	unexpect, err := regexps(r["unexpect"])
	if err != nil {
		return Score{}, err
	}
	text, err := readText(p)
	if err != nil {
		return Score{}, err
	}
	seen := make([]bool, len(expect))
	for _, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		for i, re := range expect {
			seen[i] = seen[i] || re.MatchString(l)
		}
		for _, re := range unexpect {
			if re.MatchString(l) {
				return Score{Note: fmt.Sprintf("line %s matches %s", show(l), re)}, nil
			}
		}
	}
	for i, ok := range seen {
		if !ok {
			return Score{Note: fmt.Sprintf("no line matches %s", expect[i])}, nil
		}
	}
	return Score{Value: 1}, nil
}

// regexps compiles a list of Python regular expressions (absent: none).
func regexps(v any) ([]*regexp.Regexp, error) {
	if v == nil {
		return nil, nil
	}
	l, err := strList(v, "patterns")
	if err != nil {
		return nil, err
	}
	out := make([]*regexp.Regexp, len(l))
	for i, s := range l {
		if out[i], err = pyRegexp(s); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pyRegexp compiles a Python regular expression; the syntax the tasks use is
// common to Python's re and Go's RE2 (a pattern with look-arounds or
// back-references is an error).
func pyRegexp(s string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", s, err)
	}
	return re, nil
}

// checkCSV: every rules["expect"] record pattern matches some row of the
// result CSV (read with a header, as csv.DictReader) and no rules["unexpect"]
// pattern matches any.
func checkCSV(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the result file does not exist"}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	expect, _ := r["expect"].([]any)
	unexpect, _ := r["unexpect"].([]any)
	text, err := readText(p)
	if err != nil {
		return Score{}, err
	}
	rows, err := dictRows(text)
	if err != nil {
		return Score{}, err
	}
	seen := make([]bool, len(expect))
	for _, row := range rows {
		for i, pat := range expect {
			seen[i] = seen[i] || matchRecord(pat, row)
		}
		for _, pat := range unexpect {
			if matchRecord(pat, row) {
				return Score{Note: fmt.Sprintf("a row matches %s", show(pat))}, nil
			}
		}
	}
	for i, ok := range seen {
		if !ok {
			return Score{Note: fmt.Sprintf("no row matches %s", show(expect[i]))}, nil
		}
	}
	return Score{Value: 1}, nil
}

// dictRows reads CSV text as csv.DictReader: the first row names the fields;
// a short row lacks the last keys' values (None), extra values are dropped
// (DictReader keeps them under None, which no pattern names).
func dictRows(text string) ([]map[string]any, error) {
	rd := csv.NewReader(strings.NewReader(text))
	rd.FieldsPerRecord = -1
	rd.LazyQuotes = true
	var header []string
	var rows []map[string]any
	for {
		rec, err := rd.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		if header == nil {
			header = rec
			continue
		}
		row := map[string]any{}
		for i, h := range header {
			if i < len(rec) {
				row[h] = rec[i]
			} else {
				row[h] = nil
			}
		}
		rows = append(rows, row)
	}
}

// matchRecord is OSWorld's _match_record: every key of the pattern is in the
// item with an equal value.
func matchRecord(pattern any, item map[string]any) bool {
	p, ok := pattern.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range p {
		if got, ok := item[k]; !ok || !PyEqual(got, v) {
			return false
		}
	}
	return true
}

// diffTextFile is difflib.SequenceMatcher over the two files' lines: a
// fraction.
func diffTextFile(_ context.Context, c Call) (Score, error) {
	a, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the result file does not exist"}, err
	}
	if c.Expected == nil {
		return Score{}, errNoExpected
	}
	e, _, err := pathArg(c.Expected, "expected")
	if err != nil {
		return Score{}, err
	}
	got, err := readText(a)
	if err != nil {
		return Score{}, err
	}
	want, err := readText(e)
	if err != nil {
		return Score{}, err
	}
	v := seqRatio(splitLines(got), splitLines(want))
	s := Score{Value: v}
	if v < 1 {
		s.Note = fmt.Sprintf("the lines are %.3f similar", v)
	}
	return s, nil
}

// checkLineNumber counts the lines holding a time HH:MM:SS and compares the
// count with rules["expected"]; anything unreadable scores 0.
func checkLineNumber(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok || !isFile(p) {
		return Score{Note: "the result file does not exist"}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	text, err := readText(p)
	if err != nil {
		return Score{Note: err.Error()}, nil
	}
	re := regexp.MustCompile(`([01]\d|2[0-3]):[0-5]\d:[0-5]\d`)
	n := 0
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" && re.MatchString(l) {
			n++
		}
	}
	want, ok := pyIntOf(r["expected"])
	if !ok {
		return Score{Note: "rules.expected is not an integer"}, nil
	}
	if n == want {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("%d lines with a time, expected %d", n, want)}, nil
}

// pyIntOf is Python's int(v) for a number or a numeric string.
func pyIntOf(v any) (int, bool) {
	if s, ok := v.(string); ok {
		i, err := strconv.Atoi(pyStrip(s))
		return i, err == nil
	}
	if f, ok := PyNumber(v); ok {
		return int(f), true
	}
	return 0, false
}

// comparePythonPureText compares two files with all whitespace removed.
func comparePythonPureText(_ context.Context, c Call) (Score, error) {
	a, ok1, err := pathArg(c.Result, "result")
	if err != nil {
		return Score{}, err
	}
	e, ok2, err := pathArg(c.Expected, "expected")
	if err != nil || !ok1 || !ok2 {
		return Score{Note: "a file is missing"}, err
	}
	got, err := readText(a)
	if err != nil {
		return Score{}, err
	}
	want, err := readText(e)
	if err != nil {
		return Score{}, err
	}
	if strings.Join(pySplit(got), "") == strings.Join(pySplit(want), "") {
		return Score{Value: 1}, nil
	}
	return Score{Note: "the code differs"}, nil
}

// compareTimeInSpeedtestResults reads the second line's second CSV field, takes
// its last five characters as HH:MM and passes when that is within the
// expected number of minutes of now (clock times only, as OSWorld).
func compareTimeInSpeedtestResults(_ context.Context, c Call) (Score, error) {
	p, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "no result file"}, err
	}
	text, err := readText(p)
	if err != nil {
		return Score{Note: err.Error()}, nil
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) < 2 {
		return Score{Note: "the file has no second line"}, nil
	}
	fields := strings.Split(lines[1], ",")
	if len(fields) < 2 {
		return Score{Note: "the second line has no second field"}, nil
	}
	date := fields[1]
	if len(date) > 5 {
		date = date[len(date)-5:]
	}
	t, err := time.Parse("15:04", date)
	if err != nil {
		return Score{Note: fmt.Sprintf("%q is not HH:MM", date)}, nil
	}
	now, _ := time.Parse("15:04", time.Now().Format("15:04"))
	limit, ok := pyIntOf(c.Expected)
	if !ok {
		return Score{Note: "the time range is not an integer"}, nil
	}
	if math.Abs(t.Sub(now).Minutes()) < float64(limit) {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("%s is more than %d minutes from now", date, limit)}, nil
}
