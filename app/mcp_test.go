package app

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// fakeHosts keeps which hosts deskpilot is installed in.
type fakeHosts struct {
	mu        sync.Mutex
	installed map[string]bool
}

func (f *fakeHosts) List() []HostState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []HostState{
		{Name: "claude-code", Title: "Claude Code", Path: "/home/u/.claude.json", Installed: f.installed["claude-code"]},
		{Name: "cursor", Title: "Cursor", Path: "/home/u/.cursor/mcp.json", Installed: f.installed["cursor"]},
		{Name: "codex", Title: "Codex", Path: "/home/u/.codex/config.toml", Err: "permission denied"},
	}
}

func (f *fakeHosts) Install(name string) (string, error) { return f.set(name, true) }
func (f *fakeHosts) Remove(name string) (string, error)  { return f.set(name, false) }

func (f *fakeHosts) set(name string, on bool) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.installed[name] = on
	return name + " changed", nil
}

// fakeSessions records the commands sent.
type fakeSessions struct {
	mu   sync.Mutex
	sent []string
}

func (f *fakeSessions) List(context.Context) ([]RemoteSession, error) { return nil, nil }
func (f *fakeSessions) Send(_ context.Context, id, cmd string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, id+" "+cmd)
	return nil
}

func (f *fakeSessions) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.sent...)
}

// labels collects the texts of the labels under o.
func labels(o fyne.CanvasObject) []string {
	var out []string
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			out = append(out, x.Text)
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			if r := test.WidgetRenderer(x); r != nil {
				for _, c := range r.Objects() {
					walk(c)
				}
			}
		}
	}
	walk(o)
	return out
}

// buttons finds the buttons under o with text.
func buttonsNamed(o fyne.CanvasObject, text string) []*widget.Button {
	var out []*widget.Button
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Button:
			if x.Text == text {
				out = append(out, x)
			}
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		}
	}
	walk(o)
	return out
}

// Settings lists each host with where deskpilot is; Install installs it
// there (the Hosts code) and the row then says installed, with Remove on;
// a host whose file cannot be read says why, its buttons off.
func TestSettingsInstallsInHosts(t *testing.T) {
	hosts := &fakeHosts{installed: map[string]bool{"cursor": true}}
	h := newHarness(t, func(d *Deps) { d.Hosts = hosts })
	v := h.u.sv.hosts
	text := strings.Join(labels(v.content), "\n")
	for _, want := range []string{"Claude Code", "not installed (/home/u/.claude.json)", "installed in /home/u/.cursor/mcp.json", "cannot read /home/u/.codex/config.toml: permission denied"} {
		if !strings.Contains(text, want) {
			t.Errorf("the section lacks %q:\n%s", want, text)
		}
	}
	install := buttonsNamed(v.list, "Install")
	if len(install) != 2 || !install[1].Disabled() {
		t.Fatalf("Install buttons: %d (the unreadable host's should be off)", len(install))
	}
	test.Tap(install[0])
	h.q.waitFor(t, "the install", func() bool { return strings.Contains(strings.Join(labels(v.content), "\n"), "claude-code changed") })
	if text := strings.Join(labels(v.content), "\n"); !strings.Contains(text, "installed in /home/u/.claude.json") {
		t.Errorf("after Install:\n%s", text)
	}
	remove := buttonsNamed(v.list, "Remove")
	if len(remove) != 3 || remove[0].Disabled() || !remove[2].Disabled() {
		t.Errorf("Remove buttons: %d", len(remove))
	}
}

// An MCP session driving from another process takes the window as a strip
// with the host's name and tool; Pause and Stop reach the session; when it
// is gone the full window comes back.
func TestStripShowsAnMCPSession(t *testing.T) {
	sessions := &fakeSessions{}
	h := newHarness(t, configured(t), func(d *Deps) { d.Sessions = sessions })
	h.u.showRemote([]RemoteSession{{ID: "42-ab", Host: "Claude Code", Tool: "click"}})
	if h.u.win.Content() != h.u.rs.content {
		t.Fatal("the strip did not take the window")
	}
	text := strings.Join(labels(h.u.rs.content), "\n")
	if !strings.Contains(text, "Claude Code is driving") || !strings.Contains(text, "calling click") {
		t.Errorf("strip:\n%s", text)
	}
	test.Tap(h.u.rs.pause)
	test.Tap(h.u.rs.stop)
	h.q.waitFor(t, "the commands", func() bool { return len(sessions.commands()) == 2 })
	got := sessions.commands()
	slices.Sort(got)
	if got[0] != "42-ab pause" || got[1] != "42-ab stop" {
		t.Errorf("sent %v", got)
	}
	h.u.showRemote([]RemoteSession{{ID: "42-ab", Host: "Claude Code", Paused: true}})
	if text := strings.Join(labels(h.u.rs.content), "\n"); !strings.Contains(text, "Paused") || h.u.rs.pause.Text != "Resume" {
		t.Errorf("paused strip:\n%s", text)
	}
	h.u.showRemote(nil)
	if h.u.win.Content() != h.u.tabs {
		t.Error("the full window did not come back")
	}
}
