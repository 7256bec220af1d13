package checks

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"deskpilot/internal/smallfile"
)

// This file reads xlsx workbooks the way openpyxl does for OSWorld's table
// metrics: cell values by their XML type (numbers as int when written without
// a point or exponent, dates by their number format, cached formula results as
// pandas reads them), sheets by workbook order, sheet views, styles.

// book is an open xlsx file.
type book struct {
	path   string
	z      *zip.Reader
	sheets []bookSheet // workbook order
	shared []string
	styles []cellStyle // by cellXfs index
	err    error       // a part that would not parse
}

type bookSheet struct {
	name, id, part string
}

// cellStyle is what a cellXfs entry says of a cell.
type cellStyle struct {
	numFmt string
	font   fontStyle
	fill   fillStyle
}

type fontStyle struct {
	name             string
	size             *float64
	bold, italic     bool
	underline, color *string
	hasName, hasFont bool
}

type fillStyle struct {
	tag         string // patternFill, gradientFill
	fg, bg      *string
	patternType string
}

// openBook opens an xlsx file; a file that is no zip or lacks its workbook is
// an error (openpyxl raises).
func openBook(p string) (*book, error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return nil, err
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	b := &book{path: p, z: z}
	if err := b.readWorkbook(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	b.readShared()
	b.readStyles()
	return b, nil
}

// part reads a member of the container, at most maxPart bytes.
func zipPart(z *zip.Reader, name string) ([]byte, error) {
	f, err := z.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPart+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPart {
		return nil, fmt.Errorf("%s: more than %d bytes unpacked", name, maxPart)
	}
	return data, nil
}

// xnode is a parsed XML element.
type xnode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []xnode    `xml:",any"`
	Text    string     `xml:",chardata"`
}

func parseXML(data []byte) (*xnode, error) {
	var n xnode
	if err := xml.Unmarshal(data, &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// attr returns the attribute with local name local (any namespace).
func (n *xnode) attr(local string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

func (n *xnode) attrNS(space, local string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value, true
		}
	}
	return "", false
}

// child returns the first child with local name local.
func (n *xnode) child(local string) *xnode {
	for i := range n.Nodes {
		if n.Nodes[i].XMLName.Local == local {
			return &n.Nodes[i]
		}
	}
	return nil
}

// all returns the descendants (n included) with local name local, in document order.
func (n *xnode) all(local string) []*xnode {
	var out []*xnode
	var walk func(x *xnode)
	walk = func(x *xnode) {
		if x.XMLName.Local == local {
			out = append(out, x)
		}
		for i := range x.Nodes {
			walk(&x.Nodes[i])
		}
	}
	walk(n)
	return out
}

const relNS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"

func (b *book) readWorkbook() error {
	data, err := zipPart(b.z, "xl/workbook.xml")
	if err != nil {
		return err
	}
	wb, err := parseXML(data)
	if err != nil {
		return err
	}
	rels := map[string]string{}
	if data, err := zipPart(b.z, "xl/_rels/workbook.xml.rels"); err == nil {
		if r, err := parseXML(data); err == nil {
			for _, rel := range r.all("Relationship") {
				id, _ := rel.attr("Id")
				t, _ := rel.attr("Target")
				rels[id] = t
			}
		}
	}
	for _, s := range wb.all("sheet") {
		name, _ := s.attr("name")
		id, _ := s.attr("sheetId")
		rid, _ := s.attrNS(relNS, "id")
		part := rels[rid]
		switch {
		case strings.HasPrefix(part, "/"):
			part = strings.TrimPrefix(part, "/")
		case part != "":
			part = path.Join("xl", part)
		}
		b.sheets = append(b.sheets, bookSheet{name: name, id: id, part: part})
	}
	return nil
}

func (b *book) readShared() {
	data, err := zipPart(b.z, "xl/sharedStrings.xml")
	if err != nil {
		return
	}
	sst, err := parseXML(data)
	if err != nil {
		b.err = err
		return
	}
	for i := range sst.Nodes {
		si := &sst.Nodes[i]
		if si.XMLName.Local != "si" {
			continue
		}
		var sb strings.Builder
		for _, t := range si.all("t") {
			sb.WriteString(t.Text)
		}
		b.shared = append(b.shared, sb.String())
	}
}

// sheetNames lists the sheets in workbook order.
func (b *book) sheetNames() []string {
	out := make([]string, len(b.sheets))
	for i, s := range b.sheets {
		out[i] = s.name
	}
	return out
}

func (b *book) sheet(name string) (bookSheet, bool) {
	for _, s := range b.sheets {
		if s.name == name {
			return s, true
		}
	}
	return bookSheet{}, false
}

// sheetXML parses a worksheet's part.
func (b *book) sheetXML(name string) (*xnode, error) {
	s, ok := b.sheet(name)
	if !ok {
		return nil, fmt.Errorf("worksheet %q does not exist", name)
	}
	data, err := zipPart(b.z, s.part)
	if err != nil {
		return nil, err
	}
	return parseXML(data)
}

// cellKind is a cell's type as openpyxl reads it.
type cellKind int

const (
	kEmpty cellKind = iota
	kInt
	kFloat
	kString
	kBool
	kDate
	kError
)

// cell is a value read from a worksheet.
type cell struct {
	kind  cellKind
	i     int64
	f     float64
	s     string
	b     bool
	t     time.Time
	style int
}

// py returns the cell as a Python value (a date as its ISO text).
func (c cell) py() any {
	switch c.kind {
	case kInt:
		return c.i
	case kFloat:
		return c.f
	case kString, kError:
		return c.s
	case kBool:
		return c.b
	case kDate:
		return c.t.Format("2006-01-02 15:04:05")
	}
	return nil
}

// grid is a worksheet's cells by (row, column), 1-based.
type grid struct {
	cells        map[[2]int]cell
	maxRow, maxC int
}

// readGrid reads a worksheet's cached values (openpyxl's data_only=True).
func (b *book) readGrid(name string) (*grid, error) {
	ws, err := b.sheetXML(name)
	if err != nil {
		return nil, err
	}
	g := &grid{cells: map[[2]int]cell{}}
	data := ws.child("sheetData")
	if data == nil {
		return g, nil
	}
	row := 0
	for i := range data.Nodes {
		r := &data.Nodes[i]
		if r.XMLName.Local != "row" {
			continue
		}
		if v, ok := r.attr("r"); ok {
			row, _ = strconv.Atoi(v)
		} else {
			row++
		}
		col := 0
		for j := range r.Nodes {
			c := &r.Nodes[j]
			if c.XMLName.Local != "c" {
				continue
			}
			if ref, ok := c.attr("r"); ok {
				if cc, rr, ok := splitRef(ref); ok {
					col, row = cc, rr
				}
			} else {
				col++
			}
			v := b.readCell(c)
			if v.kind == kEmpty {
				continue
			}
			g.cells[[2]int{row, col}] = v
			g.maxRow, g.maxC = max(g.maxRow, row), max(g.maxC, col)
		}
	}
	return g, nil
}

// readCell is openpyxl's parse_cell with data_only=True.
func (b *book) readCell(c *xnode) cell {
	t, _ := c.attr("t")
	st, _ := c.attr("s")
	out := cell{}
	out.style, _ = strconv.Atoi(st)
	vn := c.child("v")
	if t == "inlineStr" {
		if is := c.child("is"); is != nil {
			var sb strings.Builder
			for _, x := range is.all("t") {
				sb.WriteString(x.Text)
			}
			return cell{kind: kString, s: sb.String(), style: out.style}
		}
		return out
	}
	if vn == nil {
		return out
	}
	v := vn.Text
	switch t {
	case "", "n":
		if strings.ContainsAny(v, ".eE") {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				return out
			}
			out.kind, out.f = kFloat, f
		} else {
			i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return out
			}
			out.kind, out.i = kInt, i
		}
		if b.isDate(out.style) {
			f := out.f
			if out.kind == kInt {
				f = float64(out.i)
			}
			out.kind, out.t = kDate, excelDate(f)
		}
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(b.shared) {
			return out
		}
		out.kind, out.s = kString, b.shared[i]
	case "str":
		out.kind, out.s = kString, v
	case "b":
		out.kind, out.b = kBool, strings.TrimSpace(v) != "0"
	case "e":
		out.kind, out.s = kError, v
	case "d":
		tt, err := time.Parse("2006-01-02T15:04:05", strings.TrimSuffix(v, "Z"))
		if err != nil {
			return out
		}
		out.kind, out.t = kDate, tt
	}
	return out
}

// excelDate is openpyxl's from_excel in the 1900 system.
func excelDate(f float64) time.Time {
	base := time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	if f < 60 {
		base = base.AddDate(0, 0, 1)
	}
	days := math.Floor(f)
	frac := f - days
	us := math.Round(frac * 86400e6)
	return base.AddDate(0, 0, int(days)).Add(time.Duration(us) * time.Microsecond)
}

// isDate reports whether a cellXfs entry's number format shows a date, as
// openpyxl's is_date_format decides.
func (b *book) isDate(style int) bool {
	if style < 0 || style >= len(b.styles) {
		return false
	}
	return isDateFormat(b.styles[style].numFmt)
}

func isDateFormat(f string) bool {
	if f == "" || f == "General" {
		return false
	}
	// openpyxl drops quoted text, escapes and [..] brackets, then looks for date letters.
	f = regexp.MustCompile(`"[^"]*"|\\.|\[[^\]]*\]`).ReplaceAllString(f, "")
	return regexp.MustCompile(`(?i)[dmyhs]`).MatchString(strings.Split(f, ";")[0])
}

// builtinFormats are the number formats of the ids xlsx files may use without
// declaring them (openpyxl's BUILTIN_FORMATS).
func builtinFormat(id int) string {
	switch id {
	case 0:
		return "General"
	case 1:
		return "0"
	case 2:
		return "0.00"
	case 3:
		return "#,##0"
	case 4:
		return "#,##0.00"
	case 9:
		return "0%"
	case 10:
		return "0.00%"
	case 11:
		return "0.00E+00"
	case 12:
		return "# ?/?"
	case 13:
		return "# ??/??"
	case 14:
		return "mm-dd-yy"
	case 15:
		return "d-mmm-yy"
	case 16:
		return "d-mmm"
	case 17:
		return "mmm-yy"
	case 18:
		return "h:mm AM/PM"
	case 19:
		return "h:mm:ss AM/PM"
	case 20:
		return "h:mm"
	case 21:
		return "h:mm:ss"
	case 22:
		return "m/d/yy h:mm"
	case 37:
		return "#,##0 ;(#,##0)"
	case 38:
		return "#,##0 ;[Red](#,##0)"
	case 39:
		return "#,##0.00;(#,##0.00)"
	case 40:
		return "#,##0.00;[Red](#,##0.00)"
	case 45:
		return "mm:ss"
	case 46:
		return "[h]:mm:ss"
	case 47:
		return "mmss.0"
	case 48:
		return "##0.0E+0"
	case 49:
		return "@"
	}
	return "General"
}

func (b *book) readStyles() {
	data, err := zipPart(b.z, "xl/styles.xml")
	if err != nil {
		return
	}
	ss, err := parseXML(data)
	if err != nil {
		b.err = err
		return
	}
	fmts := map[int]string{}
	if nf := ss.child("numFmts"); nf != nil {
		for _, f := range nf.all("numFmt") {
			id, _ := f.attr("numFmtId")
			code, _ := f.attr("formatCode")
			n, _ := strconv.Atoi(id)
			fmts[n] = code
		}
	}
	var fonts []fontStyle
	if fs := ss.child("fonts"); fs != nil {
		for i := range fs.Nodes {
			if fs.Nodes[i].XMLName.Local == "font" {
				fonts = append(fonts, readFont(&fs.Nodes[i]))
			}
		}
	}
	var fills []fillStyle
	if fl := ss.child("fills"); fl != nil {
		for i := range fl.Nodes {
			if fl.Nodes[i].XMLName.Local == "fill" {
				fills = append(fills, readFill(&fl.Nodes[i]))
			}
		}
	}
	xfs := ss.child("cellXfs")
	if xfs == nil {
		return
	}
	for i := range xfs.Nodes {
		x := &xfs.Nodes[i]
		if x.XMLName.Local != "xf" {
			continue
		}
		var cs cellStyle
		id, _ := x.attr("numFmtId")
		n, _ := strconv.Atoi(id)
		if code, ok := fmts[n]; ok {
			cs.numFmt = code
		} else {
			cs.numFmt = builtinFormat(n)
		}
		if v, ok := x.attr("fontId"); ok {
			if k, err := strconv.Atoi(v); err == nil && k >= 0 && k < len(fonts) {
				cs.font = fonts[k]
			}
		} else if len(fonts) > 0 {
			cs.font = fonts[0]
		}
		if v, ok := x.attr("fillId"); ok {
			if k, err := strconv.Atoi(v); err == nil && k >= 0 && k < len(fills) {
				cs.fill = fills[k]
			}
		} else if len(fills) > 0 {
			cs.fill = fills[0]
		}
		b.styles = append(b.styles, cs)
	}
}

// colorRGB is openpyxl's Color.rgb: the rgb attribute, else (a theme, indexed
// or auto color) the descriptor openpyxl returns in place of a value, whose
// text is this message; two such colors are equal, as in openpyxl.
func colorRGB(n *xnode) *string {
	if n == nil {
		return nil
	}
	if v, ok := n.attr("rgb"); ok {
		return &v
	}
	s := "Values must be of type <class 'str'>"
	return &s
}

func readFont(n *xnode) fontStyle {
	f := fontStyle{hasFont: true}
	if x := n.child("name"); x != nil {
		f.name, _ = x.attr("val")
		f.hasName = true
	}
	if x := n.child("sz"); x != nil {
		v, _ := x.attr("val")
		if sz, err := strconv.ParseFloat(v, 64); err == nil {
			f.size = &sz
		}
	}
	boolProp := func(name string) bool {
		x := n.child(name)
		if x == nil {
			return false
		}
		v, ok := x.attr("val")
		return !ok || (v != "0" && v != "false")
	}
	f.bold, f.italic = boolProp("b"), boolProp("i")
	if x := n.child("u"); x != nil {
		v, ok := x.attr("val")
		if !ok {
			v = "single"
		}
		f.underline = &v
	}
	if x := n.child("color"); x != nil {
		f.color = colorRGB(x)
	}
	return f
}

func readFill(n *xnode) fillStyle {
	if g := n.child("gradientFill"); g != nil {
		return fillStyle{tag: "gradientFill"}
	}
	p := n.child("patternFill")
	if p == nil {
		return fillStyle{}
	}
	fs := fillStyle{tag: "patternFill"}
	fs.patternType, _ = p.attr("patternType")
	def := "00000000"
	fs.fg, fs.bg = &def, &def
	if c := p.child("fgColor"); c != nil {
		fs.fg = colorRGB(c)
	}
	if c := p.child("bgColor"); c != nil {
		fs.bg = colorRGB(c)
	}
	return fs
}

// splitRef reads a cell reference "AB12" as (column, row).
func splitRef(ref string) (col, row int, ok bool) {
	ref = strings.ReplaceAll(strings.ToUpper(ref), "$", "")
	i := 0
	for i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z' {
		col = col*26 + int(ref[i]-'A'+1)
		i++
	}
	if i == 0 || i == len(ref) || i > 3 {
		return 0, 0, false
	}
	row, err := strconv.Atoi(ref[i:])
	if err != nil || row < 1 {
		return 0, 0, false
	}
	return col, row, true
}

// colName is openpyxl's get_column_letter.
func colName(c int) string {
	s := ""
	for c > 0 {
		c--
		s = string(rune('A'+c%26)) + s
		c /= 26
	}
	return s
}

// rawCell is OSWorld's read_cell_value: the cell element's value by the XML
// alone (numbers as float, shared and formula strings as text, anything else
// None), from the part named after the sheet's sheetId.
func readCellValue(xlsxPath, sheetName, coordinate string) any {
	data, err := smallfile.Read(xlsxPath, maxDocFile)
	if err != nil {
		return nil
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil
	}
	b := &book{z: z}
	if b.readWorkbook() != nil {
		return nil
	}
	b.readShared()
	s, ok := b.sheet(sheetName)
	if !ok {
		return nil
	}
	part, err := zipPart(z, "xl/worksheets/sheet"+s.id+".xml")
	if err != nil {
		return nil
	}
	ws, err := parseXML(part)
	if err != nil {
		return nil
	}
	for _, c := range ws.all("c") {
		if r, _ := c.attr("r"); r != coordinate {
			continue
		}
		t, hasT := c.attr("t")
		v := c.child("v")
		switch {
		case !hasT || t == "n":
			if v == nil {
				return nil
			}
			f, ok := PyFloat(v.Text)
			if !ok {
				return nil
			}
			return f
		case t == "s":
			if v == nil {
				return nil
			}
			i, err := strconv.Atoi(strings.TrimSpace(v.Text))
			if err != nil || i < 0 || i >= len(b.shared) {
				return nil
			}
			return b.shared[i]
		case t == "str":
			if v == nil {
				return nil
			}
			return v.Text
		}
		return nil
	}
	return nil
}
