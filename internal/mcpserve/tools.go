package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"deskpilot/agent/script"
)

// Primitives are the builtins offered as MCP tools of their own, in this
// order: the same entries of the catalogue (script.Builtins) a model's
// prompt lists, so their schemas and descriptions come from one declaration.
func Primitives() []string {
	return []string{"screenshot", "click", "double_click", "right_click", "move", "drag", "mouse_down", "mouse_up", "scroll",
		"type_text", "press", "type_secret", "find_text", "click_text", "find_elements", "click_element",
		"zoom", "inspect_file", "visit_page", "web_search"}
}

// The tools that are not builtins.
const (
	toolRunCode = "run_code"
	toolRunTask = "run_task"
)

// MaxArgs bounds the JSON arguments of one tool call, in bytes; a larger call
// is refused before anything runs.
const MaxArgs = 1 << 20

// catalogueTools returns the catalogue entries of the primitives, by name.
func catalogueTools() []script.Tool {
	var out []script.Tool
	all := script.Builtins()
	for _, name := range Primitives() {
		for _, t := range all {
			if t.Name == name {
				out = append(out, t)
			}
		}
	}
	return out
}

// toolFor is the MCP tool of a catalogue entry: its docstring (plus the
// coordinate note for builtins that take points) and a JSON schema of its
// parameters.
func toolFor(t script.Tool) *mcp.Tool {
	props := map[string]any{}
	var required []string
	for _, p := range t.Params {
		s := schemaOf(p.Type)
		if p.Doc != "" {
			s["description"] = p.Doc
		}
		if p.Default != "" {
			if v, ok := defaultJSON(p.Default); ok {
				s["default"] = v
			}
		} else {
			required = append(required, p.Name)
		}
		props[p.Name] = s
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		schema["required"] = required
	}
	desc := t.Doc
	if t.Kind == script.KindPointer || t.Name == "zoom" {
		desc += " Coordinates are in the space of the screenshot tool's image (its text says which)."
	}
	if t.Returns != "" {
		desc += " Returns " + t.Returns + ", shown in the result's text."
	}
	ann := &mcp.ToolAnnotations{Title: strings.ReplaceAll(t.Name, "_", " ")}
	switch {
	case t.Kind == script.KindScreen:
		ann.ReadOnlyHint = true
	case t.Kind.Acts():
		destructive := t.Risk != ""
		ann.DestructiveHint = &destructive
	}
	return &mcp.Tool{Name: t.Name, Description: desc, InputSchema: schema, Annotations: ann}
}

// schemaOf is the JSON schema of a catalogue parameter's Python type.
func schemaOf(pyType string) map[string]any {
	var types []string
	var items map[string]any
	for _, part := range strings.Split(pyType, "|") {
		switch part = strings.TrimSpace(part); {
		case part == "int":
			types = append(types, "integer")
		case part == "float":
			types = append(types, "number")
		case part == "str":
			types = append(types, "string")
		case part == "bool":
			types = append(types, "boolean")
		case part == "None":
			types = append(types, "null")
		case strings.HasPrefix(part, "list["):
			types = append(types, "array")
			items = schemaOf(strings.TrimSuffix(strings.TrimPrefix(part, "list["), "]"))
		}
	}
	s := map[string]any{}
	switch len(types) {
	case 0: // Any
	case 1:
		s["type"] = types[0]
	default:
		s["type"] = types
	}
	if items != nil {
		s["items"] = items
	}
	return s
}

// defaultJSON is a Starlark default literal as a JSON value.
func defaultJSON(lit string) (any, bool) {
	switch lit {
	case "None":
		return nil, true
	case "True":
		return true, true
	case "False":
		return false, true
	}
	if s, err := strconv.Unquote(lit); err == nil {
		return s, true
	}
	if n, err := strconv.ParseFloat(lit, 64); err == nil {
		return n, true
	}
	return nil, false
}

// invalid is the JSON-RPC error of arguments a tool cannot take.
func invalid(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// decodeArgs reads a call's arguments: a JSON object of at most MaxArgs
// bytes, numbers kept exact.
func decodeArgs(raw json.RawMessage) (map[string]any, error) {
	if len(raw) > MaxArgs {
		return nil, invalid("arguments of %d bytes are more than the %d a call may have", len(raw), MaxArgs)
	}
	args := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return args, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&args); err != nil {
		return nil, invalid("arguments must be a JSON object: %v", err)
	}
	return args, nil
}

// callCode checks args against t's parameters and renders the call as
// Starlark, e.g. `click(x=640, y=400, button="right")`: the code a model
// would write, run by the same executor and guard. Every value is a literal
// built here, so no argument can inject code.
func callCode(t script.Tool, args map[string]any) (string, error) {
	var parts []string
	for _, p := range t.Params {
		v, ok := args[p.Name]
		if !ok {
			if p.Default == "" {
				return "", invalid("%s: missing required argument %q", t.Name, p.Name)
			}
			continue
		}
		lit, err := literal(v, p.Type, 0)
		if err != nil {
			return "", invalid("%s: argument %q: %v", t.Name, p.Name, err)
		}
		parts = append(parts, p.Name+"="+lit)
	}
	for k := range args {
		if !slices.ContainsFunc(t.Params, func(p script.Param) bool { return p.Name == k }) {
			return "", invalid("%s: unknown argument %q (it takes %s)", t.Name, k, paramNames(t))
		}
	}
	return t.Name + "(" + strings.Join(parts, ", ") + ")", nil
}

func paramNames(t script.Tool) string {
	if len(t.Params) == 0 {
		return "none"
	}
	var names []string
	for _, p := range t.Params {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// maxDepth bounds the nesting of an argument's value.
const maxDepth = 8

// literal renders a JSON value as a Starlark literal of the Python type
// pyType ("" or "Any" = any type).
func literal(v any, pyType string, depth int) (string, error) {
	if depth > maxDepth {
		return "", fmt.Errorf("nested more than %d deep", maxDepth)
	}
	allowed := schemaOf(pyType)["type"]
	accepts := func(kind string) bool {
		switch a := allowed.(type) {
		case nil:
			return true
		case string:
			return a == kind
		case []string:
			return slices.Contains(a, kind)
		}
		return false
	}
	switch x := v.(type) {
	case nil:
		if accepts("null") {
			return "None", nil
		}
	case bool:
		if accepts("boolean") {
			if x {
				return "True", nil
			}
			return "False", nil
		}
	case string:
		if accepts("string") {
			return strconv.Quote(x), nil
		}
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "", fmt.Errorf("%s is not a number", x)
		}
		if i, err := x.Int64(); err == nil && (accepts("integer") || accepts("number")) {
			return strconv.FormatInt(i, 10), nil
		}
		if accepts("integer") && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10), nil
		}
		if accepts("number") {
			return strconv.FormatFloat(f, 'g', -1, 64), nil
		}
	case []any:
		if accepts("array") {
			item := ""
			if s, ok := schemaOf(pyType)["items"].(map[string]any); ok {
				item = pyOf(s)
			}
			var out []string
			for _, it := range x {
				l, err := literal(it, item, depth+1)
				if err != nil {
					return "", err
				}
				out = append(out, l)
			}
			return "[" + strings.Join(out, ", ") + "]", nil
		}
	case map[string]any:
		if allowed == nil {
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var out []string
			for _, k := range keys {
				l, err := literal(x[k], "", depth+1)
				if err != nil {
					return "", err
				}
				out = append(out, strconv.Quote(k)+": "+l)
			}
			return "{" + strings.Join(out, ", ") + "}", nil
		}
	}
	return "", fmt.Errorf("must be %s, got %s", pyType, jsonKind(v))
}

// pyOf turns an item schema back into the Python type literal checks with.
func pyOf(s map[string]any) string {
	switch s["type"] {
	case "integer":
		return "int"
	case "number":
		return "float"
	case "string":
		return "str"
	case "boolean":
		return "bool"
	}
	return ""
}

// jsonKind names the JSON type of v, for errors.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
