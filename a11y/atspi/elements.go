package atspi

import (
	"cmp"
	"strings"

	"deskpilot/a11y"
)

// appInfo is what Elements knows of an application apart from its tree.
type appInfo struct {
	name string
	pid  int
}

// toElements turns the kept nodes of one application into elements: it infers
// names for nameless fields and cells, reports toggle cells as check boxes, and
// drops structural containers with neither name nor text unless containers.
func toElements(nodes []node, ks []kept, app appInfo, maxText int, containers bool) []a11y.Element {
	names := inferNames(nodes, ks)
	out := make([]a11y.Element, 0, len(ks))
	for j, k := range ks {
		n := &nodes[k.i]
		role := a11y.RoleName(n.role)
		if n.role == roleTableCell && n.toggle {
			role = "check box"
		}
		e := a11y.Element{
			Name:        cleanText(names[j], maxText),
			Role:        role,
			Text:        cleanText(n.text, maxText),
			Description: cleanText(n.desc, maxText),
			States:      a11y.StateNames(n.states),
			Bounds:      k.bounds,
			App:         app.name,
			PID:         app.pid,
			Bus:         n.ref.bus,
			Path:        n.ref.path,
			Depth:       n.depth,
		}
		if e.Text == e.Name {
			e.Text = ""
		}
		e.Interactive = interactive(role, n)
		if !containers && e.Name == "" && e.Text == "" && !e.Interactive && structural(role) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// inferNames returns the name of each kept node: its own, else (for fields) the
// name of what labels it or the label beside or above it, else (for table cells)
// the names of the cells it holds or of the other cells in its row.
func inferNames(nodes []node, ks []kept) []string {
	names := make([]string, len(ks))
	for j, k := range ks {
		n := &nodes[k.i]
		switch {
		case n.name != "":
			names[j] = n.name
		case isField(n.role) && n.labelledBy != "":
			names[j] = n.labelledBy
		case isField(n.role):
			names[j] = nearbyLabel(nodes, ks, j)
		case n.role == roleTableCell:
			names[j] = cmp.Or(kidNames(nodes, k.i), rowName(nodes, ks, j))
		}
	}
	return names
}

// nearbyLabel finds the label a person would read as the name of field ks[j]: the
// nearest label in the same window ending left of the field on the same line, else
// the nearest one just above it that overlaps it horizontally.
func nearbyLabel(nodes []node, ks []kept, j int) string {
	f := ks[j].bounds
	midY := (f.Min.Y + f.Max.Y) / 2
	best, bestD := "", 1<<30
	above, aboveD := "", 1<<30
	for _, k := range ks {
		n := &nodes[k.i]
		if k.window != ks[j].window || n.name == "" || (n.role != roleLabel && n.role != roleStatic) {
			continue
		}
		b := k.bounds
		lmid := (b.Min.Y + b.Max.Y) / 2
		switch {
		case b.Max.X <= f.Min.X+4 && lmid >= f.Min.Y && lmid <= f.Max.Y:
			if d := f.Min.X - b.Max.X + abs(lmid-midY); d < bestD && f.Min.X-b.Max.X < 400 {
				best, bestD = n.name, d
			}
		case b.Max.Y <= f.Min.Y+4 && b.Max.X > f.Min.X && b.Min.X < f.Max.X:
			if d := f.Min.Y - b.Max.Y; d < aboveD && d < max(f.Dy(), 24) {
				above, aboveD = n.name, d
			}
		}
	}
	if best != "" {
		return best
	}
	return above
}

// kidNames names a cell that holds others (GTK's container cells: an icon and a
// file name) after the names of its children.
func kidNames(nodes []node, i int) string {
	var parts []string
	for _, k := range nodes[i].kids {
		if nodes[k].name != "" {
			parts = append(parts, nodes[k].name)
		}
	}
	return strings.Join(parts, " ")
}

// rowName names a nameless table cell after the named cells of its row: the
// siblings whose vertical centre lies within its height.
func rowName(nodes []node, ks []kept, j int) string {
	c := ks[j].bounds
	parent := nodes[ks[j].i].parent
	var parts []string
	for _, k := range ks {
		n := &nodes[k.i]
		if k.i == ks[j].i || n.parent != parent || n.role != roleTableCell || n.name == "" {
			continue
		}
		if mid := (k.bounds.Min.Y + k.bounds.Max.Y) / 2; mid >= c.Min.Y && mid < c.Max.Y {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, " ")
}

// interactive reports whether a person operates the element.
func interactive(role string, n *node) bool {
	switch role {
	case "push button", "toggle button", "push button menu", "check box", "radio button",
		"check menu item", "radio menu item", "menu item", "tearoff menu item", "menu",
		"combo box", "entry", "password text", "spin button", "slider", "scroll bar", "link",
		"page tab", "list item", "tree item", "switch", "table column header",
		"column header", "desktop icon", "dial", "color chooser", "date editor":
		return true
	case "text":
		return n.has(stateEditable) || n.has(stateFocusable)
	case "label", "static", "heading", "paragraph", "caption", "icon", "image",
		"accelerator label", "tool tip", "title bar":
		return false // selectable text is focusable, yet nothing to operate
	case "table cell", "table row":
		return n.has(stateSelectable) || n.has(stateFocusable) || n.toggle
	}
	return n.has(stateFocusable) && !structural(role) && !windowRole(role)
}

// windowRole reports the roles of top-level windows.
func windowRole(role string) bool {
	switch role {
	case "frame", "dialog", "window", "alert", "file chooser":
		return true
	}
	return false
}

// structural reports container roles that mean nothing to a person without a name.
func structural(role string) bool {
	switch role {
	case "filler", "panel", "section", "grouping", "layered pane", "glass pane", "root pane",
		"viewport", "scroll pane", "split pane", "unknown", "redundant object", "invalid",
		"option pane", "embedded", "form", "html container", "table row", "tool bar",
		"menu bar", "page tab list", "status bar", "list", "list box", "table", "tree",
		"tree table", "canvas", "drawing area", "image map", "landmark", "article",
		"document frame", "internal frame", "desktop frame", "separator":
		return true
	}
	return false
}

// cleanText makes text from an application safe to show: valid UTF-8, control
// characters as spaces, at most max characters (with "…"), trimmed. Inner line
// breaks become spaces too, so text cannot forge lines of a table.
func cleanText(s string, max int) string {
	if s == "" {
		return ""
	}
	return a11y.CleanText(s, max)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
