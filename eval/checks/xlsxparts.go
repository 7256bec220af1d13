package checks

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
)

// This file reads the parts of a workbook compare_table's rules look at
// beyond the cells: cell styles, charts and pivot tables, as openpyxl gives
// them.

// rawCell is a worksheet's cell element as openpyxl (data_only=False) sees
// it: whether it has a value and its data type.
func (b *book) rawCell(sheet, coord string) (*xnode, error) {
	ws, err := b.sheetXML(sheet)
	if err != nil {
		return nil, err
	}
	for _, c := range ws.all("c") {
		if r, _ := c.attr("r"); strings.EqualFold(r, coord) {
			return c, nil
		}
	}
	return nil, nil
}

// cellStyle is OSWorld's _read_cell_style for a cell of sheet.
func (b *book) cellStyle(sheet, coord, prop string) (any, error) {
	c, err := b.rawCell(sheet, coord)
	if err != nil {
		return nil, err
	}
	hasValue, dataType, style := false, "n", 0
	if c != nil {
		t, _ := c.attr("t")
		s, _ := c.attr("s")
		style, _ = strconv.Atoi(s)
		hasValue = c.child("v") != nil || c.child("f") != nil || c.child("is") != nil
		switch {
		case c.child("f") != nil:
			dataType = "f"
		case t == "s" || t == "str" || t == "inlineStr":
			dataType = "s"
		case t == "b" || t == "e":
			dataType = t
		case b.isDate(style):
			dataType = "d"
		}
	}
	var cs cellStyle
	if style >= 0 && style < len(b.styles) {
		cs = b.styles[style]
	}
	str := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	switch prop {
	case "number_format":
		if hasValue && dataType == "n" {
			return cs.numFmt, nil
		}
		return nil, nil
	case "font_name", "font_color", "font_bold", "font_italic", "font_underline", "font_size":
		if !hasValue {
			return nil, nil
		}
		f := cs.font
		switch prop {
		case "font_name":
			if !f.hasName {
				return nil, nil
			}
			return f.name, nil
		case "font_color":
			if f.color == nil {
				return nil, errors.New("'NoneType' object has no attribute 'rgb' (the font has no color)")
			}
			return *f.color, nil
		case "font_bold":
			return f.bold, nil
		case "font_italic":
			return f.italic, nil
		case "font_underline":
			return str(f.underline), nil
		default:
			if f.size == nil {
				return nil, nil
			}
			return *f.size, nil
		}
	case "fill_type":
		if cs.fill.tag == "" {
			return nil, nil
		}
		return cs.fill.tag, nil
	case "bgcolor":
		return str(cs.fill.bg), nil
	case "fgcolor":
		return str(cs.fill.fg), nil
	}
	return nil, fmt.Errorf("unsupported style: %s", prop)
}

// parts checks a rule over charts, pivot tables or styles of two sheets.
func (t *tableCall) parts(typ string, r map[string]any) (bool, string, error) {
	load := func(idx any) (any, error) {
		e, name, err := t.sheetIdx(idx)
		if err != nil {
			return nil, err
		}
		_, b, err := t.side(e)
		if err != nil {
			return nil, err
		}
		if _, ok := b.sheet(name); !ok {
			return map[string]any{}, nil // openpyxl's KeyError gives {}
		}
		switch typ {
		case "chart":
			props, _ := strList(r["chart_props"], "chart_props")
			return b.charts(name, props)
		case "pivot_table":
			props, _ := strList(r["pivot_props"], "pivot_props")
			return b.pivots(name, props)
		case "style":
			props, _ := strList(r["props"], "props")
			return b.styleMap(name, props)
		}
		return nil, fmt.Errorf("the %s check is not implemented here", typ)
	}
	a, err := load(r["sheet_idx0"])
	if err != nil {
		return false, "", err
	}
	b, err := load(r["sheet_idx1"])
	if err != nil {
		return false, "", err
	}
	if PyEqual(a, b) {
		return true, "", nil
	}
	return false, fmt.Sprintf("%s differ: %s vs %s", typ, show(a), show(b)), nil
}

// relsOf reads the relationships of a part: id → target path in the zip.
func relsOf(b *book, part string) map[string]string {
	dir, file := path.Split(part)
	data, err := zipPart(b.z, dir+"_rels/"+file+".rels")
	if err != nil {
		return nil
	}
	r, err := parseXML(data)
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, rel := range r.all("Relationship") {
		id, _ := rel.attr("Id")
		tg, _ := rel.attr("Target")
		if strings.HasPrefix(tg, "/") {
			out[id] = strings.TrimPrefix(tg, "/")
		} else {
			out[id] = path.Clean(path.Join(dir, tg))
		}
	}
	return out
}

// sheetRelated lists the parts a worksheet links to through elem (drawing,
// pivot tables).
func (b *book) sheetRelated(sheet, relType string) []string {
	s, _ := b.sheet(sheet)
	dir, file := path.Split(s.part)
	data, err := zipPart(b.z, dir+"_rels/"+file+".rels")
	if err != nil {
		return nil
	}
	r, err := parseXML(data)
	if err != nil {
		return nil
	}
	var out []string
	for _, rel := range r.all("Relationship") {
		ty, _ := rel.attr("Type")
		if !strings.HasSuffix(ty, "/"+relType) {
			continue
		}
		tg, _ := rel.attr("Target")
		out = append(out, path.Clean(path.Join(dir, tg)))
	}
	return out
}

// charts is OSWorld's load_charts: each chart by its series' references
// ("values,categories;..."), with the properties asked for.
func (b *book) charts(sheet string, props []string) (map[string]any, error) {
	out := map[string]any{}
	for _, drawing := range b.sheetRelated(sheet, "drawing") {
		rels := relsOf(b, drawing)
		data, err := zipPart(b.z, drawing)
		if err != nil {
			continue
		}
		d, err := parseXML(data)
		if err != nil {
			return nil, err
		}
		for _, ch := range d.all("chart") {
			id, ok := ch.attrNS(relNS, "id")
			if !ok {
				continue
			}
			cdata, err := zipPart(b.z, rels[id])
			if err != nil {
				continue
			}
			cs, err := parseXML(cdata)
			if err != nil {
				return nil, err
			}
			key, info := chartInfo(cs, props)
			out[key] = info
		}
	}
	return out, nil
}

// chartTypes are the plot elements openpyxl reads as charts.
func chartTypes() []string {
	return []string{"areaChart", "area3DChart", "lineChart", "line3DChart", "stockChart", "radarChart",
		"scatterChart", "pieChart", "pie3DChart", "doughnutChart", "barChart", "bar3DChart", "ofPieChart",
		"surfaceChart", "surface3DChart", "bubbleChart"}
}

func chartInfo(cs *xnode, props []string) (string, map[string]any) {
	var plot *xnode
	if pa := cs.all("plotArea"); len(pa) > 0 {
		for i := range pa[0].Nodes {
			if slices.Contains(chartTypes(), pa[0].Nodes[i].XMLName.Local) {
				plot = &pa[0].Nodes[i]
				break
			}
		}
	}
	var series []string
	if plot != nil {
		for _, ser := range plot.all("ser") {
			ref := func(name string) string {
				n := ser.child(name)
				if n == nil {
					return ""
				}
				for _, r := range []string{"numRef", "strRef"} {
					if x := n.child(r); x != nil {
						if f := x.child("f"); f != nil {
							return f.Text
						}
					}
				}
				return ""
			}
			val, cat := ref("val"), ref("cat")
			if val == "" {
				val = ref("yVal")
			}
			if cat == "" {
				cat = ref("xVal")
			}
			series = append(series, val+","+cat)
		}
	}
	title := func(n *xnode) any {
		if n == nil {
			return nil
		}
		t := n.child("title")
		if t == nil {
			return nil
		}
		if rs := t.all("r"); len(rs) > 0 {
			if tt := rs[0].child("t"); tt != nil {
				return tt.Text
			}
		}
		return nil
	}
	info := map[string]any{}
	chart := cs.child("chart")
	for _, p := range props {
		switch p {
		case "title":
			info["title"] = title(chart)
		case "legend":
			info["legend"] = nil
			if chart != nil {
				if l := chart.child("legend"); l != nil {
					info["legend"] = "r"
					if lp := l.child("legendPos"); lp != nil {
						v, _ := lp.attr("val")
						info["legend"] = v
					}
				}
			}
		case "type":
			if plot != nil {
				info["type"] = plot.XMLName.Local
			} else {
				info["type"] = nil
			}
		case "direction":
			info["direction"] = nil
			if plot != nil {
				if bd := plot.child("barDir"); bd != nil {
					v, _ := bd.attr("val")
					info["direction"] = v
				}
			}
		case "xtitle", "ytitle", "ztitle":
			info[p] = axisTitle(plot, cs, p)
		}
	}
	return strings.Join(series, ";"), info
}

// axisTitle is the title of openpyxl's x_axis (the first category or date
// axis, else values), y_axis (values) or z_axis (series).
func axisTitle(_ *xnode, cs *xnode, which string) any {
	pa := cs.all("plotArea")
	if len(pa) == 0 {
		return nil
	}
	names := map[string][]string{"xtitle": {"catAx", "dateAx"}, "ytitle": {"valAx"}, "ztitle": {"serAx"}}[which]
	for _, n := range names {
		if ax := pa[0].child(n); ax != nil {
			if t := ax.child("title"); t != nil {
				if rs := t.all("r"); len(rs) > 0 {
					if tt := rs[0].child("t"); tt != nil {
						return tt.Text
					}
				}
			}
			return nil
		}
	}
	return nil
}

// pivots is OSWorld's load_pivot_tables for the properties the tasks use:
// col_fields, row_fields, data_fields, filter, name, location and the show_*
// flags; each pivot keyed by its cache source.
func (b *book) pivots(sheet string, props []string) (map[string]any, error) {
	out := map[string]any{}
	for _, part := range b.sheetRelated(sheet, "pivotTable") {
		data, err := zipPart(b.z, part)
		if err != nil {
			continue
		}
		pt, err := parseXML(data)
		if err != nil {
			return nil, err
		}
		// Field selections, trimmed of empty fields at both ends.
		var sel [][]any
		if pf := pt.child("pivotFields"); pf != nil {
			for i := range pf.Nodes {
				f := &pf.Nodes[i]
				if f.XMLName.Local != "pivotField" {
					continue
				}
				var items []any
				if it := f.child("items"); it != nil {
					for _, x := range it.all("item") {
						xv, ok := x.attr("x")
						if !ok {
							continue
						}
						var h any
						if hv, ok := x.attr("h"); ok {
							h = hv == "1" || hv == "true"
						}
						xi, _ := strconv.Atoi(xv)
						items = append(items, []any{h, int64(xi)})
					}
				}
				sel = append(sel, items)
			}
		}
		left := 0
		for left < len(sel) && len(sel[left]) == 0 {
			left++
		}
		right := len(sel)
		for right > left && len(sel[right-1]) == 0 {
			right--
		}
		rightBias := len(sel) - right
		source, err := b.pivotSource(part, left, rightBias)
		if err != nil {
			return nil, err
		}
		info := map[string]any{}
		fieldIdx := func(name, attr string, bias int) []any {
			var l []any
			if n := pt.child(name); n != nil {
				for i := range n.Nodes {
					v, ok := n.Nodes[i].attr(attr)
					if !ok {
						continue
					}
					x, _ := strconv.Atoi(v)
					l = append(l, int64(x-bias))
				}
			}
			return l
		}
		attr := func(k string) any {
			v, ok := pt.attr(k)
			if !ok {
				return nil
			}
			return v
		}
		for _, p := range props {
			switch p {
			case "name":
				info["name"] = attr("name")
			case "show_total":
				info["show_total"] = attr("visualTotals")
			case "show_empty_row":
				info["show_empty_row"] = attr("showEmptyRow")
			case "show_empty_col":
				info["show_empty_col"] = attr("showEmptyCol")
			case "show_headers":
				info["show_headers"] = attr("showHeaders")
			case "location":
				if l := pt.child("location"); l != nil {
					v, _ := l.attr("ref")
					info["location"] = v
				}
			case "filter", "selection":
				info["selection"] = selectionSets(sel[left:right], slices.Contains(props, "ordered"))
				if p == "filter" {
					info["filter_fields"] = sortedSet(fieldIdx("pageFields", "fld", 0))
				}
			case "col_fields":
				info["col_fields"] = orEmpty(fieldIdx("colFields", "x", left))
			case "row_fields":
				info["row_fields"] = orEmpty(fieldIdx("rowFields", "x", left))
			case "data_fields":
				var l []any
				if n := pt.child("dataFields"); n != nil {
					for i := range n.Nodes {
						f := &n.Nodes[i]
						fld, _ := f.attr("fld")
						x, _ := strconv.Atoi(fld)
						name := ""
						if slices.Contains(props, "data_fields_name") {
							name, _ = f.attr("name")
						}
						sub, ok := f.attr("subtotal")
						if !ok {
							sub = "sum"
						}
						show, ok := f.attr("showDataAs")
						if !ok {
							show = "normal"
						}
						l = append(l, fmt.Sprintf("%d;%s;%s;%s", x-left, name, sub, show))
					}
				}
				info["data_fields"] = orEmpty(l)
			}
		}
		out[source] = info
	}
	return out, nil
}

func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// selectionSets turns the per-field selections into what OSWorld compares:
// a list of sets (here sorted lists) or, with "ordered", of lists.
func selectionSets(sel [][]any, ordered bool) []any {
	out := make([]any, len(sel))
	for i, s := range sel {
		if ordered {
			out[i] = orEmpty(s)
		} else {
			out[i] = sortedSet(s)
		}
	}
	return out
}

// sortedSet is a Python set rendered as a sorted list without duplicates, so
// two sets compare equal exactly when their members do.
func sortedSet(l []any) []any {
	keys := map[string]any{}
	for _, x := range l {
		keys[PyStr(x)] = x
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	out := make([]any, len(names))
	for i, k := range names {
		out[i] = keys[k]
	}
	return out
}

// pivotSource is the pivot's cache source as OSWorld keys it:
// "worksheet;(r1, c1):(r2, c2);Sheet", the columns narrowed by the empty
// fields at both ends.
func (b *book) pivotSource(pivotPart string, left, right int) (string, error) {
	rels := relsOf(b, pivotPart)
	var cachePart string
	for _, t := range rels {
		if strings.Contains(t, "pivotCacheDefinition") {
			cachePart = t
		}
	}
	data, err := zipPart(b.z, cachePart)
	if err != nil {
		return "", fmt.Errorf("pivot cache: %w", err)
	}
	cd, err := parseXML(data)
	if err != nil {
		return "", err
	}
	cs := cd.child("cacheSource")
	if cs == nil {
		return "", errors.New("pivot cache without a source")
	}
	typ, _ := cs.attr("type")
	ws := cs.child("worksheetSource")
	if ws == nil {
		return "", errors.New("pivot cache without a worksheet source")
	}
	ref, _ := ws.attr("ref")
	sheet, _ := ws.attr("sheet")
	a, bb, _ := strings.Cut(ref, ":")
	c1, r1, ok1 := splitRef(a)
	c2, r2, ok2 := splitRef(bb)
	if !ok1 || !ok2 {
		return "", fmt.Errorf("pivot source %q is not a range", ref)
	}
	return fmt.Sprintf("%s;(%d, %d):(%d, %d);%s", typ, r1, c1+left, r2, c2-right, sheet), nil
}

// styleMap is OSWorld's load_xlsx_styles without conditional formats: each
// cell of the sheet's used area with the style properties asked for.
func (b *book) styleMap(sheet string, props []string) (map[string]any, error) {
	ws, err := b.sheetXML(sheet)
	if err != nil {
		return nil, err
	}
	if cf := ws.all("conditionalFormatting"); len(cf) > 0 {
		return nil, errors.New("conditional formats need OSWorld's formula evaluator, which is not implemented here")
	}
	g, err := b.readGrid(sheet)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for c := 1; c <= max(g.maxC, 1); c++ {
		for r := 1; r <= max(g.maxRow, 1); r++ {
			coord := fmt.Sprintf("%s%d", colName(c), r)
			var l []any
			for _, p := range props {
				v, err := b.cellStyle(sheet, coord, p)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			out[coord] = orEmpty(l)
		}
	}
	return out, nil
}
