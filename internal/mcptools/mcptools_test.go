package mcptools

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.starlark.net/starlark"

	"deskpilot/internal/config"
)

func TestBuiltinName(t *testing.T) {
	for in, want := range map[string]string{"echo": "gh_echo", "get-sum": "gh_get_sum", "Files.Read": "gh_files_read", "a b/ü": "gh_a_b__"} {
		if got := BuiltinName("gh", in); got != want {
			t.Errorf("BuiltinName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestExpandSecrets(t *testing.T) {
	secrets := func(n string) (string, bool) { return map[string]string{"github": "ghp_123"}[n], n == "github" }
	if got, err := expandSecrets("Bearer ${github}!", secrets); err != nil || got != "Bearer ghp_123!" {
		t.Errorf("%q %v", got, err)
	}
	for _, bad := range []string{"${nope}", "${github", "x ${ }"} {
		if _, err := expandSecrets(bad, secrets); err == nil {
			t.Errorf("%q expanded", bad)
		}
	}
	if _, err := expandSecrets("${github}", nil); err == nil || !strings.Contains(err.Error(), "DESKPILOT_SECRET_GITHUB") {
		t.Errorf("no secrets: %v", err)
	}
}

// Parameters from a schema: required first, the rest default None; a
// property that is no identifier makes one args dict.
func TestParamsOf(t *testing.T) {
	params, props := paramsOf(map[string]any{"type": "object", "required": []string{"b"},
		"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": []any{"string", "null"}, "description": "bee"}}})
	if len(params) != 2 || params[0].Name != "b" || params[0].Default != "" || params[0].Type != "str | None" || params[0].Doc != "bee" ||
		params[1].Name != "a" || params[1].Default != "None" || params[1].Type != "int" || !props["a"] {
		t.Errorf("params %+v", params)
	}
	params, props = paramsOf(map[string]any{"properties": map[string]any{"not-a-name": map[string]any{}, "for": map[string]any{}}})
	if len(params) != 1 || params[0].Name != "args" || props != nil {
		t.Errorf("odd names: %+v", params)
	}
}

func TestToJSON(t *testing.T) {
	d := starlark.NewDict(2)
	_ = d.SetKey(starlark.String("k"), starlark.NewList([]starlark.Value{starlark.MakeInt(1), starlark.Float(2.5), starlark.None, starlark.True}))
	v, err := toJSON(d, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)["k"].([]any)
	if m[0] != int64(1) || m[1] != 2.5 || m[2] != nil || m[3] != true {
		t.Errorf("%v", m)
	}
	bad := starlark.NewDict(1)
	_ = bad.SetKey(starlark.MakeInt(1), starlark.None)
	if _, err := toJSON(bad, 0); err == nil {
		t.Error("an int key was sent")
	}
	deep := starlark.Value(starlark.None)
	for range 40 {
		deep = starlark.NewList([]starlark.Value{deep})
	}
	if _, err := toJSON(deep, 0); err == nil {
		t.Error("a value nested 40 deep was sent")
	}
}

// Text parts are joined, structured content stands in for missing text,
// images are decoded (a broken one is named in the text), all bounded.
func TestContentOf(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	text, images := contentOf(&mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a"}, &mcp.ImageContent{Data: buf.Bytes(), MIMEType: "image/png"},
		&mcp.ImageContent{Data: []byte("\x89PNG broken"), MIMEType: "image/png"}, &mcp.TextContent{Text: "b"}}})
	if len(images) != 1 || images[0].Bounds().Dx() != 3 || images[0].RGBAAt(1, 1).R != 255 {
		t.Errorf("images %v", images)
	}
	if !strings.HasPrefix(text, "a\n[an image (image/png) deskpilot could not read") || !strings.HasSuffix(text, "\nb") {
		t.Errorf("text %q", text)
	}
	if text, _ := contentOf(&mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}}); text != `{"n":1}` {
		t.Errorf("structured %q", text)
	}
	if text, _ := contentOf(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", MaxText+10)}}}); len(text) > MaxText+4 {
		t.Errorf("text of %d bytes", len(text))
	}
}

// A server that cannot be started or reached is one problem line each; the
// set goes on with none of its tools.
func TestConnectFailures(t *testing.T) {
	set := Connect(context.Background(), Options{Servers: map[string]config.MCPServer{
		"gone":   {Command: "/nonexistent/server"},
		"nohost": {URL: "http://127.0.0.1:1/mcp"},
		"nokey":  {URL: "http://127.0.0.1:1/${missing}"},
	}})
	defer set.Close()
	if len(set.Tools) != 0 || len(set.Problems) != 3 {
		t.Fatalf("tools %d, problems %q", len(set.Tools), set.Problems)
	}
	for _, p := range set.Problems {
		if strings.Count(p, "\n") != 0 || !strings.Contains(p, "the run goes on without its tools") {
			t.Errorf("problem %q", p)
		}
	}
}

func TestSecretNames(t *testing.T) {
	servers := map[string]config.MCPServer{
		"a": {URL: "https://x/${Key}?t=${token}", Headers: map[string]string{"Authorization": "Bearer ${token}"}},
		"b": {Command: "srv", Env: map[string]string{"X": "${other}", "Y": "plain"}},
	}
	if got := strings.Join(SecretNames(servers), ","); got != "key,other,token" {
		t.Errorf("SecretNames = %s, want key,other,token", got)
	}
	if got := hideSecrets(`Post "https://x/abc?t=abcdef"`, map[string]string{"key": "abc", "token": "abcdef"}); got != `Post "https://x/[secret:key]?t=[secret:token]"` {
		t.Errorf("hideSecrets: %s", got)
	}
}
