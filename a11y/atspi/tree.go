package atspi

import (
	"image"
	"strings"

	"deskpilot/a11y"
)

// ref names an accessible object: its application's unique bus name and its path.
type ref struct{ bus, path string }

// ifaceSet holds the AT-SPI interfaces of an object that the walk uses.
type ifaceSet uint8

const (
	ifaceComponent ifaceSet = 1 << iota
	ifaceText
	ifaceAction
	ifaceCollection
	ifaceTable
)

// ifacesOf maps interface names to an ifaceSet.
func ifacesOf(names []string) ifaceSet {
	var s ifaceSet
	for _, n := range names {
		switch strings.TrimPrefix(n, "org.a11y.atspi.") {
		case "Component":
			s |= ifaceComponent
		case "Text":
			s |= ifaceText
		case "Action":
			s |= ifaceAction
		case "Collection":
			s |= ifaceCollection
		case "Table":
			s |= ifaceTable
		}
	}
	return s
}

// node is one accessible object as read from an application.
type node struct {
	ref    ref
	parent int   // index of the parent in the app's nodes; -1 for the application
	kids   []int // indexes of the children read
	depth  int   // 0 for the application
	role   uint32
	name   string
	desc   string
	states uint64
	ifaces ifaceSet
	ext    image.Rectangle // screen extents; meaningful when hasExt
	hasExt bool

	// Read only for the nodes that are kept.
	text       string // text content (Text interface)
	labelledBy string // name of the object it is labelled by
	toggle     bool   // its default action is Toggle
}

func (n *node) has(bit int) bool { return n.states&(1<<bit) != 0 }

// shown reports whether an object is showing and visible (the application itself
// always counts as shown: it has no such states).
func (n *node) shown() bool {
	return n.depth == 0 || n.has(stateShowing) && n.has(stateVisible)
}

// kept is a node that is visible on the display.
type kept struct {
	i      int             // index in the app's nodes
	bounds image.Rectangle // visible part, root coordinates
	window int             // index of its top-level ancestor (depth 1)
}

// clipAt returns the part of display where node i's descendants can show: display
// clipped by the extents of i and of its clipping ancestors.
func clipAt(nodes []node, i int, display image.Rectangle) image.Rectangle {
	r := display
	if n := &nodes[i]; n.hasExt {
		r = r.Intersect(n.ext)
	}
	for j, hops := nodes[i].parent, 0; j >= 0 && hops < len(nodes); j, hops = nodes[j].parent, hops+1 {
		if n := &nodes[j]; n.hasExt && clips(n.role) {
			r = r.Intersect(n.ext)
		}
	}
	return r
}

// isAncestor reports whether node j is node i or one of its ancestors.
func isAncestor(nodes []node, j, i int) bool {
	for hops := 0; i >= 0 && hops <= len(nodes); i, hops = nodes[i].parent, hops+1 {
		if i == j {
			return true
		}
	}
	return false
}

// extentsRect converts AT-SPI extents to a rectangle; ok is false for the values
// toolkits use for "nowhere" (negative sizes, INT_MIN positions, overflow).
func extentsRect(x, y, w, h int32) (image.Rectangle, bool) {
	const lim = 1 << 24
	if w <= 0 || h <= 0 || x < -lim || y < -lim || x > lim || y > lim || w > lim || h > lim {
		return image.Rectangle{}, false
	}
	return image.Rect(int(x), int(y), int(x)+int(w), int(y)+int(h)), true
}

// clips reports roles whose extents bound what their descendants show.
func clips(role uint32) bool {
	switch a11y.RoleName(role) {
	case "frame", "dialog", "window", "alert", "internal frame", "viewport", "scroll pane",
		"popup menu", "tool tip", "notification", "input method window", "file chooser":
		return true
	}
	return false
}

// visible walks the tree read from one application depth first from its root
// (index 0) and returns the nodes visible within display, in tree order. A hidden
// node hides its subtree; clipping roles clip their subtree. keepTop, when not nil,
// decides which top-level windows (depth 1) to keep by their extents. Nodes deeper
// than maxDepth are not visited; cut reports whether any was there.
func visible(nodes []node, display image.Rectangle, maxDepth int, keepTop func(image.Rectangle) bool) (out []kept, cut bool) {
	if len(nodes) == 0 {
		return nil, false
	}
	type frame struct {
		i, window int
		clip      image.Rectangle
	}
	seen := make([]bool, len(nodes))
	stack := []frame{{i: 0, window: -1, clip: display}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[f.i] {
			continue
		}
		seen[f.i] = true
		n := &nodes[f.i]
		if !n.shown() {
			continue
		}
		if n.depth == 1 {
			f.window = f.i
			if keepTop != nil && (!n.hasExt || !keepTop(n.ext)) {
				continue
			}
		}
		if n.hasExt && clips(n.role) {
			f.clip = f.clip.Intersect(n.ext)
		}
		if n.depth > 0 && n.hasExt {
			if b := n.ext.Intersect(f.clip); !b.Empty() {
				out = append(out, kept{i: f.i, bounds: b, window: f.window})
			}
		}
		if n.depth >= maxDepth {
			cut = cut || len(n.kids) > 0
			continue
		}
		for k := len(n.kids) - 1; k >= 0; k-- {
			stack = append(stack, frame{i: n.kids[k], window: f.window, clip: f.clip})
		}
	}
	return out, cut
}

// wantsText reports whether the walk reads a node's text content: fields and
// documents always, other text holders only when they have no name (a label's text
// is its name); password fields never.
func wantsText(n *node) bool {
	if n.ifaces&ifaceText == 0 || n.role == rolePasswordText {
		return false
	}
	switch a11y.RoleName(n.role) {
	case "entry", "text", "spin button", "combo box", "terminal", "paragraph", "editbar",
		"autocomplete", "document frame", "document text", "document web", "document email":
		return true
	}
	return n.name == ""
}

// isField reports roles that are named after a label next to them.
func isField(role uint32) bool {
	switch a11y.RoleName(role) {
	case "entry", "text", "password text", "spin button", "combo box", "slider":
		return true
	}
	return false
}

// wantsLabel reports whether the walk asks for a node's labelled-by relation.
func wantsLabel(n *node) bool { return n.name == "" && isField(n.role) }

// wantsActions reports whether the walk asks for a node's actions (to tell GTK's
// check boxes in lists from other cells).
func wantsActions(n *node) bool {
	return n.name == "" && n.role == roleTableCell && n.ifaces&ifaceAction != 0
}
