package checks

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// checkLeftPanel is check_left_panel: 1 when the accessibility tree has a
// split-pane inside a panel inside a root-pane (LibreOffice's window) whose
// cp:parentcoord is exactly "(0, 0)" (it sits at its parent's left edge: the
// slide pane) and whose st:visible is there and not empty (OSWorld tests the
// attribute's truthiness, not "true"), else 0. Tags are compared without a
// namespace, attributes by their namespace URI, as ElementTree does. A tree
// that is not well-formed XML is an error (ET.fromstring raises).
func checkLeftPanel(_ context.Context, c Call) (Score, error) {
	tree, ok := c.Result.(string)
	if !ok {
		return Score{}, fmt.Errorf("TypeError: the accessibility tree is %s", PyType(c.Result))
	}
	found, err := leftPanelIn(tree)
	if err != nil {
		return Score{}, err
	}
	if !found {
		return Score{Value: 0, Note: "no visible split-pane at (0, 0) of its parent in a panel of a root-pane"}, nil
	}
	return Score{Value: 1, Note: "a visible split-pane at (0, 0) of its parent"}, nil
}

// leftPanelIn walks the XML once, keeping for each open element whether it
// or an ancestor is a root-pane, and whether it or an ancestor is a panel
// below a root-pane: a split-pane under the latter is one the three nested
// iter() calls of OSWorld's function reach.
func leftPanelIn(tree string) (bool, error) {
	type open struct{ inRoot, inPanel bool }
	var stack []open
	found, seenRoot := false, false
	d := xml.NewDecoder(strings.NewReader(tree))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return false, fmt.Errorf("ParseError: the accessibility tree: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if seenRoot && len(stack) == 0 {
				return false, errors.New("ParseError: the accessibility tree: junk after document element")
			}
			seenRoot = true
			var up open
			if len(stack) > 0 {
				up = stack[len(stack)-1]
			}
			tag := ""
			if t.Name.Space == "" {
				tag = t.Name.Local
			}
			if tag == "split-pane" && up.inPanel && leftVisible(t.Attr) {
				found = true
			}
			cur := open{inRoot: up.inRoot || tag == "root-pane", inPanel: up.inPanel || (up.inRoot && tag == "panel")}
			stack = append(stack, cur)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 && strings.TrimSpace(string(t)) != "" {
				return false, errors.New("ParseError: the accessibility tree: text outside the document element")
			}
		}
	}
	if !seenRoot {
		return false, errors.New("ParseError: the accessibility tree: no element found")
	}
	return found, nil
}

// leftVisible reports a split-pane's cp:parentcoord "(0, 0)" with a
// non-empty st:visible.
func leftVisible(attrs []xml.Attr) bool {
	at, visible := false, false
	for _, a := range attrs {
		switch {
		case a.Name.Space == nsComponent && a.Name.Local == "parentcoord":
			at = a.Value == "(0, 0)"
		case a.Name.Space == nsState && a.Name.Local == "visible":
			visible = a.Value != ""
		}
	}
	return at && visible
}
