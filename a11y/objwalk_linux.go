package a11y

import (
	"fmt"

	"github.com/godbus/dbus/v5"
)

// objRef is an object reference as AT-SPI sends it, (so).
type objRef struct {
	Bus  string
	Path dbus.ObjectPath
}

// fromObjects reads an application object by object, breadth first: per level one
// pipelined round for role, states, properties, interfaces and extents, and one for
// the children of the shown objects. Hidden subtrees are not entered; an object
// already read (a cycle) is not read again; MaxDepth and the node budget cut it.
func (w *walker) fromObjects(a *appTree) error {
	if w.take(1) == 0 {
		a.cut = append(a.cut, fmt.Sprintf("node limit %d reached", w.o.MaxNodes))
		return nil
	}
	level := []int{a.add(node{ref: a.root, parent: -1})}
	counts, err := w.readLevel(a, level)
	if err != nil {
		return err
	}
	return w.descend(a, level, counts)
}

// descend reads, level by level, the subtrees below the nodes of level, whose
// fields are read already and whose child counts are counts.
func (w *walker) descend(a *appTree, level []int, counts []int32) error {
	for len(level) > 0 {
		var err error
		if level, err = w.nextLevel(a, level, counts); err != nil || len(level) == 0 {
			return err
		}
		if counts, err = w.readLevel(a, level); err != nil {
			return err
		}
	}
	return nil
}

// readLevel reads the fields of the nodes of one level; it returns their child
// counts.
func (w *walker) readLevel(a *appTree, level []int) ([]int32, error) {
	type fields struct {
		role   uint32
		states []uint32
		props  map[string]dbus.Variant
		ifaces []string
		ext    struct{ X, Y, W, H int32 }
	}
	fs := make([]fields, len(level))
	calls := make([]*dcall, 0, 5*len(level))
	for j, i := range level {
		r, f := a.nodes[i].ref, &fs[j]
		calls = append(calls,
			&dcall{bus: r.bus, path: r.path, method: ifAccessible + ".GetRole", out: &f.role},
			&dcall{bus: r.bus, path: r.path, method: ifAccessible + ".GetState", out: &f.states},
			&dcall{bus: r.bus, path: r.path, method: ifProperties + ".GetAll", args: []any{ifAccessible}, out: &f.props},
			&dcall{bus: r.bus, path: r.path, method: ifAccessible + ".GetInterfaces", out: &f.ifaces},
			&dcall{bus: r.bus, path: r.path, method: ifComponentBus + ".GetExtents", args: []any{uint32(0)}, out: &f.ext})
	}
	if err := w.do(calls); err != nil {
		return nil, err
	}
	counts := make([]int32, len(level))
	for j, i := range level {
		n, f := &a.nodes[i], &fs[j]
		if calls[5*j].err != nil || calls[5*j+1].err != nil {
			n.states = 0 // gone or broken: treated as hidden
			if n.depth > 0 {
				continue
			}
		}
		n.role, n.states, n.ifaces = f.role, states64(f.states), ifacesOf(f.ifaces)
		n.name, _ = f.props["Name"].Value().(string)
		n.desc, _ = f.props["Description"].Value().(string)
		counts[j], _ = f.props["ChildCount"].Value().(int32)
		if calls[5*j+4].err == nil {
			n.ext, n.hasExt = extentsRect(f.ext.X, f.ext.Y, f.ext.W, f.ext.H)
		}
	}
	return counts, nil
}

// nextLevel reads the children of the shown nodes of a level and adds the new ones
// to the tree. A child count beyond the budget left is read index by index, so a
// container claiming a million children costs only what the budget allows.
func (w *walker) nextLevel(a *appTree, level []int, counts []int32) ([]int, error) {
	type want struct {
		parent int
		got    int
		list   *[]objRef
		one    []*objRef
	}
	var wants []want
	var calls []*dcall
	cutNodes, cutDepth := false, false
	for j, i := range level {
		n := &a.nodes[i]
		count := int(counts[j])
		if !n.shown() || count <= 0 {
			continue
		}
		if n.depth >= w.o.MaxDepth {
			cutDepth = true
			continue
		}
		got := w.take(count)
		if got < count {
			cutNodes = true
		}
		if got == 0 {
			continue
		}
		wt := want{parent: i, got: got}
		if got == count {
			wt.list = new([]objRef)
			calls = append(calls, &dcall{bus: n.ref.bus, path: n.ref.path, method: ifAccessible + ".GetChildren", out: wt.list})
		} else {
			for k := range got {
				o := new(objRef)
				wt.one = append(wt.one, o)
				calls = append(calls, &dcall{bus: n.ref.bus, path: n.ref.path, method: ifAccessible + ".GetChildAtIndex", args: []any{int32(k)}, out: o})
			}
		}
		wants = append(wants, wt)
	}
	if err := w.do(calls); err != nil {
		return nil, err
	}
	var next []int
	cycle := false
	for _, wt := range wants {
		kids := wt.one
		if wt.list != nil {
			for k := range *wt.list {
				kids = append(kids, &(*wt.list)[k])
			}
		}
		p := &a.nodes[wt.parent]
		for _, k := range kids[:min(len(kids), wt.got)] {
			r := ref{k.Bus, string(k.Path)}
			if r.bus == "" || r.path == "" || r.path == "/org/a11y/atspi/null" {
				continue
			}
			if j, seen := a.index[r]; seen {
				// A child the cache had already is no news; any other object
				// met again means the tree loops.
				cycle = cycle || a.nodes[j].parent != wt.parent
				continue
			}
			i := a.add(node{ref: r, parent: wt.parent, depth: p.depth + 1})
			p = &a.nodes[wt.parent] // add may have moved the slice
			p.kids = append(p.kids, i)
			next = append(next, i)
		}
	}
	if cutNodes {
		a.cut = append(a.cut, fmt.Sprintf("node limit %d reached", w.o.MaxNodes))
	}
	if cutDepth {
		a.cut = append(a.cut, fmt.Sprintf("depth limit %d reached", w.o.MaxDepth))
	}
	if cycle {
		a.cut = append(a.cut, "an object appeared twice in the tree (a cycle); it was read once")
	}
	return next, nil
}
