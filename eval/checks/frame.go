package checks

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// This file is what compare_table's sheet_data rule sees: the sheet as
// pandas.read_excel reads it (first row the header, "" and the default NA
// strings as NaN, each column's dtype inferred: int64, float64, bool,
// datetime64 or object), compared as DataFrame.round(n).equals does.

// frame is a DataFrame read from a sheet.
type frame struct {
	labels []any
	cols   []column
	rows   int
}

type column struct {
	dtype string // int64, float64, bool, datetime64, object
	vals  []any  // int64, float64 (NaN for NA), bool, time.Time (zero for NaT), or any Python value for object
}

// naStrings are pandas' default NA values.
func naString(s string) bool {
	switch s {
	case "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
		"<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null":
		return true
	}
	return false
}

// readFrame reads a sheet as pd.read_excel(path, sheet_name) does.
func readFrame(b *book, sheet string) (*frame, error) {
	g, err := b.readGrid(sheet)
	if err != nil {
		return nil, err
	}
	// Rows from 1 to the last with data, each as wide as the widest.
	var data [][]any
	width := 0
	for r := 1; r <= g.maxRow; r++ {
		row := make([]any, 0, g.maxC)
		last := 0
		for c := 1; c <= g.maxC; c++ {
			v, ok := g.cells[[2]int{r, c}]
			if !ok {
				row = append(row, "")
				continue
			}
			row = append(row, pandasCell(v))
			last = c
		}
		row = row[:last]
		width = max(width, len(row))
		data = append(data, row)
	}
	for len(data) > 0 && len(data[len(data)-1]) == 0 {
		data = data[:len(data)-1]
	}
	f := &frame{}
	if len(data) == 0 {
		return f, nil
	}
	for i := range data {
		for len(data[i]) < width {
			data[i] = append(data[i], "")
		}
	}
	seen := map[string]int{}
	for j, h := range data[0] {
		var label any = h
		if s, ok := h.(string); ok && s == "" {
			label = fmt.Sprintf("Unnamed: %d", j)
		}
		if s, ok := label.(string); ok {
			if n := seen[s]; n > 0 {
				label = fmt.Sprintf("%s.%d", s, n)
			}
			seen[s]++
		}
		f.labels = append(f.labels, label)
	}
	f.rows = len(data) - 1
	for j := range width {
		vals := make([]any, f.rows)
		for i := range vals {
			vals[i] = data[i+1][j]
		}
		f.cols = append(f.cols, inferColumn(vals))
	}
	return f, nil
}

// pandasCell is pandas' _convert_cell: integral numbers as int, errors as NaN.
func pandasCell(c cell) any {
	switch c.kind {
	case kInt:
		return c.i
	case kFloat:
		if c.f == math.Trunc(c.f) && math.Abs(c.f) < 1<<63 {
			return int64(c.f)
		}
		return c.f
	case kString:
		return c.s
	case kBool:
		return c.b
	case kDate:
		return c.t
	case kError:
		return math.NaN()
	}
	return ""
}

// inferColumn gives a column pandas' parser dtype.
func inferColumn(vals []any) column {
	na := make([]bool, len(vals))
	nNA := 0
	for i, v := range vals {
		switch x := v.(type) {
		case string:
			na[i] = naString(x)
		case float64:
			na[i] = math.IsNaN(x)
		}
		if na[i] {
			nNA++
		}
	}
	if nNA == len(vals) {
		out := make([]any, len(vals))
		for i := range out {
			out[i] = math.NaN()
		}
		return column{dtype: "float64", vals: out}
	}
	if c, ok := numericColumn(vals, na, nNA); ok {
		return c
	}
	if nNA == 0 {
		if c, ok := boolColumn(vals); ok {
			return c
		}
	}
	allDates := true
	for i, v := range vals {
		if _, ok := v.(time.Time); !ok && !na[i] {
			allDates = false
		}
	}
	if allDates {
		out := make([]any, len(vals))
		for i, v := range vals {
			if na[i] {
				out[i] = time.Time{}
			} else {
				out[i] = v
			}
		}
		return column{dtype: "datetime64", vals: out}
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		if na[i] {
			out[i] = math.NaN()
		} else {
			out[i] = v
		}
	}
	return column{dtype: "object", vals: out}
}

// numericColumn is lib.maybe_convert_numeric: numbers and numeric strings.
func numericColumn(vals []any, na []bool, nNA int) (column, bool) {
	out := make([]any, len(vals))
	float := nNA > 0
	for i, v := range vals {
		if na[i] {
			out[i] = math.NaN()
			continue
		}
		switch x := v.(type) {
		case int64:
			out[i] = x
		case float64:
			out[i], float = x, true
		case string:
			s := strings.TrimSpace(x)
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				out[i] = n
			} else if f, err := strconv.ParseFloat(s, 64); err == nil {
				out[i], float = f, true
			} else {
				return column{}, false
			}
		default:
			return column{}, false
		}
	}
	if !float {
		return column{dtype: "int64", vals: out}, true
	}
	for i, v := range out {
		if n, ok := v.(int64); ok {
			out[i] = float64(n)
		}
	}
	return column{dtype: "float64", vals: out}, true
}

// boolColumn is libops.maybe_convert_bool: bools and "True"/"FALSE"/... strings.
func boolColumn(vals []any) (column, bool) {
	out := make([]any, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case bool:
			out[i] = x
		case string:
			switch x {
			case "True", "TRUE", "true":
				out[i] = true
			case "False", "FALSE", "false":
				out[i] = false
			default:
				return column{}, false
			}
		default:
			return column{}, false
		}
	}
	return column{dtype: "bool", vals: out}, true
}

// round is DataFrame.round(decimals): numpy's rint(x·10^d)/10^d on float columns.
func (f *frame) round(decimals int) {
	p := math.Pow(10, float64(decimals))
	for _, c := range f.cols {
		if c.dtype != "float64" {
			continue
		}
		for i, v := range c.vals {
			x := v.(float64)
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				c.vals[i] = math.RoundToEven(x*p) / p
			}
		}
	}
}

// equals is DataFrame.equals: same shape and labels, each column of one dtype
// with equal values (NaN equal to NaN).
func (f *frame) equals(g *frame) (bool, string) {
	if len(f.cols) != len(g.cols) || f.rows != g.rows {
		return false, fmt.Sprintf("shape %dx%d, expected %dx%d", f.rows, len(f.cols), g.rows, len(g.cols))
	}
	for j := range f.cols {
		if !frameValueEqual(f.labels[j], g.labels[j]) {
			return false, fmt.Sprintf("column %d is %s, expected %s", j+1, PyStr(f.labels[j]), PyStr(g.labels[j]))
		}
	}
	for j, c := range f.cols {
		d := g.cols[j]
		if c.dtype != d.dtype {
			return false, fmt.Sprintf("column %s holds %s, expected %s", PyStr(f.labels[j]), c.dtype, d.dtype)
		}
		for i := range c.vals {
			if !frameValueEqual(c.vals[i], d.vals[i]) {
				return false, fmt.Sprintf("column %s row %d is %s, expected %s", PyStr(f.labels[j]), i+2, frameShow(c.vals[i]), frameShow(d.vals[i]))
			}
		}
	}
	return true, ""
}

// frameValueEqual is pandas' array_equivalent on one pair: NaN matches NaN,
// datetimes by instant, other values by Python's ==.
func frameValueEqual(a, b any) bool {
	fa, aNaN := a.(float64)
	fb, bNaN := b.(float64)
	if aNaN && bNaN && math.IsNaN(fa) && math.IsNaN(fb) {
		return true
	}
	ta, ok1 := a.(time.Time)
	tb, ok2 := b.(time.Time)
	if ok1 || ok2 {
		return ok1 && ok2 && ta.Equal(tb)
	}
	return PyEqual(a, b)
}

func frameShow(v any) string {
	if t, ok := v.(time.Time); ok {
		if t.IsZero() {
			return "NaT"
		}
		return t.Format("2006-01-02 15:04:05")
	}
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return PyStr(v)
}
