package a11y

import (
	"fmt"
	"slices"
	"strings"
)

// roleNames are AT-SPI's role names indexed by the AtspiRole enumeration that
// org.a11y.atspi.Accessible.GetRole returns (at-spi2-core's atspi-constants.h, up to
// ATSPI_ROLE_SWITCH = 130), spelled as libatspi's atspi_role_get_name spells them in
// Debian 12's at-spi2-core 2.46 and as ATK's GetRoleName answers: "push button" for
// role 43, which newer headers call plain "button".
var roleNames = [...]string{
	"invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas",
	"check box", "check menu item", "color chooser", "column header", "combo box",
	"date editor", "desktop icon", "desktop frame", "dial", "dialog", "directory pane",
	"drawing area", "file chooser", "filler", "focus traversable", "font chooser", "frame",
	"glass pane", "html container", "icon", "image", "internal frame", "label",
	"layered pane", "list", "list item", "menu", "menu bar", "menu item", "option pane",
	"page tab", "page tab list", "panel", "password text", "popup menu", "progress bar",
	"push button", "radio button", "radio menu item", "root pane", "row header", "scroll bar",
	"scroll pane", "separator", "slider", "spin button", "split pane", "status bar", "table",
	"table cell", "table column header", "table row header", "tearoff menu item", "terminal",
	"text", "toggle button", "tool bar", "tool tip", "tree", "tree table", "unknown",
	"viewport", "window", "extended", "header", "footer", "paragraph", "ruler", "application",
	"autocomplete", "editbar", "embedded", "entry", "chart", "caption", "document frame",
	"heading", "page", "section", "redundant object", "form", "link", "input method window",
	"table row", "tree item", "document spreadsheet", "document presentation",
	"document text", "document web", "document email", "comment", "list box", "grouping",
	"image map", "notification", "info bar", "level bar", "title bar", "block quote", "audio",
	"video", "definition", "article", "landmark", "log", "marquee", "math", "rating", "timer",
	"static", "math fraction", "math root", "subscript", "superscript", "description list",
	"description term", "description value", "footnote", "content deletion",
	"content insertion", "mark", "suggestion", "push button menu", "switch",
}

// stateNames are AT-SPI's state names indexed by bit number in the 64-bit state set
// that GetState returns as two uint32 words (low word first); hyphens as in
// libatspi's nicks.
var stateNames = [...]string{
	"invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable",
	"enabled", "expandable", "expanded", "focusable", "focused", "has-tooltip", "horizontal",
	"iconified", "modal", "multi-line", "multiselectable", "opaque", "pressed", "resizable",
	"selectable", "selected", "sensitive", "showing", "single-line", "stale", "transient",
	"vertical", "visible", "manages-descendants", "indeterminate", "required", "truncated",
	"animated", "invalid-entry", "supports-autocompletion", "selectable-text", "is-default",
	"visited", "checkable", "has-popup", "read-only",
}

// RoleName returns the AT-SPI name of role number r, or "role N" for a number
// this package does not know.
func RoleName(r uint32) string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("role %d", r)
}

// StateNames names the states set in an AT-SPI state set (bit n = AtspiStateType
// n), in bit order; "invalid" is left out.
func StateNames(bits uint64) []string {
	var out []string
	for i := 1; i < len(stateNames); i++ {
		if bits&(1<<i) != 0 {
			out = append(out, stateNames[i])
		}
	}
	return out
}

// roleAliases are the friendly names a model may use for a family of AT-SPI roles.
// Keys and values are in canonical form (lower case, single spaces).
var roleAliases = map[string][]string{
	"button":      {"push button", "toggle button", "push button menu"},
	"checkbox":    {"check box", "check menu item"},
	"check":       {"check box", "check menu item"},
	"radio":       {"radio button", "radio menu item"},
	"textbox":     {"entry", "text", "password text", "spin button"},
	"textfield":   {"entry", "text", "password text", "spin button"},
	"input":       {"entry", "text", "password text", "spin button"},
	"field":       {"entry", "text", "password text", "spin button"},
	"edit":        {"entry", "text", "password text", "spin button"},
	"password":    {"password text"},
	"combobox":    {"combo box"},
	"dropdown":    {"combo box"},
	"select":      {"combo box", "list box"},
	"menuitem":    {"menu item", "check menu item", "radio menu item", "tearoff menu item"},
	"tab":         {"page tab"},
	"tabs":        {"page tab list"},
	"cell":        {"table cell"},
	"row":         {"table row", "list item", "tree item"},
	"item":        {"list item", "tree item", "menu item"},
	"listitem":    {"list item"},
	"treeitem":    {"tree item"},
	"img":         {"image", "icon"},
	"picture":     {"image", "icon"},
	"toggle":      {"toggle button", "switch", "check box"},
	"window":      {"frame", "dialog", "window", "alert", "file chooser"},
	"header":      {"heading", "header", "table column header", "column header"},
	"scrollbar":   {"scroll bar"},
	"statictext":  {"label", "static", "paragraph"},
	"toolbar":     {"tool bar"},
	"menubar":     {"menu bar"},
	"progressbar": {"progress bar"},
	"hyperlink":   {"link"},
}

// canonical lower-cases s, maps '_' and '-' to spaces and collapses runs of space.
func canonical(s string) string {
	s = strings.ToLower(strings.NewReplacer("_", " ", "-", " ").Replace(s))
	return strings.Join(strings.Fields(s), " ")
}

// ParseRole resolves a role as a model may write it to the set of AT-SPI role names
// it stands for: an AT-SPI name in any case, with '_', '-' or no spaces ("push
// button", "PUSH_BUTTON", "pushbutton"; a spelling with a separator is that role
// alone), or a friendly alias ("button" = push,
// toggle and menu buttons; "checkbox"; "textbox", "entry" or "input" = the text
// fields; "combobox"; "menuitem"; "tab"; "cell"; "link"; "window" = frames and
// dialogs; ...). An unknown role is a *QueryError that suggests the closest name.
func ParseRole(s string) ([]string, error) {
	c := canonical(s)
	if c == "" {
		return nil, &QueryError{Field: "role", Value: s, Msg: "is empty"}
	}
	if strings.Contains(c, " ") && slices.Contains(roleNames[1:], c) {
		return []string{c}, nil
	}
	squeezed := strings.ReplaceAll(c, " ", "")
	if fam, ok := roleAliases[squeezed]; ok {
		return fam, nil
	}
	if c == "entry" || squeezed == "textentry" {
		return roleAliases["textbox"], nil
	}
	for _, n := range roleNames[1:] {
		if squeezed == strings.ReplaceAll(n, " ", "") {
			return []string{n}, nil
		}
	}
	return nil, &QueryError{Field: "role", Value: s, Msg: "is not a role", Suggestion: closest(squeezed, roleVocabulary())}
}

// roleVocabulary is every name ParseRole accepts, aliases first.
func roleVocabulary() []string {
	out := make([]string, 0, len(roleAliases)+len(roleNames))
	for k := range roleAliases {
		out = append(out, k)
	}
	slices.Sort(out)
	return append(out, roleNames[1:]...)
}

// stateAliases are negative states a model may ask for.
var stateAliases = map[string]string{
	"disabled":   "!enabled",
	"unchecked":  "!checked",
	"unselected": "!selected",
	"unfocused":  "!focused",
	"readonly":   "read-only",
	"hidden":     "!showing",
}

// stateWant is one parsed states filter entry.
type stateWant struct {
	bit    int
	negate bool
}

// parseStates resolves a states filter: AT-SPI state names in any case, with ' ',
// '_' or '-' ("multi line", "MULTI_LINE"), negated with a leading "!" or "not ",
// plus the aliases "disabled", "unchecked", "unselected", "unfocused", "hidden".
func parseStates(in []string) ([]stateWant, error) {
	out := make([]stateWant, 0, len(in))
	for _, raw := range in {
		s := strings.TrimSpace(strings.ToLower(raw))
		neg := false
		for {
			switch {
			case strings.HasPrefix(s, "!"):
				s, neg = strings.TrimSpace(s[1:]), !neg
				continue
			case strings.HasPrefix(s, "not "), strings.HasPrefix(s, "not_"), strings.HasPrefix(s, "not-"):
				s, neg = strings.TrimSpace(s[4:]), !neg
				continue
			}
			break
		}
		name := strings.ReplaceAll(canonical(s), " ", "-")
		if a, ok := stateAliases[strings.ReplaceAll(name, "-", "")]; ok {
			name = strings.TrimPrefix(a, "!")
			if strings.HasPrefix(a, "!") {
				neg = !neg
			}
		}
		bit := slices.Index(stateNames[:], name)
		if bit <= 0 {
			return nil, &QueryError{Field: "states", Value: raw, Msg: "is not a state",
				Suggestion: closest(strings.ReplaceAll(name, "-", ""), stateVocabulary())}
		}
		out = append(out, stateWant{bit: bit, negate: neg})
	}
	return out, nil
}

// stateVocabulary is every state name parseStates accepts without a negation.
func stateVocabulary() []string {
	out := slices.Clone(stateNames[1:])
	for k := range stateAliases {
		out = append(out, k)
	}
	return out
}
