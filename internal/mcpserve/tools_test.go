package mcpserve

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"deskpilot/agent/script"
)

// Each primitive's tool is its catalogue entry: the same docstring, a
// property per parameter with its default, the required ones required.
func TestToolsComeFromTheCatalogue(t *testing.T) {
	cat := catalogueTools()
	if len(cat) != len(Primitives()) {
		t.Fatalf("%d catalogue entries for %d primitives", len(cat), len(Primitives()))
	}
	for _, entry := range cat {
		tool := toolFor(entry)
		if !strings.HasPrefix(tool.Description, entry.Doc) {
			t.Errorf("%s: description %q does not start with the docstring", entry.Name, tool.Description)
		}
		schema := tool.InputSchema.(map[string]any)
		props := schema["properties"].(map[string]any)
		var required []string
		for _, p := range entry.Params {
			prop, ok := props[p.Name].(map[string]any)
			if !ok {
				t.Errorf("%s: no property %s", entry.Name, p.Name)
				continue
			}
			if prop["description"] != p.Doc {
				t.Errorf("%s.%s: description %v", entry.Name, p.Name, prop["description"])
			}
			if p.Default == "" {
				required = append(required, p.Name)
			} else if _, ok := prop["default"]; !ok {
				t.Errorf("%s.%s: no default for %s", entry.Name, p.Name, p.Default)
			}
		}
		got, _ := schema["required"].([]string)
		if !slices.Equal(got, required) {
			t.Errorf("%s: required %v, want %v", entry.Name, got, required)
		}
		if _, err := json.Marshal(schema); err != nil {
			t.Errorf("%s: schema does not marshal: %v", entry.Name, err)
		}
	}
}

// callCode renders the call a model would write; every argument is a
// literal, so hostile strings stay strings. The rendered code is run by
// real Starlark against a builtin that records what it got.
func TestCallCodeIsTheCallWithLiterals(t *testing.T) {
	tools := map[string]script.Tool{}
	for _, e := range catalogueTools() {
		tools[e.Name] = e
	}
	cases := []struct {
		tool, args string
		want       map[string]any // what the builtin receives; nil = refused
	}{
		{"click", `{"x": 640, "y": 400}`, map[string]any{"x": int64(640), "y": int64(400)}},
		{"click", `{"x": 640.0, "y": 1e2, "button": "right"}`, map[string]any{"x": int64(640), "y": int64(100), "button": "right"}},
		{"click", `{"x": 640.5, "y": 1}`, nil},
		{"click", `{"x": "1); launch('xterm'", "y": 2}`, nil},
		{"click", `{"x": 1}`, nil},
		{"click", `{"x": 1, "y": 2, "z": 3}`, nil},
		{"type_text", `{"text": "\"); launch(\"xterm\") #\n\\x00 Grüße ✓"}`, map[string]any{"text": "\"); launch(\"xterm\") #\n\\x00 Grüße ✓"}},
		{"type_text", `{"text": null}`, nil},
		{"find_elements", `{"name": null, "states": ["checked", "!disabled"]}`, map[string]any{"name": nil, "states": []any{"checked", "!disabled"}}},
		{"find_elements", `{"states": [1]}`, nil},
		{"find_text", `{"text": "OK", "exact": true}`, map[string]any{"text": "OK", "exact": true}},
		{"scroll", `{"x": 1, "y": 2, "amount": 1e400}`, nil},
		{"web_search", `{"query": "q", "year": {"a": 1}}`, nil},
	}
	for _, c := range cases {
		args, err := decodeArgs(json.RawMessage(c.args))
		if err != nil {
			if c.want != nil {
				t.Errorf("%s %s: %v", c.tool, c.args, err)
			}
			continue
		}
		code, err := callCode(tools[c.tool], args)
		if c.want == nil {
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("%s %s: rendered %q, want an invalid-params error (got %v)", c.tool, c.args, code, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
			continue
		}
		got := runRecorded(t, c.tool, code)
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(c.want)
		if string(gj) != string(wj) {
			t.Errorf("%s: %q gave %s, want %s", c.tool, code, gj, wj)
		}
	}
}

// runRecorded runs code where name is a builtin recording its keyword
// arguments, and nothing else exists: anything but one call of it fails.
func runRecorded(t *testing.T, name, code string) map[string]any {
	t.Helper()
	got := map[string]any{}
	calls := 0
	fn := starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		calls++
		for _, kv := range kwargs {
			got[string(kv[0].(starlark.String))] = plain(kv[1])
		}
		return starlark.None, nil
	})
	if _, err := starlark.ExecFileOptions(&syntax.FileOptions{}, &starlark.Thread{}, "call", code, starlark.StringDict{name: fn}); err != nil {
		t.Fatalf("%q: %v", code, err)
	}
	if calls != 1 {
		t.Fatalf("%q called %s %d times", code, name, calls)
	}
	return got
}

func plain(v starlark.Value) any {
	switch x := v.(type) {
	case starlark.NoneType:
		return nil
	case starlark.Bool:
		return bool(x)
	case starlark.Int:
		i, _ := x.Int64()
		return i
	case starlark.Float:
		return float64(x)
	case starlark.String:
		return string(x)
	case *starlark.List:
		var out []any
		for i := range x.Len() {
			out = append(out, plain(x.Index(i)))
		}
		return out
	}
	return v.String()
}

func TestHugeArgumentsAreRefused(t *testing.T) {
	raw := json.RawMessage(`{"text": "` + strings.Repeat("a", MaxArgs) + `"}`)
	var rpc *jsonrpc.Error
	if _, err := decodeArgs(raw); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("huge arguments: %v", err)
	}
	if _, err := decodeArgs(json.RawMessage(`[1, 2]`)); err == nil {
		t.Error("an array as arguments was taken")
	}
}

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:0", "", true}, {"localhost:8080", "", true}, {"[::1]:9", "", true},
		{"0.0.0.0:8080", "", false}, {":8080", "", false}, {"192.0.2.1:80", "", false},
		{"0.0.0.0:8080", "t", true}, {"nonsense", "", false},
	} {
		if err := CheckAddr(c.addr, c.token); (err == nil) != c.ok {
			t.Errorf("CheckAddr(%q, %q) = %v", c.addr, c.token, err)
		}
	}
}

// The HTTP guard: the token on every request when set, a foreign Origin
// refused, both answered with a JSON-RPC error body; the handler behind it
// never sees a refused request.
func TestHTTPGuard(t *testing.T) {
	reached := 0
	h := guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }), "tok")
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, c := range []struct {
		auth, origin string
		status       int
	}{
		{"", "", 401}, {"Bearer nope", "", 401}, {"bearer tok", "", 401},
		{"Bearer tok", "https://evil.example", 403}, {"Bearer tok", "http://localhost:3000", 200},
		{"Bearer tok", "", 200}, {"Bearer tok", "null", 403},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("auth %q origin %q: %d, want %d", c.auth, c.origin, resp.StatusCode, c.status)
		}
		if c.status != 200 && !json.Valid(body) {
			t.Errorf("refusal body is not JSON: %s", body)
		}
	}
	if reached != 2 {
		t.Errorf("the handler saw %d requests, want the 2 allowed", reached)
	}
}

// The stdio guard passes JSON-RPC objects on and answers everything else.
func TestGuardLines(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":`,
		``,
		`[1,2]`,
		`{"jsonrpc":"1.0","id":3}`,
		"\x00\xff garbage",
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}, "\n")
	var replies strings.Builder
	r := guardLines(strings.NewReader(in), &replies)
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(passed), "\n"); got != 2 || !strings.Contains(string(passed), `"ping"`) {
		t.Errorf("passed on:\n%s", passed)
	}
	lines := strings.Split(strings.TrimSpace(replies.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "-32700") || !strings.Contains(lines[2], `"id":3`) {
		t.Errorf("replies:\n%s", replies.String())
	}
}
