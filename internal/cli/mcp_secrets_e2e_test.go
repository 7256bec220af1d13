//go:build linux

package cli

import (
	"bufio"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/testapps"
)

// privateSessionBus starts a D-Bus session bus of the test's own and returns its
// address.
func privateSessionBus(t *testing.T) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("no dbus-daemon: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(line)
}

// secretService is a Secret Service (org.freedesktop.secrets, what GNOME
// Keyring and KWallet serve) on a D-Bus bus, holding items by service and
// account, as the OS keyring client reads them: OpenSession (plain), Unlock,
// the default collection's SearchItems, an item's GetSecret.
type secretService struct {
	conn  *dbus.Conn
	items map[dbus.ObjectPath]ssItem
}

type ssItem struct{ service, account, value string }

// ssSecret is the Secret Service's Secret struct, (oayays).
type ssSecret struct {
	Session     dbus.ObjectPath
	Parameters  []byte
	Value       []byte
	ContentType string
}

const ssSession = dbus.ObjectPath("/org/freedesktop/secrets/session/1")

func startSecretService(t *testing.T, bus string, items ...ssItem) {
	t.Helper()
	conn, err := dbus.Connect(bus)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	s := &secretService{conn: conn, items: map[dbus.ObjectPath]ssItem{}}
	for i, it := range items {
		s.items[dbus.ObjectPath(fmt.Sprintf("/org/freedesktop/secrets/collection/login/%d", i+1))] = it
	}
	for path, iface := range map[dbus.ObjectPath]string{
		"/org/freedesktop/secrets":                 "org.freedesktop.Secret.Service",
		"/org/freedesktop/secrets/aliases/default": "org.freedesktop.Secret.Collection",
		ssSession: "org.freedesktop.Secret.Session",
	} {
		if err := conn.Export(s, path, iface); err != nil {
			t.Fatal(err)
		}
	}
	for path := range s.items {
		if err := conn.Export(ssItemObject{s, path}, path, "org.freedesktop.Secret.Item"); err != nil {
			t.Fatal(err)
		}
	}
	if reply, err := conn.RequestName("org.freedesktop.secrets", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.secrets: %v %v", reply, err)
	}
}

// OpenSession is Service.OpenSession: a plain session.
func (s *secretService) OpenSession(algorithm string, _ dbus.Variant) (dbus.Variant, dbus.ObjectPath, *dbus.Error) {
	if algorithm != "plain" {
		return dbus.MakeVariant(""), "/", dbus.MakeFailedError(fmt.Errorf("algorithm %q is not supported", algorithm))
	}
	return dbus.MakeVariant(""), ssSession, nil
}

// Unlock is Service.Unlock: everything is unlocked, no prompt.
func (s *secretService) Unlock(objects []dbus.ObjectPath) ([]dbus.ObjectPath, dbus.ObjectPath, *dbus.Error) {
	return objects, "/", nil
}

// SearchItems is Collection.SearchItems.
func (s *secretService) SearchItems(attrs map[string]string) ([]dbus.ObjectPath, *dbus.Error) {
	out := []dbus.ObjectPath{}
	for path, it := range s.items {
		if attrs["service"] == it.service && attrs["username"] == it.account {
			out = append(out, path)
		}
	}
	return out, nil
}

// Close is Session.Close.
func (s *secretService) Close() *dbus.Error { return nil }

type ssItemObject struct {
	s    *secretService
	path dbus.ObjectPath
}

// GetSecret is Item.GetSecret.
func (o ssItemObject) GetSecret(session dbus.ObjectPath) (ssSecret, *dbus.Error) {
	if session != ssSession {
		return ssSecret{}, dbus.MakeFailedError(fmt.Errorf("no session %s", session))
	}
	return ssSecret{Session: session, Parameters: []byte{}, Value: []byte(o.s.items[o.path].value), ContentType: "text/plain; charset=utf8"}, nil
}

// everythingHTTP starts the reference server-everything over streamable
// HTTP and returns its address.
func everythingHTTP(t *testing.T) *url.URL {
	t.Helper()
	dir := nodeDir(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.CommandContext(t.Context(), "node", filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				listening <- true
			}
		}
		close(listening)
	}()
	select {
	case ok := <-listening:
		if !ok {
			t.Fatal("server-everything ended before it listened")
		}
	case <-time.After(time.Minute):
		t.Fatal("server-everything did not listen")
	}
	return &url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
}

// An [mcp.servers.NAME] reached by url with a header holding "${name}":
// `deskpilot run` reads that secret from the OS keyring (a Secret Service
// on the session bus, where the app keeps it) when the environment has
// none. The header reaches the server (a proxy in front of the real
// server-everything over streamable HTTP refuses requests without it), the
// fake model calls the server's tool and reads its result, and the secret's
// value reaches neither the model, the terminal nor the trace — not even
// from a server whose address holds it and which cannot be reached (its
// one line says [secret:NAME]).
func TestMCPServerOverHTTPWithKeyringHeader(t *testing.T) {
	traces := isolate(t)
	const token = "kr-7c1d0e9a5b3f-mcp-token"
	bus := privateSessionBus(t)
	startSecretService(t, bus, ssItem{service: keyringService, account: keyringSecretAccount + "mcptoken", value: token})

	upstream := everythingHTTP(t)
	var authorized, refused atomic.Int32
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			refused.Add(1)
			http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"unauthorized"}}`, http.StatusUnauthorized)
			return
		}
		authorized.Add(1)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	cfg := filepath.Join(t.TempDir(), "config.toml")
	toml := fmt.Sprintf(`[mcp.servers.remote]
url = %q
headers = { Authorization = "Bearer ${mcptoken}" }
risk = "allow"

[mcp.servers.down]
url = "http://127.0.0.1:1/mcp?key=${mcptoken}"
risk = "allow"
`, front.URL+"/mcp")
	if err := os.WriteFile(cfg, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.New(t, reply(`print(remote_echo(message="over streamable http"))`), reply(`final_answer("done")`))
	out, err := runOnBus(t, bus, "--config", cfg, "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "-q", "echo over http")
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if authorized.Load() == 0 || refused.Load() != 0 {
		t.Errorf("the proxy let %d requests through and refused %d: the header did not carry the keyring's secret\n%s", authorized.Load(), refused.Load(), out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].Last("user").Text(), "Echo: over streamable http") {
		t.Fatalf("the tool's result did not reach the model (%d requests):\n%s", len(reqs), out)
	}
	if !strings.Contains(out, "MCP server down: ") || !strings.Contains(out, "[secret:mcptoken]") {
		t.Errorf("the unreachable server's line does not name the secret by its placeholder:\n%s", out)
	}
	if strings.Contains(out, token) {
		t.Errorf("the terminal shows the secret:\n%s", out)
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Body), token) {
			t.Errorf("request %d to the model holds the secret", i)
		}
	}
	files := 0
	_ = filepath.WalkDir(traces, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		if data, err := os.ReadFile(path); err == nil && strings.Contains(string(data), token) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	if files == 0 {
		t.Error("the run left no trace")
	}
}

// `deskpilot run` types a secret the app stored in the keyring (its names
// listed under deskpilot:secret-names): type_secret("github") fills the
// form's field with the value, which no output line, request or trace file
// holds.
func TestRunTypesKeyringSecret(t *testing.T) {
	traces := isolate(t)
	const value = "kr-github-5e2b9d7a41c8"
	bus := privateSessionBus(t)
	startSecretService(t, bus,
		ssItem{service: keyringService, account: keyringSecretNames, value: "github\nBad Name\nother"},
		ssItem{service: keyringService, account: keyringSecretAccount + "github", value: value})
	d := attachDisplay(t)
	form := testapps.StartForm(t, d)
	defer closeForm(t, d)
	srv := llmtest.New(t, clickReply(t, form, "name", `type_secret("github")`), clickReply(t, form, "save", ""), reply(`final_answer("done")`))
	out, err := runOnBus(t, bus, "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "--yes", "fill in the name")
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if name, _, err := form.Saved(); err != nil || name != value {
		t.Errorf("the form saved %q (%v), want the keyring's value\n%s", name, err, out)
	}
	if strings.Contains(out, value) {
		t.Errorf("the terminal shows the secret:\n%s", out)
	}
	for i, r := range srv.Requests() {
		if strings.Contains(string(r.Body), value) {
			t.Errorf("request %d to the model holds the secret", i)
		}
	}
	_ = filepath.WalkDir(traces, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if data, _ := os.ReadFile(path); strings.Contains(string(data), value) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
}

// runOnBus runs the deskpilot binary with args and its combined output, with
// bus as the session bus and no DESKPILOT_SECRET_* variable: secrets come
// from the keyring there or nowhere.
func runOnBus(t *testing.T, bus string, args ...string) (string, error) {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	cmd := exec.CommandContext(t.Context(), bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DESKPILOT_SECRET_") && !strings.HasPrefix(kv, "DBUS_SESSION_BUS_ADDRESS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "DBUS_SESSION_BUS_ADDRESS="+bus)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
