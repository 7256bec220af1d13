package checks

import (
	"encoding/xml"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"deskpilot/a11y"
)

// The namespaces of OSWorld's accessibility tree XML.
const (
	nsState      = "uri:deskat:state.at-spi.gnome.org"
	nsComponent  = "uri:deskat:component.at-spi.gnome.org"
	nsAttributes = "uri:deskat:attributes.at-spi.gnome.org"
)

// xmlName is an attribute name that needs no escaping in XML.
var xmlName = regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9_.]*$`)

// TreeXML renders elements of an AT-SPI walk (in tree order, with their
// depths) as the XML OSWorld's server gives for the accessibility tree: one
// element per accessible, tagged with its role ("push-button"), with name,
// st:STATE="true" for each state, cp:screencoord, cp:size and cp:parentcoord,
// and its text. Each application's elements sit in an <application
// name="..."> element, as in OSWorld's tree. A walk with
// atspi.Options.Containers gives every visible element under its parent, as
// OSWorld's tree has them; one without it only those the agent sees (named
// or interactive ones: unnamed containers left out, their children moved
// up). info, keyed by Element.ID, gives each element's object attributes
// (OSWorld's attr:*) and position relative to its parent (cp:parentcoord),
// from A11yDetails; nil gives neither.
func TreeXML(els []a11y.Element, info map[string]A11yInfo) string {
	var b strings.Builder
	b.WriteString(`<desktop-frame xmlns:st="` + nsState + `" xmlns:cp="` + nsComponent + `" xmlns:attr="` + nsAttributes + `" name="main">`)
	type open struct {
		depth int
		tag   string
	}
	var stack []open
	closeTo := func(depth int) {
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			b.WriteString("</" + stack[len(stack)-1].tag + ">")
			stack = stack[:len(stack)-1]
		}
	}
	app := ""
	for i, e := range els {
		if i == 0 || e.App != app {
			closeTo(0)
			app = e.App
			fmt.Fprintf(&b, "<application name=%s>", xmlAttr(app))
			stack = append(stack, open{0, "application"})
		}
		closeTo(max(e.Depth, 1))
		tag := roleTag(e.Role)
		fmt.Fprintf(&b, "<%s name=%s", tag, xmlAttr(e.Name))
		for _, s := range e.States {
			if roleTag(s) == s {
				fmt.Fprintf(&b, ` st:%s="true"`, s)
			}
		}
		in := info[e.ID()]
		for _, k := range slices.Sorted(maps.Keys(in.Attrs)) {
			if xmlName.MatchString(k) {
				fmt.Fprintf(&b, " attr:%s=%s", k, xmlAttr(in.Attrs[k]))
			}
		}
		r := e.Bounds
		fmt.Fprintf(&b, ` cp:screencoord="(%d, %d)" cp:size="(%d, %d)"`, r.Min.X, r.Min.Y, r.Dx(), r.Dy())
		if in.HasParentPos {
			fmt.Fprintf(&b, ` cp:parentcoord="(%d, %d)"`, in.ParentPos.X, in.ParentPos.Y)
		}
		b.WriteString(">")
		_ = xml.EscapeText(&b, []byte(e.Text))
		stack = append(stack, open{e.Depth, tag})
	}
	for i := len(stack) - 1; i >= 0; i-- {
		b.WriteString("</" + stack[i].tag + ">")
	}
	b.WriteString("</desktop-frame>")
	return b.String()
}

// roleTag is a role name as an XML tag: spaces as "-", anything but letters,
// digits and "-" dropped ("unknown" when nothing is left).
func roleTag(role string) string {
	t := strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case r == '-', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return -1
	}, role)
	if t == "" || t[0] == '-' || (t[0] >= '0' && t[0] <= '9') {
		return "unknown"
	}
	return t
}

func xmlAttr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	_ = xml.EscapeText(&b, []byte(s))
	b.WriteByte('"')
	return b.String()
}
