// Package mcptools owns MCP servers as tools of deskpilot's agent: at run
// start it connects to each [mcp.servers.NAME] of the config (a program
// spoken to over its standard input and output, or a streamable HTTP
// address), lists its tools and offers each to the model as the builtin
// NAME_tool, its JSON schema turned into parameters. Starlark values go in
// as JSON; the tool's text comes back as the builtin's value and its images
// reach the model with the next observation. A server whose risk is confirm
// (the default) has each call approved by the person first. A server that
// cannot be reached is one log line; the run goes on without it.
package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif"  // images servers return
	_ "image/jpeg" // images servers return
	_ "image/png"  // images servers return
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.starlark.net/starlark"

	"deskpilot/actions"
	"deskpilot/agent/script"
	"deskpilot/internal/config"
)

// Options say which servers to reach and how calls are approved.
type Options struct {
	Servers map[string]config.MCPServer
	// Secrets resolves "${name}" in a server's env, url and headers; nil =
	// none (a reference is then an error for that server).
	Secrets func(name string) (string, bool)
	// Approve asks the person to approve a call (agent.Agent.Approve).
	Approve func(ctx context.Context, action string) error
	// Env is the environment of started servers before their own env; nil =
	// this process's.
	Env []string
	// Log receives one line per server that failed; nil discards.
	Log *slog.Logger
	// Version is deskpilot's, sent in the handshake.
	Version string
	// Timeout bounds connecting and listing one server; 0 = 20 s.
	Timeout time.Duration
}

// Set is the connected servers and their tools.
type Set struct {
	Tools    []script.Tool
	Problems []string // one line per server that could not be used
	sessions []*mcp.ClientSession
}

// Close ends every session (stopping the servers started). Safe on nil.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, cs := range s.sessions {
		errs = append(errs, cs.Close())
	}
	s.sessions = nil
	return errors.Join(errs...)
}

// Connect reaches every server, in parallel, and collects their tools in
// the order of the servers' names.
func Connect(ctx context.Context, o Options) *Set {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Timeout <= 0 {
		o.Timeout = 20 * time.Second
	}
	names := slices.Sorted(maps.Keys(o.Servers))
	type got struct {
		cs    *mcp.ClientSession
		tools []script.Tool
		err   error
	}
	results := make([]got, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			cs, tools, err := connect(ctx, o, name, o.Servers[name])
			results[i] = got{cs, tools, err}
		})
	}
	wg.Wait()
	set := &Set{}
	seen := map[string]bool{}
	for i, r := range results {
		if r.err != nil {
			line := fmt.Sprintf("MCP server %s: %v; the run goes on without its tools", names[i], r.err)
			set.Problems = append(set.Problems, line)
			o.Log.Warn(line)
			continue
		}
		set.sessions = append(set.sessions, r.cs)
		for _, t := range r.tools {
			if seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			set.Tools = append(set.Tools, t)
		}
	}
	return set
}

// connect starts or reaches one server and lists its tools. Its error never
// holds the value of a secret the server's settings name (an address with
// a key in it comes back in a failed request's error): each is [secret:NAME].
func connect(ctx context.Context, o Options, name string, srv config.MCPServer) (_ *mcp.ClientSession, _ []script.Tool, err error) {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	used := map[string]string{} // the secrets expanded, by name
	secrets := func(n string) (string, bool) {
		v, ok := "", false
		if o.Secrets != nil {
			v, ok = o.Secrets(n)
		}
		if ok && v != "" {
			used[n] = v
		}
		return v, ok
	}
	defer func() {
		if err != nil && len(used) > 0 {
			err = errors.New(hideSecrets(err.Error(), used))
		}
	}()
	expand := func(s string) (string, error) { return expandSecrets(s, secrets) }
	var transport mcp.Transport
	if srv.Command != "" {
		cmd := exec.Command(srv.Command, srv.Args...)
		cmd.Env = slices.Clone(o.Env)
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		for _, k := range slices.Sorted(maps.Keys(srv.Env)) {
			v, err := expand(srv.Env[k])
			if err != nil {
				return nil, nil, fmt.Errorf("env %s: %w", k, err)
			}
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = nil // a server's own log stays out of deskpilot's terminal and trace
		transport = &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	} else {
		u, err := expand(srv.URL)
		if err != nil {
			return nil, nil, fmt.Errorf("url: %w", err)
		}
		hdr := http.Header{}
		for k, v := range srv.Headers {
			if v, err = expand(v); err != nil {
				return nil, nil, fmt.Errorf("header %s: %w", k, err)
			}
			hdr.Set(k, v)
		}
		client := &http.Client{Transport: headerTransport{base: http.DefaultTransport, hdr: hdr}}
		transport = &mcp.StreamableClientTransport{Endpoint: u, HTTPClient: client, MaxRetries: -1, DisableStandaloneSSE: true}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "deskpilot", Version: o.Version}, nil)
	cs, err := c.Connect(context.WithoutCancel(ctx), transport, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("could not connect: %w", err)
	}
	var tools []script.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			_ = cs.Close()
			return nil, nil, fmt.Errorf("listing its tools: %w", err)
		}
		if len(tools) >= MaxTools {
			break
		}
		tools = append(tools, builtin(o, name, srv, cs, t))
	}
	return cs, tools, nil
}

// MaxTools bounds the tools taken from one server.
const MaxTools = 100

// headerTransport adds a server's headers to every request.
type headerTransport struct {
	base http.RoundTripper
	hdr  http.Header
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.hdr {
		r.Header[k] = v
	}
	return h.base.RoundTrip(r)
}

// expandSecrets replaces each "${name}" in s with the secret of that name.
func expandSecrets(s string, secrets func(string) (string, bool)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return "", errors.New(`"${" without its "}"`)
		}
		name := strings.ToLower(strings.TrimSpace(s[i+2 : i+j]))
		v, ok := "", false
		if secrets != nil {
			v, ok = secrets(name)
		}
		if !ok {
			return "", fmt.Errorf("no secret called %q (add it in Settings, Secrets, or set DESKPILOT_SECRET_%s)", name, strings.ToUpper(name))
		}
		b.WriteString(s[:i])
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// hideSecrets replaces each value of secrets in s with [secret:NAME],
// longest value first.
func hideSecrets(s string, secrets map[string]string) string {
	names := slices.Collect(maps.Keys(secrets))
	slices.SortFunc(names, func(a, b string) int { return len(secrets[b]) - len(secrets[a]) })
	for _, n := range names {
		s = strings.ReplaceAll(s, secrets[n], "[secret:"+n+"]")
	}
	return s
}

// SecretNames lists the secrets servers name with "${name}" in their env,
// url and headers, sorted, each once: what a run must resolve (from the
// environment or the keyring) before it connects.
func SecretNames(servers map[string]config.MCPServer) []string {
	var out []string
	collect := func(s string) {
		_, _ = expandSecrets(s, func(n string) (string, bool) {
			out = append(out, n)
			return "", true
		})
	}
	for _, srv := range servers {
		collect(srv.URL)
		for _, v := range srv.Env {
			collect(v)
		}
		for _, v := range srv.Headers {
			collect(v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// BuiltinName is the builtin of server's tool: NAME_tool, lower case, every
// character that cannot be in a name made "_".
func BuiltinName(server, tool string) string {
	var b strings.Builder
	b.WriteString(server)
	b.WriteByte('_')
	for _, r := range strings.ToLower(tool) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// builtin is the script.Tool of one MCP tool.
func builtin(o Options, server string, srv config.MCPServer, cs *mcp.ClientSession, t *mcp.Tool) script.Tool {
	params, props := paramsOf(t.InputSchema)
	doc := strings.TrimSpace(t.Description)
	if doc == "" {
		doc = "The " + t.Name + " tool of the MCP server " + server + "."
	}
	doc = clip(doc, 1500) + fmt.Sprintf(" (MCP server %s, tool %s; returns its text; images it returns are shown with the next observation.)", server, t.Name)
	name := BuiltinName(server, t.Name)
	return script.Tool{
		Name: name, Group: "mcp: " + server, Params: params, Returns: "str", Doc: doc, Kind: script.KindResearch,
		Fn: func(c *script.Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			return call(c, o, server, srv, cs, t.Name, params, props)
		},
	}
}

// paramsOf turns an input schema's properties into parameters: required
// ones first, in the schema's order where it has one (JSON objects have
// none, so by name). A property whose name is no identifier becomes the
// parameter "args" taking the whole arguments as a dict.
func paramsOf(schema any) ([]script.Param, map[string]bool) {
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	data, _ := json.Marshal(schema)
	_ = json.Unmarshal(data, &s)
	props := map[string]bool{}
	var req, opt []script.Param
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		if !identifier(k) {
			return []script.Param{{Name: "args", Type: "dict", Default: "None", Doc: "the arguments, as the tool's JSON schema names them."}}, nil
		}
		props[k] = true
		p := s.Properties[k]
		param := script.Param{Name: k, Type: pyType(p.Type), Doc: clip(p.Description, 300)}
		if slices.Contains(s.Required, k) {
			req = append(req, param)
		} else {
			param.Default = "None"
			opt = append(opt, param)
		}
	}
	return append(req, opt...), props
}

// identifier reports whether k can be a Starlark parameter name.
func identifier(k string) bool {
	if k == "" || k[0] >= '0' && k[0] <= '9' || len(k) > 64 {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	switch k {
	case "and", "or", "not", "if", "else", "elif", "for", "in", "def", "return", "pass", "break", "continue", "lambda", "load", "while", "None", "True", "False":
		return false
	}
	return true
}

// pyType is the Python type of a JSON schema type, for the stub.
func pyType(t any) string {
	m := map[string]string{"string": "str", "integer": "int", "number": "float", "boolean": "bool", "array": "list", "object": "dict", "null": "None"}
	switch x := t.(type) {
	case string:
		return m[x]
	case []any:
		var parts []string
		for _, it := range x {
			if s, ok := it.(string); ok && m[s] != "" {
				parts = append(parts, m[s])
			}
		}
		return strings.Join(parts, " | ")
	}
	return "Any"
}

// call runs one call of an MCP tool from Starlark.
func call(c *script.Call, o Options, server string, srv config.MCPServer, cs *mcp.ClientSession, tool string, params []script.Param, props map[string]bool) (starlark.Value, error) {
	a, err := c.Bind()
	if err != nil {
		return nil, err
	}
	args := map[string]any{}
	for _, p := range params {
		if a.IsNone(p.Name) {
			continue
		}
		v, err := toJSON(a.Value(p.Name), 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
		if props == nil { // the one "args" dict
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("args must be a dict, got %s", a.Value(p.Name).Type())
			}
			args = m
			continue
		}
		args[p.Name] = v
	}
	if err := a.Err(); err != nil {
		return nil, err
	}
	rec := actions.Record{Name: c.Name, Args: c.ArgsText(), Start: c.Now()}
	defer func() { rec.Duration = c.Now().Sub(rec.Start); c.Log(rec) }()
	resume := c.Untimed()
	defer resume()
	if srv.Confirms() {
		if err := o.Approve(c.Ctx, fmt.Sprintf("%s(%s): the tool %s of the MCP server %s", c.Name, clip(c.ArgsText(), 300), tool, server)); err != nil {
			rec.Error = err.Error()
			return nil, err
		}
	}
	res, err := cs.CallTool(c.Ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		rec.Error = err.Error()
		return nil, fmt.Errorf("the MCP server %s: %w", server, err)
	}
	text, images := contentOf(res)
	for i, img := range images {
		c.Attach(script.Attachment{Label: fmt.Sprintf("image %d from %s", i+1, c.Name), Image: img})
	}
	if res.IsError {
		rec.Error = clip(text, 500)
		return nil, fmt.Errorf("the tool said: %s", clip(text, 4000))
	}
	rec.Result = fmt.Sprintf("%d characters of text", len(text))
	if len(images) > 0 {
		rec.Result += fmt.Sprintf(", %d images", len(images))
	}
	return starlark.String(text), nil
}

// MaxText bounds the text one call returns to the code.
const MaxText = 200_000

// contentOf is a result's text (text parts joined; structured content as
// JSON when there is no text) and its images, decoded.
func contentOf(res *mcp.CallToolResult) (string, []*image.RGBA) {
	var parts []string
	var images []*image.RGBA
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, x.Text)
		case *mcp.ImageContent:
			if img, err := decodeImage(x.Data); err == nil {
				images = append(images, img)
			} else {
				parts = append(parts, fmt.Sprintf("[an image (%s) deskpilot could not read: %v]", x.MIMEType, err))
			}
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", x.URI))
		case *mcp.EmbeddedResource:
			if x.Resource != nil && x.Resource.Text != "" {
				parts = append(parts, x.Resource.Text)
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(data))
		}
	}
	return clip(strings.Join(parts, "\n"), MaxText), images
}

// maxImagePixels bounds an image a server returns.
const maxImagePixels = 40 << 20

// decodeImage reads an image a server returned; a PNG's ancillary chunks
// that fail their checksum are dropped first (repairPNG).
func decodeImage(data []byte) (*image.RGBA, error) {
	data, _, err := repairPNG(data)
	if err != nil {
		return nil, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if cfg.Width*cfg.Height > maxImagePixels {
		return nil, fmt.Errorf("%dx%d is too large", cfg.Width, cfg.Height)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	rgba := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(rgba, rgba.Bounds(), img, img.Bounds().Min, draw.Src)
	return rgba, nil
}

// maxDepth bounds the nesting of a value sent.
const maxDepth = 32

// toJSON converts a Starlark value for the tool's arguments.
func toJSON(v starlark.Value, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("value nested too deeply")
	}
	switch x := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(x), nil
	case starlark.Int:
		if i, ok := x.Int64(); ok {
			return i, nil
		}
		return json.Number(x.String()), nil
	case starlark.Float:
		return float64(x), nil
	case starlark.String:
		return string(x), nil
	case *starlark.List, starlark.Tuple:
		it := x.(starlark.Iterable).Iterate()
		defer it.Done()
		out := []any{}
		var e starlark.Value
		for it.Next(&e) {
			j, err := toJSON(e, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case *starlark.Dict:
		out := map[string]any{}
		for _, kv := range x.Items() {
			k, ok := kv[0].(starlark.String)
			if !ok {
				return nil, fmt.Errorf("dict keys must be strings, got %s", kv[0].Type())
			}
			j, err := toJSON(kv[1], depth+1)
			if err != nil {
				return nil, err
			}
			out[string(k)] = j
		}
		return out, nil
	}
	return nil, fmt.Errorf("a %s cannot be sent to an MCP tool (use str, int, float, bool, None, list or dict)", v.Type())
}

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
