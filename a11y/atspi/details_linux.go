package atspi

import (
	"strings"

	"github.com/godbus/dbus/v5"
)

// relLabelledBy is ATSPI_RELATION_LABELLED_BY.
const relLabelledBy = 2

// relation is one element of GetRelationSet's reply, a(ua(so)).
type relation struct {
	Type    uint32
	Targets []objRef
}

// action is one element of Action.GetActions' reply, a(sss).
type action struct{ Name, Description, KeyBinding string }

// details reads what the kept nodes need beyond the tree, pipelined: the text of
// fields and nameless text holders, the labelled-by relation of nameless fields
// (and the names of label objects not read yet), the actions of nameless cells.
func (w *walker) details(a *appTree, ks []kept) error {
	texts := map[int]*string{}
	rels := map[int]*[]relation{}
	acts := map[int]*[]action{}
	var calls []*dcall
	for _, k := range ks {
		n := &a.nodes[k.i]
		r := n.ref
		if wantsText(n) {
			texts[k.i] = new(string)
			calls = append(calls, &dcall{bus: r.bus, path: r.path, method: ifTextBus + ".GetText",
				args: []any{int32(0), int32(w.o.MaxText + 1)}, out: texts[k.i]})
		}
		if wantsLabel(n) {
			rels[k.i] = new([]relation)
			calls = append(calls, &dcall{bus: r.bus, path: r.path, method: ifAccessible + ".GetRelationSet", out: rels[k.i]})
		}
		if wantsActions(n) {
			acts[k.i] = new([]action)
			calls = append(calls, &dcall{bus: r.bus, path: r.path, method: ifActionBus + ".GetActions", out: acts[k.i]})
		}
	}
	if err := w.do(calls); err != nil {
		return err
	}
	for i, s := range texts {
		a.nodes[i].text = *s
	}
	for i, as := range acts {
		a.nodes[i].toggle = len(*as) > 0 && strings.EqualFold((*as)[0].Name, "toggle")
	}
	return w.labels(a, rels)
}

// labels sets labelledBy from the relations read, asking for the names of label
// objects the walk did not read.
func (w *walker) labels(a *appTree, rels map[int]*[]relation) error {
	type ask struct {
		i    int
		name dbus.Variant
	}
	var asks []*ask
	var calls []*dcall
	for i, rs := range rels {
		target, ok := labelledBy(*rs)
		if !ok {
			continue
		}
		if t, read := a.index[target]; read {
			a.nodes[i].labelledBy = a.nodes[t].name
			continue
		}
		q := &ask{i: i}
		asks = append(asks, q)
		calls = append(calls, &dcall{bus: target.bus, path: target.path, method: ifProperties + ".Get",
			args: []any{ifAccessible, "Name"}, out: &q.name})
	}
	if err := w.do(calls); err != nil {
		return err
	}
	for _, q := range asks {
		a.nodes[q.i].labelledBy, _ = q.name.Value().(string)
	}
	return nil
}

// labelledBy returns the first target of a LABELLED_BY relation.
func labelledBy(rs []relation) (ref, bool) {
	for _, r := range rs {
		if r.Type == relLabelledBy && len(r.Targets) > 0 && r.Targets[0].Bus != "" {
			return ref{r.Targets[0].Bus, string(r.Targets[0].Path)}, true
		}
	}
	return ref{}, false
}
