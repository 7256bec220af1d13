package atspi

import (
	"image"

	"github.com/godbus/dbus/v5"
)

// gridMin is the child count above which a table that manages its descendants is
// read by rows in view rather than child by child.
const gridMin = 64

const ifTableBus = "org.a11y.atspi.Table"

// gridKids reads the children of a large table that manages its descendants (a
// GTK tree view: a file chooser's list holds thousands of cells, all "showing", and
// the ones scrolled away have no position) as a person sees it: the column headers
// and the rows in view. ok is false when the table does not answer as a table (the
// caller then reads children the plain way). The cells read are taken from the
// budget.
func (w *walker) gridKids(a *appTree, wt *kidsWant) (ok bool, err error) {
	n := a.nodes[wt.parent]
	clip := clipAt(a.nodes, wt.parent, w.bounds)
	var props map[string]dbus.Variant
	get := &dcall{bus: n.ref.bus, path: n.ref.path, method: ifProperties + ".GetAll", args: []any{ifTableBus}, out: &props}
	if err := w.do([]*dcall{get}); err != nil || get.err != nil {
		return false, err
	}
	rows, _ := props["NRows"].Value().(int32)
	cols, _ := props["NColumns"].Value().(int32)
	if rows <= 0 || cols <= 0 || cols > 256 {
		return false, nil
	}
	if clip.Empty() {
		return true, nil // nothing of it is in view
	}
	first, last, err := w.rowsInView(n.ref, int(rows), clip)
	if err != nil {
		return false, err
	}
	want := (last-first)*int(cols) + int(cols)
	got := w.take(want)
	wt.got = got
	refs := make([]objRef, want)
	calls := make([]*dcall, 0, want)
	for c := range int(cols) {
		calls = append(calls, &dcall{bus: n.ref.bus, path: n.ref.path, method: ifTableBus + ".GetColumnHeader",
			args: []any{int32(c)}, out: &refs[len(calls)]})
	}
	for r := first; r < last; r++ {
		for c := range int(cols) {
			calls = append(calls, &dcall{bus: n.ref.bus, path: n.ref.path, method: ifTableBus + ".GetAccessibleAt",
				args: []any{int32(r), int32(c)}, out: &refs[len(calls)]})
		}
	}
	calls = calls[:got]
	if err := w.do(calls); err != nil {
		return false, err
	}
	for k, c := range calls {
		if c.err == nil {
			wt.kids = append(wt.kids, refs[k])
		}
	}
	return true, nil
}

// rowsInView returns the rows [first, last) of a table that may show within clip.
// It asks the table for the cell at points in the view, reads that cell's row and
// extents, and counts how many rows of that height fit above and below it (plus
// one either side). Without any cell in view it takes the first rows that could
// fit.
func (w *walker) rowsInView(table ref, rows int, clip image.Rectangle) (first, last int, err error) {
	x := clip.Min.X + min(24, clip.Dx()/2)
	ys := []int{clip.Min.Y + clip.Dy()/2, clip.Min.Y + clip.Dy()/4, clip.Min.Y + min(40, clip.Dy()-1)}
	cells := make([]objRef, len(ys))
	calls := make([]*dcall, len(ys))
	for k, y := range ys {
		calls[k] = &dcall{bus: table.bus, path: table.path, method: ifComponentBus + ".GetAccessibleAtPoint",
			args: []any{int32(x), int32(y), uint32(0)}, out: &cells[k]}
	}
	if err := w.do(calls); err != nil {
		return 0, 0, err
	}
	type probe struct {
		ok                         bool
		row, col, rowSpan, colSpan int32
		index                      int32
		ext                        struct{ X, Y, W, H int32 }
		span, idx, extc            *dcall
	}
	var probes []*probe
	var more []*dcall
	for k, c := range cells {
		if calls[k].err != nil || c.Bus == "" || c.Path == "/org/a11y/atspi/null" || (c.Bus == table.bus && string(c.Path) == table.path) {
			continue
		}
		p := &probe{}
		p.span = &dcall{bus: c.Bus, path: string(c.Path), method: "org.a11y.atspi.TableCell.GetRowColumnSpan",
			out: []any{&p.ok, &p.row, &p.col, &p.rowSpan, &p.colSpan}}
		p.idx = &dcall{bus: c.Bus, path: string(c.Path), method: ifAccessible + ".GetIndexInParent", out: &p.index}
		p.extc = &dcall{bus: c.Bus, path: string(c.Path), method: ifComponentBus + ".GetExtents", args: []any{uint32(0)}, out: &p.ext}
		probes = append(probes, p)
		more = append(more, p.span, p.idx, p.extc)
	}
	if err := w.do(more); err != nil {
		return 0, 0, err
	}
	// Toolkits without TableCell (GTK 3) still map a child index to its row.
	more = more[:0]
	for _, p := range probes {
		if (p.span.err != nil || !p.ok) && p.idx.err == nil && p.index >= 0 {
			p.span = &dcall{bus: table.bus, path: table.path, method: ifTableBus + ".GetRowAtIndex", args: []any{p.index}, out: &p.row}
			p.ok = true
			more = append(more, p.span)
		}
	}
	if err := w.do(more); err != nil {
		return 0, 0, err
	}
	for _, p := range probes {
		e, ok := extentsRect(p.ext.X, p.ext.Y, p.ext.W, p.ext.H)
		if p.span.err != nil || p.extc.err != nil || !p.ok || !ok || p.row < 0 || int(p.row) >= rows {
			continue
		}
		h := max(e.Dy(), 1)
		first = max(0, int(p.row)-(e.Min.Y-clip.Min.Y)/h-1)
		last = min(rows, int(p.row)+(clip.Max.Y-e.Max.Y)/h+2)
		return first, last, nil
	}
	return 0, min(rows, clip.Dy()/8+1), nil
}
