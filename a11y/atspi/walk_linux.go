package atspi

import (
	"cmp"
	"context"
	"fmt"
	"image"
	"slices"
	"sync/atomic"

	"github.com/godbus/dbus/v5"
)

// walker reads application trees for one Elements call. Its methods may run for
// several applications at once.
type walker struct {
	conn   *dbus.Conn
	o      Options
	caller context.Context // the caller's context: its end is cancellation
	ctx    context.Context // caller's context plus o.MaxTime: its end is "time up"
	budget atomic.Int64    // objects that may still be read
	bounds image.Rectangle // the display, root coordinates
}

// take reserves up to n objects of the budget and returns how many it got.
func (w *walker) take(n int) int {
	for {
		left := w.budget.Load()
		got := min(int64(n), max(left, 0))
		if w.budget.CompareAndSwap(left, left-got) {
			return int(got)
		}
	}
}

// appTree is one application as read.
type appTree struct {
	root  ref
	nodes []node
	index map[ref]int
	cut   []string
	big   bool // its cache held more objects than the budget
}

func (a *appTree) add(n node) int {
	a.nodes = append(a.nodes, n)
	a.index[n.ref] = len(a.nodes) - 1
	return len(a.nodes) - 1
}

// cacheItem is one element of org.a11y.atspi.Cache.GetItems' reply,
// a((so)(so)(so)iiassusau).
type cacheItem struct {
	Obj, App, Parent struct {
		Bus  string
		Path dbus.ObjectPath
	}
	Index, Count int32
	Ifaces       []string
	Name         string
	Role         uint32
	Desc         string
	States       []uint32
}

// states64 joins AT-SPI's two state words (low word first).
func states64(w []uint32) uint64 {
	var s uint64
	if len(w) > 0 {
		s = uint64(w[0])
	}
	if len(w) > 1 {
		s |= uint64(w[1]) << 32
	}
	return s
}

// fromCache reads an application with one Cache.GetItems call (asking for the
// application's bus address first if the cache is not served yet, which is what
// makes ATK's bridge serve it). ok is false when the application has no usable
// cache. The extents of the objects that may be visible are read too.
func (w *walker) fromCache(a *appTree) (ok bool, err error) {
	var items []cacheItem
	get := &dcall{bus: a.root.bus, path: cachePath, method: ifCache + ".GetItems", out: &items}
	if err := w.do([]*dcall{get}); err != nil {
		return false, err
	}
	if missing(get.err) {
		var addr string
		activate := &dcall{bus: a.root.bus, path: a.root.path, method: ifApplication + ".GetApplicationBusAddress", out: &addr}
		get.err = nil
		if err := w.do([]*dcall{activate, get}); err != nil {
			return false, err
		}
	}
	if get.err != nil {
		return false, nil
	}
	a.big = len(items) > w.o.MaxNodes
	a.add(node{ref: a.root, parent: -1})
	for _, it := range items {
		r := ref{it.Obj.Bus, string(it.Obj.Path)}
		if r.bus == "" {
			r.bus = a.root.bus
		}
		n := node{ref: r, parent: -1, role: it.Role, name: it.Name, desc: it.Desc,
			states: states64(it.States), ifaces: ifacesOf(it.Ifaces)}
		if r == a.root {
			a.nodes[0].name, a.nodes[0].role = n.name, n.role
			continue
		}
		if _, dup := a.index[r]; !dup {
			a.add(n)
		}
	}
	counts := w.linkCache(a, items)
	cands, partial := w.candidates(a, counts)
	if err := w.extents(a, cands); err != nil {
		return true, err
	}
	// ATK's cache leaves out the children of containers that manage their
	// descendants (GTK's tree views: the cells of a list): read those object by
	// object.
	pc, err := w.childCounts(a, partial, counts)
	if err != nil {
		return true, err
	}
	return true, w.descend(a, partial, pc)
}

// childCounts returns the child counts of the nodes listed, asking the
// application for those the cache gave as unknown (-1: menus, and containers that
// manage their descendants).
func (w *walker) childCounts(a *appTree, idx []int, cached []int32) ([]int32, error) {
	out := make([]int32, len(idx))
	vals := make([]dbus.Variant, len(idx))
	var calls []*dcall
	var asked []int
	for j, i := range idx {
		out[j] = cached[i]
		if out[j] < 0 {
			r := a.nodes[i].ref
			calls = append(calls, &dcall{bus: r.bus, path: r.path, method: ifProperties + ".Get",
				args: []any{ifAccessible, "ChildCount"}, out: &vals[j]})
			asked = append(asked, j)
		}
	}
	if err := w.do(calls); err != nil {
		return nil, err
	}
	for k, j := range asked {
		out[j] = 0
		if calls[k].err == nil {
			out[j], _ = vals[j].Value().(int32)
		}
	}
	return out, nil
}

// linkCache builds the children lists and depths of a cache read from the parent
// references, keeping siblings in index order, and returns each node's child count
// as the application reported it. Objects not reachable from the root (orphans, or
// loops of parents) are left unlinked and never visited.
func (w *walker) linkCache(a *appTree, items []cacheItem) []int32 {
	order := make([]int32, len(a.nodes))
	counts := make([]int32, len(a.nodes))
	for _, it := range items {
		r := ref{it.Obj.Bus, string(it.Obj.Path)}
		if r.bus == "" {
			r.bus = a.root.bus
		}
		i, ok := a.index[r]
		if !ok {
			continue
		}
		counts[i] = it.Count
		if i == 0 {
			continue
		}
		p, ok := a.index[ref{cmp.Or(it.Parent.Bus, a.root.bus), string(it.Parent.Path)}]
		if !ok || p == i {
			continue
		}
		a.nodes[i].parent = p
		a.nodes[p].kids = append(a.nodes[p].kids, i)
		order[i] = it.Index
	}
	for i := range a.nodes {
		slices.SortStableFunc(a.nodes[i].kids, func(x, y int) int { return cmp.Compare(order[x], order[y]) })
	}
	depth := make([]int, len(a.nodes))
	for i := range depth {
		depth[i] = -1
	}
	depth[0] = 0
	queue := []int{0}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		a.nodes[i].depth = depth[i]
		for _, k := range a.nodes[i].kids {
			if depth[k] < 0 {
				depth[k] = depth[i] + 1
				queue = append(queue, k)
			}
		}
	}
	return counts
}

// candidates lists, in tree order, the cached objects that may be visible: shown,
// under shown ancestors, with the Component interface, within MaxDepth. It takes
// them from the budget and notes a cut when the budget or the depth ran out.
// partial lists the shown ones with fewer children cached than they have.
func (w *walker) candidates(a *appTree, counts []int32) (out, partial []int) {
	depthCut := false
	stack := []int{0}
	seen := make([]bool, len(a.nodes))
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] || !a.nodes[i].shown() {
			continue
		}
		seen[i] = true
		if a.nodes[i].depth > 0 && a.nodes[i].ifaces&ifaceComponent != 0 {
			out = append(out, i)
		}
		if a.nodes[i].depth >= w.o.MaxDepth {
			depthCut = depthCut || len(a.nodes[i].kids) > 0
			continue
		}
		if c := int(counts[i]); c < 0 || c > len(a.nodes[i].kids) {
			partial = append(partial, i)
		}
		kids := a.nodes[i].kids
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, kids[k])
		}
	}
	if depthCut {
		a.cut = append(a.cut, fmt.Sprintf("depth limit %d reached", w.o.MaxDepth))
	}
	if got := w.take(len(out)); got < len(out) {
		a.cut = append(a.cut, fmt.Sprintf("node limit %d reached", w.o.MaxNodes))
		out = out[:got]
	}
	return out, partial
}

// extents reads the screen extents of the nodes listed.
func (w *walker) extents(a *appTree, idx []int) error {
	type rect struct{ X, Y, W, H int32 }
	outs := make([]rect, len(idx))
	calls := make([]*dcall, len(idx))
	for j, i := range idx {
		r := a.nodes[i].ref
		calls[j] = &dcall{bus: r.bus, path: r.path, method: ifComponentBus + ".GetExtents", args: []any{uint32(0)}, out: &outs[j]}
	}
	if err := w.do(calls); err != nil {
		return err
	}
	for j, i := range idx {
		if calls[j].err == nil {
			e := outs[j]
			a.nodes[i].ext, a.nodes[i].hasExt = extentsRect(e.X, e.Y, e.W, e.H)
		}
	}
	return nil
}
