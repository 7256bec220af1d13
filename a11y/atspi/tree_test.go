package atspi

import (
	"fmt"
	"image"
	"slices"
	"strings"
	"testing"

	"deskpilot/a11y"
)

const shownStates = 1<<stateShowing | 1<<stateVisible | 1<<stateEnabled

// build makes an application tree from (parent, role, name, extents) rows; row 0 is
// the application.
type row struct {
	parent int
	role   uint32
	name   string
	ext    image.Rectangle
	states uint64
}

func build(rows []row) []node {
	nodes := make([]node, len(rows))
	for i, r := range rows {
		st := r.states
		if st == 0 {
			st = shownStates
		}
		nodes[i] = node{ref: ref{":1.1", "/" + r.name}, parent: r.parent, role: r.role, name: r.name,
			states: st, ext: r.ext, hasExt: !r.ext.Empty(), ifaces: ifaceComponent}
		if i > 0 {
			nodes[i].depth = nodes[r.parent].depth + 1
			nodes[r.parent].kids = append(nodes[r.parent].kids, i)
		}
	}
	nodes[0].parent = -1
	return nodes
}

func TestVisible(t *testing.T) {
	display := image.Rect(0, 0, 1000, 800)
	win := image.Rect(100, 100, 500, 400)
	rows := []row{
		{-1, roleApplication, "app", image.Rectangle{}, 0},
		{0, roleFrame, "win", win, 0},
		{1, 49, "scroll", image.Rect(100, 150, 500, 250), 0},          // scroll pane clips
		{2, 43, "in view", image.Rect(110, 160, 200, 190), 0},         // inside
		{2, 43, "half", image.Rect(110, 230, 200, 270), 0},            // clipped to 230..250
		{2, 43, "scrolled away", image.Rect(110, 300, 200, 330), 0},   // outside the viewport
		{1, 39, "hidden panel", win, 1 << stateVisible},               // not showing
		{6, 43, "under hidden", image.Rect(110, 350, 200, 380), 0},    // hidden by its parent
		{1, 43, "off window", image.Rect(600, 100, 700, 130), 0},      // outside its window
		{0, roleDialog, "second", image.Rect(900, 700, 1200, 900), 0}, // half off the display
		{9, 43, "corner", image.Rect(950, 750, 1100, 850), 0},         // clipped by the display
		{1, 43, "nowhere", image.Rectangle{}, 0},                      // no extents
	}
	ks, cut := visible(build(rows), display, 64, nil)
	got := map[string]image.Rectangle{}
	var order []string
	nodes := build(rows)
	for _, k := range ks {
		got[nodes[k.i].name] = k.bounds
		order = append(order, nodes[k.i].name)
	}
	want := []string{"win", "scroll", "in view", "half", "second", "corner"}
	if !slices.Equal(order, want) || cut {
		t.Fatalf("visible = %q (cut %v), want %q", order, cut, want)
	}
	for name, b := range map[string]image.Rectangle{
		"half":   image.Rect(110, 230, 200, 250),
		"second": image.Rect(900, 700, 1000, 800),
		"corner": image.Rect(950, 750, 1000, 800),
	} {
		if got[name] != b {
			t.Errorf("%s bounds %v, want %v", name, got[name], b)
		}
	}
	t.Run("keepTop", func(t *testing.T) {
		ks, _ := visible(build(rows), display, 64, func(r image.Rectangle) bool { return r == win })
		for _, k := range ks {
			if nodes[k.i].name == "second" || nodes[k.i].name == "corner" {
				t.Errorf("%s kept though its window is not on the display", nodes[k.i].name)
			}
		}
	})
	t.Run("depth", func(t *testing.T) {
		ks, cut := visible(build(rows), display, 2, nil)
		for _, k := range ks {
			if nodes[k.i].depth > 2 {
				t.Errorf("%s at depth %d past the limit", nodes[k.i].name, nodes[k.i].depth)
			}
		}
		if !cut {
			t.Error("depth cut not reported")
		}
	})
	t.Run("cycle", func(t *testing.T) {
		n := build(rows)
		n[3].kids = []int{1, 3} // a child pointing back at the window and itself
		if ks, _ := visible(n, display, 64, nil); len(ks) != len(want) {
			t.Errorf("a cycle changed the result: %d kept", len(ks))
		}
	})
}

func TestExtentsRect(t *testing.T) {
	for _, tc := range []struct {
		x, y, w, h int32
		ok         bool
	}{
		{10, 20, 30, 40, true},
		{-100, -50, 30, 40, true},
		{-2147483648, -2147483648, 1, 1, false}, // GTK's "nowhere"
		{0, 0, 0, 10, false},
		{0, 0, -5, 10, false},
		{2147483000, 0, 2147483000, 10, false}, // would overflow
	} {
		r, ok := extentsRect(tc.x, tc.y, tc.w, tc.h)
		if ok != tc.ok || ok && (r.Dx() != int(tc.w) || r.Min.X != int(tc.x)) {
			t.Errorf("extentsRect(%d,%d,%d,%d) = %v, %v", tc.x, tc.y, tc.w, tc.h, r, ok)
		}
	}
}

func TestToElementsNames(t *testing.T) {
	win := image.Rect(0, 0, 600, 400)
	rows := []row{
		{-1, roleApplication, "app", image.Rectangle{}, 0},
		{0, roleDialog, "Form", win, 0},
		{1, roleLabel, "First name", image.Rect(10, 10, 90, 40), 0},
		{1, roleText, "", image.Rect(100, 10, 300, 40), 0},            // label on its left
		{1, roleLabel, "Notes", image.Rect(10, 60, 90, 80), 0},        // label above
		{1, roleText, "", image.Rect(10, 82, 300, 200), 0},            // below "Notes"
		{1, rolePasswordText, "", image.Rect(100, 250, 300, 280), 0},  // labelled-by relation
		{1, 55, "", image.Rect(310, 10, 590, 390), 0},                 // table
		{7, roleTableCell, "", image.Rect(310, 30, 340, 50), 0},       // toggle cell
		{7, roleTableCell, "Banana", image.Rect(340, 30, 590, 50), 0}, // its row's text
		{1, roleFiller, "", image.Rect(0, 0, 600, 400), 0},            // structural: dropped
		{1, 43, "OK", image.Rect(500, 350, 590, 390), 0},              // plain button
		{1, roleLabel, "Far away", image.Rect(10, 300, 60, 320), 0},   // not next to any field
	}
	nodes := build(rows)
	nodes[6].labelledBy = "PIN"
	nodes[8].toggle = true
	nodes[8].states |= 1 << stateSelectable
	nodes[3].text = "Ada\nLovelace"
	nodes[3].states |= 1 << stateEditable
	nodes[5].states |= 1 << stateEditable
	nodes[6].text = "never read" // password: the walk never reads it; even if set, it is kept out of names
	ks, _ := visible(nodes, image.Rect(0, 0, 1000, 1000), 64, nil)
	els := toElements(nodes, ks, appInfo{name: "app", pid: 7}, 200, false)
	var roles []string
	find := func(role, name string) a11y.Element {
		for _, e := range els {
			if e.Role == role && e.Name == name {
				return e
			}
		}
		t.Errorf("no %s %q among:%s", role, name, describe(els))
		return a11y.Element{}
	}
	for _, e := range els {
		roles = append(roles, e.Role)
	}
	for _, want := range [][2]string{{"text", "First name"}, {"text", "Notes"}, {"label", "Notes"},
		{"password text", "PIN"}, {"check box", "Banana"}, {"table cell", "Banana"}, {"push button", "OK"}, {"dialog", "Form"}} {
		find(want[0], want[1])
	}
	if slices.Contains(roles, "filler") || slices.Contains(roles, "table") {
		t.Errorf("structural containers kept: %q", roles)
	}
	if e := find("text", "First name"); e.Text != "Ada Lovelace" || !e.Interactive || e.App != "app" || e.PID != 7 {
		t.Errorf("first name field %+v", e)
	}
	if e := find("check box", "Banana"); !e.Interactive {
		t.Errorf("toggle cell %+v", e)
	}
	if e := find("label", "Far away"); e.Interactive {
		t.Errorf("label %+v is interactive", e)
	}
	if e := find("push button", "OK"); e.Bounds != image.Rect(500, 350, 590, 390) {
		t.Errorf("button %+v", e)
	}
	// With Options.Containers the same nodes give the two structural
	// containers too (the filler and the table), and nothing else changes.
	all := toElements(nodes, ks, appInfo{name: "app", pid: 7}, 200, true)
	var allRoles []string
	for _, e := range all {
		allRoles = append(allRoles, e.Role)
	}
	if len(all) != len(els)+2 || !slices.Contains(allRoles, "filler") || !slices.Contains(allRoles, "table") {
		t.Errorf("with containers: %q, without: %q; want the filler and the table more", allRoles, roles)
	}
}

// describe lists elements one per line for failure messages.
func describe(els []a11y.Element) string {
	var b strings.Builder
	for _, e := range els {
		fmt.Fprintf(&b, "\n  %s %q text=%q %v %v pid=%d", e.Role, e.Name, e.Text, e.States, e.Bounds, e.PID)
	}
	return b.String()
}
