package atspi

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
// container claiming a million children costs only what the budget allows. A
// container that manages its descendants (a list or table view) is asked only for
// its showing children, with one Collection.GetMatches call.
func (w *walker) nextLevel(a *appTree, level []int, counts []int32) ([]int, error) {
	var wants []*kidsWant
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
		managed := n.has(stateManages)
		wt := &kidsWant{parent: i, count: count,
			grid:    managed && n.ifaces&ifaceTable != 0 && count > gridMin,
			showing: managed && n.ifaces&ifaceCollection != 0}
		if wt.grid || wt.showing {
			// Only the showing children count against the budget, once known.
			wt.got = min(count, int(max(w.budget.Load(), 0)))
		} else {
			wt.got = w.take(count)
		}
		cutNodes = cutNodes || wt.got < count
		if wt.got > 0 {
			wants = append(wants, wt)
		}
	}
	if err := w.readKids(a, wants); err != nil {
		return nil, err
	}
	var next []int
	cycle := false
	for _, wt := range wants {
		for _, k := range wt.kids[:min(len(wt.kids), wt.got)] {
			r := ref{k.Bus, string(k.Path)}
			if r.bus == "" || r.path == "" || r.path == "/org/a11y/atspi/null" {
				continue
			}
			if j, seen := a.index[r]; seen {
				// A child read already (from the cache, or shared by two
				// parents) is no news; an ancestor met again is a loop.
				cycle = cycle || isAncestor(a.nodes, j, wt.parent)
				continue
			}
			i := a.add(node{ref: r, parent: wt.parent, depth: a.nodes[wt.parent].depth + 1})
			a.nodes[wt.parent].kids = append(a.nodes[wt.parent].kids, i)
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

// kidsWant asks for the children of one node.
type kidsWant struct {
	parent  int
	count   int  // its child count
	got     int  // how many the budget allows
	showing bool // ask only for the showing ones (Collection.GetMatches)
	grid    bool // a large table: ask only for the rows in view (gridKids)
	kids    []objRef
}

// matchRule is a Collection match rule "states showing and visible", the
// D-Bus (aiia{ss}iaiiasib): state bit set, ALL; no attributes, roles or interfaces
// (empty sets match); not inverted.
type matchRule struct {
	States     []int32
	StateMatch int32
	Attrs      map[string]string
	AttrMatch  int32
	Roles      []int32
	RoleMatch  int32
	Ifaces     []string
	IfaceMatch int32
	Invert     bool
}

const (
	matchAll      = 1 // ATSPI_Collection_MATCH_ALL
	sortCanonical = 1 // ATSPI_Collection_SORT_ORDER_CANONICAL
)

// readKids reads the children wanted: the rows in view of large tables (gridKids),
// the showing children of other containers that manage their descendants
// (Collection.GetMatches), and the plain way for the rest and for containers that
// refuse those.
func (w *walker) readKids(a *appTree, wants []*kidsWant) error {
	for _, wt := range wants {
		if !wt.grid {
			continue
		}
		ok, err := w.gridKids(a, wt)
		if err != nil {
			return err
		}
		if ok {
			wt.showing = false
			continue
		}
		wt.grid = false
		if !wt.showing {
			wt.got = w.take(wt.got)
		}
	}
	if err := w.showingKids(a, wants); err != nil {
		return err
	}
	return w.plainKids(a, wants)
}

// showingKids asks the containers marked showing for their showing children with
// one Collection.GetMatches each; the children returned are taken from the budget.
// A container that refuses is unmarked, for plainKids.
func (w *walker) showingKids(a *appTree, wants []*kidsWant) error {
	rule := matchRule{
		States:     []int32{1<<stateShowing | 1<<stateVisible, 0},
		StateMatch: matchAll, Attrs: map[string]string{}, AttrMatch: matchAll,
		Roles: []int32{}, RoleMatch: matchAll, Ifaces: []string{}, IfaceMatch: matchAll,
	}
	var calls []*dcall
	var asked []*kidsWant
	for _, wt := range wants {
		if wt.showing && !wt.grid {
			r := a.nodes[wt.parent].ref
			calls = append(calls, &dcall{bus: r.bus, path: r.path, method: "org.a11y.atspi.Collection.GetMatches",
				args: []any{rule, uint32(sortCanonical), int32(wt.got), false}, out: &wt.kids})
			asked = append(asked, wt)
		}
	}
	if err := w.do(calls); err != nil {
		return err
	}
	for k, wt := range asked {
		if wt.showing = calls[k].err == nil; wt.showing {
			wt.got = w.take(len(wt.kids))
		} else {
			wt.got = w.take(wt.got)
		}
	}
	return nil
}

// plainKids reads the children of the remaining wants: GetChildren when the
// budget allows them all, else GetChildAtIndex for as many as it allows.
func (w *walker) plainKids(a *appTree, wants []*kidsWant) error {
	type one struct {
		wt  *kidsWant
		ref *objRef
	}
	var ones []one
	var calls []*dcall
	for _, wt := range wants {
		if wt.showing || wt.grid {
			continue
		}
		n := &a.nodes[wt.parent]
		if wt.count <= wt.got {
			calls = append(calls, &dcall{bus: n.ref.bus, path: n.ref.path, method: ifAccessible + ".GetChildren", out: &wt.kids})
			continue
		}
		for k := range wt.got {
			o := one{wt, new(objRef)}
			ones = append(ones, o)
			calls = append(calls, &dcall{bus: n.ref.bus, path: n.ref.path, method: ifAccessible + ".GetChildAtIndex",
				args: []any{int32(k)}, out: o.ref})
		}
	}
	if err := w.do(calls); err != nil {
		return err
	}
	for _, o := range ones {
		o.wt.kids = append(o.wt.kids, *o.ref)
	}
	return nil
}
