package script

import (
	"strings"
)

// stubsFooter tells the model about the modules and the dialect.
const stubsFooter = `# Modules, already loaded (there is no import):
#   math: floor, ceil, round, sqrt, pow, exp, log, fabs, hypot, sin, cos, tan,
#         atan, degrees, radians and more; math.pi, math.e
#   json: json.encode(value) -> str, json.decode(text) -> value,
#         json.encode_indent(value), json.indent(text)
#
# The language is Starlark, a small Python dialect. Variables and functions
# persist between your code blocks. Files and the network are reachable only
# through the tools above. Not available: import, OS access, try/except, class,
# with, raise, global, the is operator and f-strings.
# Format with "x=%s" % x or "x={}".format(x); stop with an error via
# fail("message"); test a type with type(x) == "string".
`

// renderStubs renders tools as Python stubs: groups in order of first
// appearance, tools in registration order within a group.
func renderStubs(tools []*Tool) string {
	var groups []string
	byGroup := map[string][]*Tool{}
	for _, t := range tools {
		g := t.Group
		if g == "" {
			g = "other"
		}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], t)
	}
	var b strings.Builder
	for _, g := range groups {
		b.WriteString("# " + g + "\n\n")
		for _, t := range byGroup[g] {
			writeStub(&b, t)
			b.WriteByte('\n')
		}
	}
	b.WriteString(stubsFooter)
	return b.String()
}

func writeStub(b *strings.Builder, t *Tool) {
	b.WriteString("def " + t.Name + "(")
	for i, p := range t.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		if p.Type != "" {
			b.WriteString(": " + p.Type)
		}
		if p.Default != "" {
			if p.Type != "" {
				b.WriteString(" = " + p.Default)
			} else {
				b.WriteString("=" + p.Default)
			}
		}
	}
	ret := t.Returns
	if ret == "" {
		ret = "None"
	}
	b.WriteString(") -> " + ret + ":\n")
	b.WriteString(`    """`)
	doc := strings.TrimSpace(t.Doc)
	for i, line := range strings.Split(doc, "\n") {
		if i > 0 {
			b.WriteByte('\n')
			if strings.TrimSpace(line) != "" {
				b.WriteString("    ")
			}
		}
		b.WriteString(strings.TrimRight(line, " \t"))
	}
	if len(t.Params) > 0 {
		b.WriteString("\n\n    Args:\n")
		for _, p := range t.Params {
			b.WriteString("        " + p.Name + ": " + strings.TrimSpace(p.Doc) + "\n")
		}
		b.WriteString(`    """` + "\n")
	} else if strings.Contains(doc, "\n") {
		b.WriteString("\n    \"\"\"\n")
	} else {
		b.WriteString(`"""` + "\n")
	}
}
