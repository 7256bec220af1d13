package checks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// tableMetrics are OSWorld's metrics/table.py.
func tableMetrics() map[string]Metric {
	return map[string]Metric{
		"compare_table":                    {Fn: compareTable, Options: []string{"rules"}, Kwargs: true, Check: tableRules},
		"compare_conference_city_in_order": {Fn: compareConferenceCityInOrder, Check: rulesWith("expected")},
	}
}

// tableRuleTypes are compare_table's rule types this package implements.
func tableRuleTypes() []string {
	return []string{"sheet_name", "sheet_data", "sheet_print", "sheet_fuzzy", "check_cell", "freeze", "zoom",
		"chart", "pivot_table", "style", "data_validation", "row_props", "col_props", "filter", "sparkline"}
}

// tableRules checks compare_table's rules when the task loads.
func tableRules(_, _, opts map[string]any) error {
	rules, ok := opts["rules"].([]any)
	if !ok {
		return errors.New(`compare_table needs options.rules, a list`)
	}
	for i, r := range rules {
		m, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("rules[%d] must be an object", i)
		}
		t, _ := m["type"].(string)
		found := false
		for _, k := range tableRuleTypes() {
			found = found || k == t
		}
		if !found {
			return fmt.Errorf("rules[%d]: sheet check %q is not implemented (OSWorld raises NotImplementedError)", i, t)
		}
	}
	return nil
}

// tableCall is one compare_table call: the result and expected workbooks.
type tableCall struct {
	result, expected string
	rbook, ebook     *book
	rnames, enames   []string
}

// sheetIdx is OSWorld's _parse_sheet_idx: 0 (result's first sheet), "RI0",
// "RNSheet1", "EI0", "ENSheet1"; an index out of range names "".
func (t *tableCall) sheetIdx(idx any) (expected bool, name string, err error) {
	pick := func(names []string, i int) string {
		if i < 0 {
			i += len(names)
		}
		if i < 0 || i >= len(names) {
			return ""
		}
		return names[i]
	}
	if i, ok := pyInt(idx); ok {
		return false, pick(t.rnames, i), nil
	}
	s, ok := idx.(string)
	if !ok {
		return false, "", fmt.Errorf("sheet index %s is not recognized", show(idx))
	}
	num := func(s string) (int, error) {
		i, ok := pyIntOf(s)
		if !ok {
			return 0, fmt.Errorf("invalid literal for int(): %q", s)
		}
		return i, nil
	}
	switch {
	case strings.HasPrefix(s, "RI"):
		i, err := num(s[2:])
		if err != nil {
			return false, "", nil
		}
		return false, pick(t.rnames, i), nil
	case strings.HasPrefix(s, "RN"):
		return false, s[2:], nil
	case strings.HasPrefix(s, "EI"):
		i, err := num(s[2:])
		if err != nil {
			return true, "", nil
		}
		return true, pick(t.enames, i), nil
	case strings.HasPrefix(s, "EN"):
		return true, s[2:], nil
	}
	return false, "", errors.New("unrecognized sheet index")
}

// side returns the path and book of a parsed sheet index.
func (t *tableCall) side(expected bool) (string, *book, error) {
	if expected {
		if t.ebook == nil {
			return "", nil, errors.New("the rule reads the expected workbook, which is None")
		}
		return t.expected, t.ebook, nil
	}
	return t.result, t.rbook, nil
}

// compareTable applies compare_table's rules in order; the first that fails
// scores 0. The result workbook missing or unreadable scores 0.
func compareTable(_ context.Context, c Call) (Score, error) {
	rp, ok, err := pathArg(c.Result, "result")
	if err != nil || !ok {
		return Score{Note: "the result workbook does not exist"}, err
	}
	t := &tableCall{result: rp}
	if t.rbook, err = openBook(rp); err != nil {
		return Score{Note: "the result is not a workbook: " + err.Error()}, nil
	}
	t.rnames = t.rbook.sheetNames()
	if c.Expected != nil {
		ep, _, err := pathArg(c.Expected, "expected")
		if err != nil {
			return Score{}, err
		}
		t.expected = ep
		if t.ebook, err = openBook(ep); err != nil {
			return Score{}, fmt.Errorf("the expected workbook: %w", err)
		}
		t.enames = t.ebook.sheetNames()
	}
	rules, _ := c.Options["rules"].([]any)
	for i, r := range rules {
		rule, err := obj(r, "rule")
		if err != nil {
			return Score{}, err
		}
		ok, note, err := t.apply(rule)
		if err != nil {
			return Score{}, fmt.Errorf("rule %d (%v): %w", i+1, rule["type"], err)
		}
		if !ok {
			return Score{Note: fmt.Sprintf("rule %d (%v): %s", i+1, rule["type"], note)}, nil
		}
	}
	return Score{Value: 1}, nil
}

// apply checks one rule.
func (t *tableCall) apply(r map[string]any) (bool, string, error) {
	typ, _ := r["type"].(string)
	switch typ {
	case "sheet_name":
		if strings.Join(t.rnames, "\x00") == strings.Join(t.enames, "\x00") && (t.enames != nil || t.rnames == nil) {
			return true, "", nil
		}
		return false, fmt.Sprintf("sheets %q, expected %q", t.rnames, t.enames), nil
	case "sheet_data":
		return t.sheetData(r)
	case "sheet_print":
		return t.sheetPrint(r)
	case "sheet_fuzzy":
		return t.sheetFuzzy(r)
	case "check_cell":
		return t.checkCell(r)
	case "freeze", "zoom":
		return t.sheetView(typ, r)
	case "chart", "pivot_table", "style", "data_validation", "row_props", "col_props", "filter", "sparkline":
		return t.parts(typ, r)
	}
	return false, "", fmt.Errorf("unimplemented sheet check: %s", typ)
}

func (t *tableCall) sheetData(r map[string]any) (bool, string, error) {
	precision := 4
	if p, ok := r["precision"]; ok {
		if i, ok := pyInt(p); ok {
			precision = i
		}
	}
	load := func(idx any) (*frame, error) {
		e, name, err := t.sheetIdx(idx)
		if err != nil {
			return nil, err
		}
		_, b, err := t.side(e)
		if err != nil {
			return nil, err
		}
		return readFrame(b, name)
	}
	f1, err := load(r["sheet_idx0"])
	if err != nil {
		return false, "the result sheet cannot be read: " + err.Error(), nil
	}
	f2, err := load(r["sheet_idx1"])
	if err != nil {
		return false, "", fmt.Errorf("the other sheet cannot be read: %w", err)
	}
	f1.round(precision)
	f2.round(precision)
	ok, note := f1.equals(f2)
	return ok, note, nil
}

// sheetPrint compares the CSV exports "<book>-<sheet>.csv" next to the
// workbooks: their lines stripped, from the last non-empty one up.
func (t *tableCall) sheetPrint(r map[string]any) (bool, string, error) {
	load := func(idx any) ([]string, error) {
		e, name, err := t.sheetIdx(idx)
		if err != nil {
			return nil, err
		}
		p, _, err := t.side(e)
		if err != nil {
			return nil, err
		}
		csv := strings.TrimSuffix(p, filepath.Ext(p)) + "-" + name + ".csv"
		text, err := readText(csv)
		if err != nil {
			return nil, err
		}
		lines := splitLines(text)
		var out []string
		started := false
		for i := len(lines) - 1; i >= 0; i-- {
			l := pyStrip(lines[i])
			if !started && l == "" {
				continue
			}
			started = true
			out = append(out, l)
		}
		return out, nil
	}
	a, err := load(r["sheet_idx0"])
	if err != nil {
		return false, "the result's CSV export cannot be read: " + err.Error(), nil
	}
	b, err := load(r["sheet_idx1"])
	if err != nil {
		return false, "the expected CSV export cannot be read: " + err.Error(), nil
	}
	if optBool(r, "ignore_case", false) {
		for i := range a {
			a[i] = PyLower(a[i])
		}
		for i := range b {
			b[i] = PyLower(b[i])
		}
	}
	if len(a) != len(b) {
		return false, fmt.Sprintf("%d printed lines, expected %d", len(a), len(b)), nil
	}
	for i := range a {
		if a[i] != b[i] {
			return false, fmt.Sprintf("printed line %d from the end is %q, expected %q", i+1, a[i], b[i]), nil
		}
	}
	return true, "", nil
}

// sheetFuzzy compares cells of ranges by their XML values as text.
func (t *tableCall) sheetFuzzy(r map[string]any) (bool, string, error) {
	e0, n0, err := t.sheetIdx(r["sheet_idx0"])
	if err != nil {
		return false, "", err
	}
	e1, n1, err := t.sheetIdx(r["sheet_idx1"])
	if err != nil {
		return false, "", err
	}
	p0, _, err := t.side(e0)
	if err != nil {
		return false, "", err
	}
	p1, _, err := t.side(e1)
	if err != nil {
		return false, "", err
	}
	rls, _ := r["rules"].([]any)
	for _, x := range rls {
		rl, err := obj(x, "sheet_fuzzy rule")
		if err != nil {
			return false, "", err
		}
		cells, err := multiCellRange(rl["range"])
		if err != nil {
			return false, "", err
		}
		for _, coord := range cells {
			v1 := PyStr(readCellValue(p0, n0, coord))
			v2 := PyStr(readCellValue(p1, n1, coord))
			v1, v2 = fuzzyNormalize(v1, rl), fuzzyNormalize(v2, rl)
			var ok bool
			switch rl["type"] {
			case "includes":
				ok = strings.Contains(v1, v2)
			case "included_by":
				ok = strings.Contains(v2, v1)
			case "fuzzy_match":
				th := 85.0
				if f, ok := PyNumber(rl["threshold"]); ok {
					th = f
				}
				ratio, err := fuzzRatio(v1, v2)
				if err != nil {
					return false, "", err
				}
				ok = ratio*100 >= th
			case "exact_match":
				ok = v1 == v2
			default:
				return false, "", fmt.Errorf("sheet_fuzzy: match type %v is not known", rl["type"])
			}
			if !ok {
				return false, fmt.Sprintf("%s: %q vs %q (%v)", coord, v1, v2, rl["type"]), nil
			}
		}
	}
	return true, "", nil
}

// fuzzyNormalize applies a sheet_fuzzy rule's normalization, trim_leadings,
// trim_trailings, ignore_chars and ignore_case, in that order.
func fuzzyNormalize(v string, rl map[string]any) string {
	if norm, ok := rl["normalization"].([]any); ok {
		for _, p := range norm {
			if pair, ok := p.([]any); ok && len(pair) == 2 {
				a, _ := pair[0].(string)
				b, _ := pair[1].(string)
				v = strings.ReplaceAll(v, a, b)
			}
		}
	}
	if s, ok := rl["trim_leadings"].(string); ok {
		v = pyStripChars(v, s, true, false)
	}
	if s, ok := rl["trim_trailings"].(string); ok {
		v = pyStripChars(v, s, false, true)
	}
	if s, ok := rl["ignore_chars"].(string); ok {
		v = strings.Map(func(r rune) rune {
			if strings.ContainsRune(s, r) {
				return -1
			}
			return r
		}, v)
	}
	if optBool(rl, "ignore_case", false) {
		v = PyLower(v)
	}
	return v
}

// multiCellRange lists the cells of openpyxl's MultiCellRange: ranges
// "A1:B6" (or one cell), as a list or a space-separated string, each row by
// row.
func multiCellRange(v any) ([]string, error) {
	var parts []string
	switch x := v.(type) {
	case string:
		parts = strings.Fields(x)
	case []any:
		l, err := strList(x, "range")
		if err != nil {
			return nil, err
		}
		for _, s := range l {
			parts = append(parts, strings.Fields(s)...)
		}
	default:
		return nil, fmt.Errorf("range must be a string or a list of strings")
	}
	var out []string
	for _, p := range parts {
		c1, r1, c2, r2, err := cellRange(p)
		if err != nil {
			return nil, err
		}
		if (r2-r1+1)*(c2-c1+1) > 1<<20 {
			return nil, fmt.Errorf("range %s is too large", p)
		}
		for r := r1; r <= r2; r++ {
			for c := c1; c <= c2; c++ {
				out = append(out, fmt.Sprintf("%s%d", colName(c), r))
			}
		}
	}
	return out, nil
}

// cellRange reads "A1:B6" or "A1" as its bounds.
func cellRange(s string) (c1, r1, c2, r2 int, err error) {
	a, b, isRange := strings.Cut(s, ":")
	c1, r1, ok := splitRef(a)
	if !ok {
		return 0, 0, 0, 0, fmt.Errorf("%q is not a cell range", s)
	}
	c2, r2 = c1, r1
	if isRange {
		if c2, r2, ok = splitRef(b); !ok {
			return 0, 0, 0, 0, fmt.Errorf("%q is not a cell range", s)
		}
	}
	return min(c1, c2), min(r1, r2), max(c1, c2), max(r1, r2), nil
}

// checkCell checks one cell's value (read_cell_value) and styles against rules.
func (t *tableCall) checkCell(r map[string]any) (bool, string, error) {
	e, name, err := t.sheetIdx(r["sheet_idx"])
	if err != nil {
		return false, "", err
	}
	p, b, err := t.side(e)
	if err != nil {
		return false, "", err
	}
	if _, ok := b.sheet(name); !ok {
		return false, fmt.Sprintf("no sheet %q", name), nil
	}
	coord, err := strKey(r, "coordinate")
	if err != nil {
		return false, "", err
	}
	props, err := obj(r["props"], "props")
	if err != nil {
		return false, "", err
	}
	for prop, rl := range props {
		rule, err := obj(rl, "props."+prop)
		if err != nil {
			return false, "", err
		}
		var val any
		if prop == "value" {
			val = readCellValue(p, name, coord)
		} else if val, err = b.cellStyle(name, coord, prop); err != nil {
			return false, "", err
		}
		ok, err := matchValueToRule(val, rule)
		if err != nil {
			return false, "", err
		}
		if !ok {
			return false, fmt.Sprintf("%s %s is %s, not %v %s", coord, prop, show(val), rule["method"], show(rule["ref"])), nil
		}
	}
	return true, "", nil
}

// sheetView checks freeze panes (equal in both sheets) or the zoom (against
// the rule's method and ref).
func (t *tableCall) sheetView(typ string, r map[string]any) (bool, string, error) {
	view := func(idx any) (*xnode, bool, error) {
		e, name, err := t.sheetIdx(idx)
		if err != nil {
			return nil, false, err
		}
		_, b, err := t.side(e)
		if err != nil {
			return nil, false, err
		}
		ws, err := b.sheetXML(name)
		if err != nil {
			return nil, false, nil
		}
		var v *xnode
		if sv := ws.child("sheetViews"); sv != nil {
			v = sv.child("sheetView")
		}
		return v, true, nil
	}
	if typ == "zoom" {
		v, ok, err := view(r["sheet_idx"])
		if err != nil || !ok {
			return false, "no such sheet", err
		}
		zoom := any(100.0)
		if v != nil {
			if z, ok := v.attr("zoomScale"); ok {
				if n, ok := pyIntOf(z); ok && n != 0 {
					zoom = int64(n)
				}
			}
		}
		ok, err = matchValueToRule(zoom, r)
		if err != nil || ok {
			return ok, "", err
		}
		return false, fmt.Sprintf("zoom %s is not %v %s", PyStr(zoom), r["method"], show(r["ref"])), nil
	}
	freeze := func(v *xnode) any {
		if v == nil {
			return nil
		}
		p := v.child("pane")
		if p == nil {
			return nil
		}
		tl, ok := p.attr("topLeftCell")
		if !ok {
			return nil
		}
		return tl
	}
	v1, ok, err := view(r["sheet_idx0"])
	if err != nil || !ok {
		return false, "no such sheet", err
	}
	v2, ok, err := view(r["sheet_idx1"])
	if err != nil {
		return false, "", err
	}
	if !ok {
		return false, "", errors.New("the other sheet does not exist")
	}
	a, b := freeze(v1), freeze(v2)
	if PyEqual(a, b) {
		return true, "", nil
	}
	return false, fmt.Sprintf("frozen at %s, expected %s", PyStr(a), PyStr(b)), nil
}

// compareConferenceCityInOrder checks the active sheet's C2:C22 against
// rules["expected"]: each expected string (or one of a list) inside the
// cell's text; anything that goes wrong scores 0.
func compareConferenceCityInOrder(_ context.Context, c Call) (Score, error) {
	p, _, err := pathArg(c.Result, "result")
	if err != nil {
		return Score{}, err
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, _ := r["expected"].([]any)
	b, err := openBook(p)
	if err != nil {
		return Score{}, err
	}
	names := b.sheetNames()
	if len(names) == 0 {
		return Score{}, errors.New("the workbook has no sheet")
	}
	g, err := b.readGrid(names[b.activeSheet()])
	if err != nil {
		return Score{}, err
	}
	for i := 0; i < 21; i++ {
		cell, ok := g.cells[[2]int{i + 2, 3}]
		var got any
		if ok {
			got = cell.py()
		}
		if i >= len(want) {
			return Score{Note: "fewer expected cities than cells"}, nil
		}
		gs, isStr := got.(string)
		switch w := want[i].(type) {
		case string:
			if !isStr || !strings.Contains(gs, w) {
				return Score{Note: fmt.Sprintf("C%d is %s, expected %q", i+2, show(got), w)}, nil
			}
		case []any:
			found := false
			for _, x := range w {
				if s, ok := x.(string); ok && isStr && strings.Contains(gs, s) {
					found = true
				}
			}
			if !found {
				return Score{Note: fmt.Sprintf("C%d is %s, expected one of %s", i+2, show(got), show(w))}, nil
			}
		default:
			return Score{Note: "expected cities must be strings or lists"}, nil
		}
	}
	return Score{Value: 1}, nil
}

// activeSheet is the workbook view's activeTab (0 when unset).
func (b *book) activeSheet() int {
	data, err := zipPart(b.z, "xl/workbook.xml")
	if err != nil {
		return 0
	}
	wb, err := parseXML(data)
	if err != nil {
		return 0
	}
	for _, v := range wb.all("workbookView") {
		if a, ok := v.attr("activeTab"); ok {
			if i, ok := pyIntOf(a); ok && i >= 0 && i < len(b.sheets) {
				return i
			}
		}
	}
	return 0
}

// getContentFromVMFile reads an xlsx file of the desktop: its last row as
// pandas gives it, each value as str().
func getContentFromVMFile(_ context.Context, env Env, cfg map[string]any) (any, error) {
	p, err := strKey(cfg, "path")
	if err != nil {
		return nil, err
	}
	if cfg["file_type"] != "xlsx" {
		return nil, fmt.Errorf("content_from_vm_file: file type %v is not supported", cfg["file_type"])
	}
	local, ok := fetchVMFile(env, p, filepath.Base(p))
	if !ok {
		return nil, fmt.Errorf("content_from_vm_file: %s: %w", p, os.ErrNotExist)
	}
	if cfg["file_content"] != "last_row" {
		return nil, nil // OSWorld returns None for other contents
	}
	b, err := openBook(local)
	if err != nil {
		return nil, err
	}
	names := b.sheetNames()
	if len(names) == 0 {
		return nil, errors.New("the workbook has no sheet")
	}
	f, err := readFrame(b, names[0])
	if err != nil {
		return nil, err
	}
	if f.rows == 0 {
		return nil, errors.New("single positional indexer is out-of-bounds")
	}
	out := make([]any, len(f.cols))
	for j, c := range f.cols {
		out[j] = frameStr(c.vals[f.rows-1])
	}
	return out, nil
}

// frameStr is str() of a value pandas holds (astype(str)).
func frameStr(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return frameShow(v)
}

// spreadsheetRange is _match_value_to_rule's spreadsheet_range: ref[0]'s ranges
// lie inside the value's and the value's inside ref[1]'s.
func spreadsheetRange(value, ref any) (bool, error) {
	l, ok := ref.([]any)
	if !ok || len(l) != 2 {
		return false, errors.New("spreadsheet_range needs two ranges")
	}
	parse := func(v any) ([][4]int, error) {
		var parts []string
		switch x := v.(type) {
		case string:
			parts = strings.Fields(x)
		case []any:
			ss, err := strList(x, "range")
			if err != nil {
				return nil, err
			}
			parts = ss
		default:
			return nil, fmt.Errorf("%s is not a cell range", show(v))
		}
		var out [][4]int
		for _, p := range parts {
			c1, r1, c2, r2, err := cellRange(p)
			if err != nil {
				return nil, err
			}
			out = append(out, [4]int{c1, r1, c2, r2})
		}
		return out, nil
	}
	within := func(sub, sup [][4]int) bool {
		for _, a := range sub {
			ok := false
			for _, b := range sup {
				ok = ok || (a[0] >= b[0] && a[1] >= b[1] && a[2] <= b[2] && a[3] <= b[3])
			}
			if !ok {
				return false
			}
		}
		return true
	}
	sub, err := parse(l[0])
	if err != nil {
		return false, err
	}
	sup, err := parse(l[1])
	if err != nil {
		return false, err
	}
	v, err := parse(value)
	if err != nil {
		return false, err
	}
	return within(sub, v) && within(v, sup), nil
}
