package a11y

import (
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"

	"deskpilot/internal/editdist"
)

// Element is one accessible object visible on the display.
type Element struct {
	// Name is the accessible name ("OK", "Fruit"), or the name the walk inferred
	// for a nameless field or cell (see the package doc).
	Name string
	// Role is the AT-SPI role name: "push button", "check box", "text", "entry",
	// "label", "table cell", "dialog", ...
	Role string
	// Text is the text content of elements with the Text interface whose content
	// differs from their name (fields, documents, terminals), cut to Options.MaxText
	// characters with "…" appended; "" for password fields.
	Text string
	// Description is the accessible description, usually "".
	Description string
	// States are the AT-SPI states that hold, in AT-SPI's order: "active",
	// "checked", "editable", "enabled", "focusable", "focused", "selected",
	// "sensitive", "showing", "visible", ... (hyphenated: "multi-line", "read-only").
	States []string
	// Bounds is the visible part of the element in root-window pixels: its extents
	// clipped to its window, enclosing scroll viewports and Options.Bounds. Never empty.
	Bounds image.Rectangle
	// Interactive reports a control a person operates: buttons, check boxes, fields,
	// menu items, links, tabs, list and tree items, selectable cells, sliders, and
	// anything focusable that is not a container.
	Interactive bool
	// App is the application's accessible name ("zenity"), else its process name.
	App string
	// PID is the application's process id as the accessibility bus reports it.
	PID int
	// Bus and Path identify the object: the application's unique name on the
	// accessibility bus (":1.42") and the object path. Both are stable while the
	// application runs; ID joins them.
	Bus, Path string
	// Depth is the depth in the application's tree (the application is 0, its
	// windows 1).
	Depth int
}

// ID returns Bus+Path, unique on the accessibility bus while the application runs.
func (e Element) ID() string { return e.Bus + e.Path }

// Center returns the centre of Bounds, the point to click.
func (e Element) Center() image.Point {
	return image.Pt((e.Bounds.Min.X+e.Bounds.Max.X)/2, (e.Bounds.Min.Y+e.Bounds.Max.Y)/2)
}

// Has reports whether state (an AT-SPI state name such as "focused") holds.
func (e Element) Has(state string) bool { return slices.Contains(e.States, state) }

// Query selects elements. The zero value selects every visible element.
type Query struct {
	// Name matches the element's name case-insensitively, with runs of white space
	// equal to one space: a substring unless Exact. "" matches any name.
	Name string
	// Exact makes Name match the whole name (still case-insensitive).
	Exact bool
	// Role is an AT-SPI role name or alias, as ParseRole accepts; "" = any role.
	Role string
	// States must all hold ("focused", "checked"); "!checked", "not checked" and the
	// aliases "disabled", "unchecked", "unselected", "unfocused" must not hold.
	States []string
	// Within keeps elements whose Bounds intersect it (root coordinates); the empty
	// rectangle keeps all.
	Within image.Rectangle
	// Interactive keeps only interactive elements (Element.Interactive).
	Interactive bool
}

// Note says how complete a walk was. The zero value is a complete walk that found
// no application.
type Note struct {
	// Apps is the number of applications on the display whose trees were read.
	Apps int
	// OtherDisplay is the number of registered applications left out because none
	// of their windows is on the display.
	OtherDisplay int
	// Nodes is the number of accessible objects read.
	Nodes int
	// Cut says why the walk stopped early, one entry per limit reached.
	Cut []string
	// Skipped are the applications left out because they failed.
	Skipped []Skip
}

// Skip is an application left out of a walk.
type Skip struct {
	// App is the application's name, or its process name when it never answered.
	App string
	// PID is its process id, 0 when unknown.
	PID int
	// Reason says why, in words for the model: "did not answer within 1s",
	// "quit during the walk".
	Reason string
}

// Complete reports whether nothing was cut or skipped.
func (n Note) Complete() bool { return len(n.Cut) == 0 && len(n.Skipped) == 0 }

// String renders the note for the model: "" for a complete walk that found
// applications; otherwise one line per problem, and when no application on the
// display exposes accessible elements, a line saying so that points to find_text.
func (n Note) String() string {
	var lines []string
	if n.Apps == 0 && len(n.Skipped) == 0 {
		lines = append(lines, "no application on this display exposes accessible elements "+
			"(toolkits such as Tk, Xaw and most games have none); use find_text to locate controls by their visible text")
	}
	if len(n.Cut) > 0 {
		lines = append(lines, "accessibility tree cut short: "+strings.Join(n.Cut, "; "))
	}
	for _, s := range n.Skipped {
		who := s.App
		if s.PID > 0 {
			who = fmt.Sprintf("%s (pid %d)", s.App, s.PID)
		}
		lines = append(lines, fmt.Sprintf("skipped %s: %s", who, s.Reason))
	}
	return strings.Join(lines, "\n")
}

// ErrUnavailable is what every error meaning "there is no accessibility tree to
// read here" matches with errors.Is.
var ErrUnavailable = errors.New("accessibility tree unavailable")

// UnavailableError says why the accessibility tree cannot be read: not on Linux, no
// D-Bus session bus, no accessibility bus or registry, no X display.
type UnavailableError struct {
	// Reason is a short phrase: "no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is unset)".
	Reason string
	// Err is the underlying error, if any.
	Err error
}

// Error says why, and tells the model to use find_text instead.
func (e *UnavailableError) Error() string {
	msg := "accessibility tree unavailable: " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg + "; use find_text to locate controls by their visible text instead"
}

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// Unwrap returns Err.
func (e *UnavailableError) Unwrap() error { return e.Err }

// QueryError is a query the model can fix: an unknown role or state.
type QueryError struct {
	// Field is "role" or "states".
	Field string
	// Value is what was asked for.
	Value string
	// Msg says what is wrong: "is not a role".
	Msg string
	// Suggestion is the closest accepted name, "" when none is close.
	Suggestion string
}

// Error says what is wrong with the query and lists what is accepted.
func (e *QueryError) Error() string {
	msg := fmt.Sprintf("find_elements: %s %q %s", e.Field, e.Value, e.Msg)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	switch e.Field {
	case "role":
		msg += `; use an AT-SPI role such as "push button", "check box", "entry", "text", "label", ` +
			`"menu item", "combo box", "link", or an alias: button, checkbox, radio, textbox, combobox, menuitem, tab, cell`
	case "states":
		msg += `; states are names such as focused, enabled, checked, selected, editable, expanded, ` +
			`optionally negated with "!" (or disabled, unchecked)`
	}
	return msg
}

// closest returns the word of vocab nearest to s by edit distance, or "" when
// nothing is within a third of s's length.
func closest(s string, vocab []string) string {
	best, bestD := "", len(s)/3+1
	for _, w := range vocab {
		if d := editdist.Distance(s, strings.ReplaceAll(strings.ReplaceAll(w, " ", ""), "-", "")); d < bestD {
			best, bestD = w, d
		}
	}
	return best
}
