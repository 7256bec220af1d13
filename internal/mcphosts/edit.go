package mcphosts

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// entryObject is the entry as the host's JSON format writes it.
func entryObject(f format, e Entry) *object {
	o := newObject()
	if f == formatClaudeCode || f == formatVSCode {
		o.set("type", "stdio")
	}
	o.set("command", e.Command)
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		args[i] = a
	}
	o.set("args", args)
	if len(e.Env) > 0 {
		env := newObject()
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			env.set(k, e.Env[k])
		}
		o.set("env", env)
	}
	return o
}

// editJSON adds (e set) or removes deskpilot's entry in a JSON host file.
func editJSON(c *Change, t Target, scope string, e *Entry) error {
	doc, err := parseObject(c.Before)
	if err != nil {
		return err
	}
	parent := doc
	if t.Host.format == formatClaudeCode && scope == ScopeLocal {
		projects, err := doc.child("projects")
		if err != nil {
			return err
		}
		if parent, err = projects.child(t.Dir); err != nil {
			return err
		}
	}
	key := "mcpServers"
	if t.Host.format == formatVSCode {
		key = "servers"
	}
	servers, err := parent.child(key)
	if err != nil {
		return err
	}
	old, had := servers.get(ServerName)
	if e == nil {
		if !had {
			c.Action, c.After = "absent", c.Before
			return nil
		}
		servers.del(ServerName)
		c.Action, c.After = "removed", doc.marshal()
		return nil
	}
	want := entryObject(t.Host.format, *e)
	c.Entry = fmt.Sprintf("%q: %s", ServerName, strings.TrimSpace(string(want.marshal())))
	if had && sameJSON(old, want) {
		c.Action, c.After = "unchanged", c.Before
		return nil
	}
	c.Action = "added"
	if had {
		c.Action = "replaced"
	}
	servers.set(ServerName, want)
	c.After = doc.marshal()
	return nil
}

// sameJSON compares two parsed values, key order aside.
func sameJSON(a, b any) bool {
	return bytes.Equal(canonical(a), canonical(b))
}

func canonical(v any) []byte {
	var b bytes.Buffer
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case *object:
			b.WriteByte('{')
			for _, k := range slices.Sorted(maps.Keys(x.vals)) {
				writeString(&b, k)
				b.WriteByte(':')
				walk(x.vals[k])
				b.WriteByte(',')
			}
			b.WriteByte('}')
		case []any:
			b.WriteByte('[')
			for _, it := range x {
				walk(it)
				b.WriteByte(',')
			}
			b.WriteByte(']')
		default:
			writeValue(&b, x, 0)
		}
	}
	walk(v)
	return b.Bytes()
}

// codexTable is the TOML table of deskpilot's entry in Codex's config.
const codexTable = "mcp_servers." + ServerName

// editTOML adds or removes deskpilot's [mcp_servers.deskpilot] table in
// Codex's config.toml as text, so comments and the order of everything else
// stay as they are; the result is parsed again to check it holds exactly the
// entry asked for.
func editTOML(c *Change, e *Entry) error {
	var parsed map[string]any
	if _, err := toml.Decode(string(c.Before), &parsed); err != nil {
		return err
	}
	old, had := codexEntry(parsed)
	lines := strings.SplitAfter(string(c.Before), "\n")
	start, end, inline := findTable(lines)
	if had && start < 0 {
		return fmt.Errorf("deskpilot's entry is written in a form this edit does not change (%s); edit it by hand", inline)
	}
	var block string
	if e != nil {
		block = codexBlock(*e)
		c.Entry = block
	}
	switch {
	case e == nil && !had:
		c.Action, c.After = "absent", c.Before
		return nil
	case e == nil:
		c.Action = "removed"
		c.After = []byte(strings.Join(slices.Concat(lines[:start], lines[end:]), ""))
	case had && reflect.DeepEqual(old, wantTOML(*e)):
		c.Action, c.After = "unchanged", c.Before
		return nil
	case had:
		c.Action = "replaced"
		if end < len(lines) {
			block += "\n"
		}
		c.After = []byte(strings.Join(slices.Concat(lines[:start], []string{block}, lines[end:]), ""))
	default:
		c.Action = "added"
		text := string(c.Before)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		c.After = []byte(text + block)
	}
	var check map[string]any
	if _, err := toml.Decode(string(c.After), &check); err != nil {
		return fmt.Errorf("the edited file would not parse (%v); edit it by hand", err)
	}
	got, has := codexEntry(check)
	if e == nil && has || e != nil && !reflect.DeepEqual(got, wantTOML(*e)) {
		return fmt.Errorf("the edit did not give the entry asked for; edit [%s] by hand", codexTable)
	}
	return nil
}

// codexEntry is deskpilot's entry in a parsed config.
func codexEntry(doc map[string]any) (map[string]any, bool) {
	servers, _ := doc["mcp_servers"].(map[string]any)
	e, ok := servers[ServerName].(map[string]any)
	return e, ok
}

// wantTOML is the entry as the TOML parser reads codexBlock.
func wantTOML(e Entry) map[string]any {
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		args[i] = a
	}
	m := map[string]any{"command": e.Command, "args": args}
	if len(e.Env) > 0 {
		env := map[string]any{}
		for k, v := range e.Env {
			env[k] = v
		}
		m["env"] = env
	}
	return m
}

// codexBlock is the entry's TOML text.
func codexBlock(e Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\ncommand = %s\nargs = [", codexTable, tomlString(e.Command))
	for i, a := range e.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tomlString(a))
	}
	b.WriteString("]\n")
	if len(e.Env) > 0 {
		fmt.Fprintf(&b, "\n[%s.env]\n", codexTable)
		for _, k := range slices.Sorted(maps.Keys(e.Env)) {
			fmt.Fprintf(&b, "%s = %s\n", tomlString(k), tomlString(e.Env[k]))
		}
	}
	return b.String()
}

// tomlString is a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string { return strconv.Quote(s) }

// findTable finds the lines of [mcp_servers.deskpilot] and its subtables:
// start, end (exclusive), or -1 and how the entry is written otherwise.
func findTable(lines []string) (start, end int, other string) {
	start = -1
	for i, l := range lines {
		h, ok := tableHeader(l)
		switch {
		case !ok:
			continue
		case h == codexTable || strings.HasPrefix(h, codexTable+"."):
			if start < 0 {
				start = i
			}
		case start >= 0:
			return start, trimBlank(lines, start, i), ""
		}
	}
	if start >= 0 {
		return start, len(lines), ""
	}
	return -1, -1, "an inline table or dotted keys"
}

// trimBlank keeps the blank lines and comments before the next table (they
// belong to it) out of the block.
func trimBlank(lines []string, start, end int) int {
	for end > start+1 {
		l := strings.TrimSpace(lines[end-1])
		if l != "" && !strings.HasPrefix(l, "#") {
			break
		}
		end--
	}
	return end
}

// tableHeader reads a "[table]" line's name, quotes and spaces removed.
func tableHeader(line string) (string, bool) {
	l := strings.TrimSpace(line)
	if i := strings.Index(l, "#"); i >= 0 && !strings.Contains(l[:i], `"`) {
		l = strings.TrimSpace(l[:i])
	}
	if !strings.HasPrefix(l, "[") || strings.HasPrefix(l, "[[") || !strings.HasSuffix(l, "]") {
		return "", false
	}
	var parts []string
	for _, p := range strings.Split(strings.Trim(l, "[]"), ".") {
		parts = append(parts, strings.Trim(strings.TrimSpace(p), `"'`))
	}
	return strings.Join(parts, "."), true
}
