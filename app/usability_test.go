package app

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"deskpilot/actions"
	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/internal/config"
)

// TestStepCardsAfterTheEnd: a step the run's end cut short says how it ended,
// not "thinking…" or "running…" forever; every widget shows the end.
func TestStepCardsAfterTheEnd(t *testing.T) {
	tests := []struct {
		name     string
		events   int // of runScript, before the end
		stop     bool
		fin      agent.Finished
		wantMeta string
		state    string
	}{
		{"stopped while thinking", 3, true, agent.Finished{Outcome: agent.Cancelled, Steps: 1}, "stopped", "Stopped"},
		{"stopped while running", 6, true, agent.Finished{Outcome: agent.Cancelled, Steps: 1}, "model 2.0 s  ·  stopped  ·  1.2k in / 80 out", "Stopped"},
		{"failed while thinking", 3, false, agent.Finished{Outcome: agent.Failed, Steps: 1, Error: "model call: stream cut"}, "failed", "Failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, configured(t))
			run := h.start("Write a haiku")
			h.emit(runScript()[:tt.events]...)
			if tt.stop {
				test.Tap(h.u.st.stop)
				if h.u.st.state.Text != "Stopping…" || h.u.rv.state.Text != "Stopping…" || !h.u.st.stop.Disabled() {
					t.Errorf("after Stop: strip %q, status bar %q, strip Stop disabled %v", h.u.st.state.Text, h.u.rv.state.Text, h.u.st.stop.Disabled())
				}
			}
			h.emit(tt.fin)
			run.finish()
			h.q.waitFor(t, "the run to end", func() bool { return h.u.run == nil })
			c := h.u.rv.cards[0]
			if c.meta.Text != tt.wantMeta {
				t.Errorf("card meta = %q, want %q", c.meta.Text, tt.wantMeta)
			}
			if c.thought.Text == "…" {
				t.Error("the card still shows a thought being written")
			}
			if h.u.rv.state.Text != tt.state || h.u.st.state.Text != tt.state {
				t.Errorf("state: status bar %q, strip %q; want %q", h.u.rv.state.Text, h.u.st.state.Text, tt.state)
			}
			if h.u.rv.activity.Visible() {
				t.Error("the activity indicator still turns")
			}
		})
	}
}

// TestFirstScreenIsNoStep: the screen the run started with shows in the live
// view without making a step of its own; a failure before the model answered
// leaves no step "thinking…".
func TestFirstScreenIsNoStep(t *testing.T) {
	h := newHarness(t, configured(t))
	run := h.start("x")
	h.emit(agent.RunStarted{Task: "x", Model: "m", MaxSteps: 5, Time: runStart},
		agent.Observed{Step: 0, Text: "The screen when the task started.", Frame: solid(16, 10, color.RGBA{1, 2, 3, 255})})
	if len(h.u.rv.cards) != 0 || h.u.rv.live.image() == nil {
		t.Fatalf("first screen: %d cards, live image %v", len(h.u.rv.cards), h.u.rv.live.image() != nil)
	}
	h.emit(agent.StepStarted{Step: 1, Max: 5}, agent.Finished{Outcome: agent.Failed, Steps: 1, Error: "llm: cannot reach the model at http://127.0.0.1:1/v1: connection refused"})
	run.finish()
	c := h.u.rv.cards[0]
	if c.meta.Text != "failed" || c.thought.Text != "" || c.obsPart.Visible() {
		t.Errorf("card: meta %q, thought %q, observation shown %v", c.meta.Text, c.thought.Text, c.obsPart.Visible())
	}
	if got := h.u.rv.result.detail.Text; got != "cannot reach the model at http://127.0.0.1:1/v1: connection refused" {
		t.Errorf("panel says %q", got)
	}
}

// TestDeadEndpointPanel: a run whose model never answered ends with the
// client's one line (no Go chain prefix) and buttons to test the connection
// and to open the settings.
func TestDeadEndpointPanel(t *testing.T) {
	var mu sync.Mutex
	var tested []config.Config
	h := newHarness(t, configured(t), func(d *Deps) {
		d.TestConnection = func(_ context.Context, c config.Config, _ string) error {
			mu.Lock()
			tested = append(tested, c)
			mu.Unlock()
			return fmt.Errorf("cannot reach the model at %s: connection refused — check that the model server is running on this machine", c.BaseURL)
		}
	})
	run := h.start("Write a haiku")
	line := "cannot reach the model at http://127.0.0.1:9/v1: connection refused — check that the model server is running on this machine; `deskpilot doctor` checks the setup"
	h.emit(agent.RunStarted{Task: "Write a haiku", Model: "vision-7b", MaxSteps: 30, Time: runStart},
		agent.StepStarted{Step: 1, Max: 30, Time: runStart},
		agent.Finished{Outcome: agent.Failed, Steps: 1, Error: "model call: " + line})
	run.finish()
	r := h.u.rv.result
	if r.title.Text != "The model did not answer" || r.detail.Text != line {
		t.Errorf("panel: title %q, detail %q; want the model client's line alone", r.title.Text, r.detail.Text)
	}
	if !r.fix.Visible() {
		t.Fatal("no Test connection / Settings buttons")
	}
	test.Tap(findButton(t, r.content, "Test connection"))
	h.q.waitFor(t, "the connection test", func() bool { return strings.HasPrefix(r.testNote.Text, "Connection failed") })
	mu.Lock()
	if len(tested) != 1 || tested[0].BaseURL != "http://127.0.0.1:9/v1" {
		t.Errorf("tested %+v, want the saved endpoint once", tested)
	}
	mu.Unlock()
	test.Tap(findButton(t, r.content, "Settings"))
	if h.u.tabs.Selected() != h.u.settingsTab {
		t.Error("Settings did not open the settings")
	}

	// A run that failed after the model answered keeps the plain result.
	h.u.tabs.Select(h.u.runTab)
	run = h.start("again")
	h.emit(runScript()[:6]...)
	h.emit(agent.Finished{Outcome: agent.Failed, Steps: 1, Error: "script: out of memory"})
	run.finish()
	if r.fix.Visible() || r.title.Text != "The run failed" {
		t.Errorf("a failure after the model answered shows %q with fix buttons %v", r.title.Text, r.fix.Visible())
	}
}

// TestOpenReportWithoutOpener: when nothing can open the report, the message
// says where it is and offers to copy the path.
func TestOpenReportWithoutOpener(t *testing.T) {
	h := newHarness(t, configured(t))
	h.app.openErr = fmt.Errorf("xdg-open: %w", exec.ErrNotFound)
	dir := t.TempDir()
	h.u.openReport(dir)
	h.q.waitFor(t, "the message", func() bool { return h.u.openFailed != nil })
	want := filepath.Join(dir, "report.html")
	top := h.u.win.Canvas().Overlays().Top()
	text := test.RenderObjectToMarkup(top)
	if h.u.openFailed.Text != want || !strings.Contains(text, "xdg-utils") {
		t.Errorf("message shows %q and says xdg-utils: %v", h.u.openFailed.Text, strings.Contains(text, "xdg-utils"))
	}
	test.Tap(findButton(t, top, "Copy path"))
	if got := h.app.Clipboard().Content(); got != want {
		t.Errorf("copied %q, want %q", got, want)
	}
}

// TestOpenFile runs the real opener lookup: no xdg-open on PATH is
// exec.ErrNotFound; one that fails says so; one that keeps running (a
// browser showing the page) is success.
func TestOpenFile(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	sh, _ := exec.LookPath("sh")
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	tests := []struct {
		name, script string
		want         string // "" = success
	}{
		{"missing", "", "executable file not found"},
		{"fails", "echo 'xdg-open: no method available for opening' >&2; exit 3", "no program to open it (exit status 3)"},
		{"browser", "exec " + sleep + " 10", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bin := t.TempDir()
			if tt.script != "" {
				err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!"+sh+"\n"+tt.script+"\n"), 0o755)
				if err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin)
			err := openFile(filepath.Join(t.TempDir(), "report.html"))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("openFile = %v, want success", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("openFile = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestCopy checks the small copy errors: one Custom entry in the pickers,
// "1 step", console sessions out of the Runs list.
func TestCopy(t *testing.T) {
	t.Run("one custom entry", func(t *testing.T) {
		h := newHarness(t)
		for name, opts := range map[string][]string{"run picker": h.u.rv.picker.Options, "settings preset": h.u.sv.preset.Options} {
			n := 0
			for _, o := range opts {
				if strings.EqualFold(strings.TrimSuffix(o, "…"), "custom") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s lists %v: want one Custom entry", name, opts)
			}
		}
		if err := h.u.saveConfig(config.Settings{Preset: "custom", BaseURL: "http://h:1/v1", Model: "m"}); err != nil {
			t.Fatal(err)
		}
		if got := h.u.rv.picker.Selected; got != customPreset {
			t.Errorf("preset custom shows as %q in the picker", got)
		}
	})
	t.Run("plural", func(t *testing.T) {
		got := summaryLine(trace.Summary{Started: runStart, Outcome: "answered", Steps: 1})
		if !strings.Contains(got, "1 step") || strings.Contains(got, "1 steps") {
			t.Errorf("summary %q", got)
		}
		r := newResultPanel(newHarness(t).u)
		r.show(agent.Finished{Outcome: agent.Answered, Answer: "x", Steps: 1}, false)
		if strings.Contains(r.detail.Text, "1 steps") {
			t.Errorf("result detail %q", r.detail.Text)
		}
	})
	t.Run("console sessions not listed", func(t *testing.T) {
		h := newHarness(t, configured(t))
		writeTrace(t, h.u.deps.TraceRoot)
		w, err := trace.Create(h.u.deps.TraceRoot, trace.Event{Task: "console", Model: consoleModel, T: runStart})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		h.u.tabs.Select(h.u.runsTab)
		h.q.waitFor(t, "the list", func() bool { return h.u.tv.listNote.Text != "Loading…" })
		if len(h.u.tv.items) != 1 || h.u.tv.items[0].Model == consoleModel {
			t.Errorf("Runs lists %d items: %+v", len(h.u.tv.items), h.u.tv.items)
		}
		if !strings.Contains(h.u.tv.listNote.Text, "1 run in") || !strings.Contains(h.u.tv.listNote.Text, "1 console session not listed") {
			t.Errorf("note %q", h.u.tv.listNote.Text)
		}
	})
}

// TestPlaceholdersAndPresets: empty fields show examples that read as
// examples; Test connection with empty fields says the grey text is one;
// choosing a preset fills real values.
func TestPlaceholdersAndPresets(t *testing.T) {
	h := newHarness(t, func(d *Deps) {
		d.TestConnection = func(context.Context, config.Config, string) error { return nil }
	})
	sv := h.u.sv
	if sv.baseURL.Text != "" || !strings.HasPrefix(sv.baseURL.PlaceHolder, "e.g. ") {
		t.Errorf("base URL %q, placeholder %q", sv.baseURL.Text, sv.baseURL.PlaceHolder)
	}
	if sv.preset.Selected != "" {
		t.Errorf("nothing set up, yet the preset shows %q", sv.preset.Selected)
	}
	test.Tap(sv.testBtn)
	if !strings.Contains(sv.result.Text, "Base URL and Model are empty (grey text there is only an example)") {
		t.Errorf("Test connection with empty fields: %q", sv.result.Text)
	}
	sv.preset.SetSelected("ollama")
	if sv.baseURL.Text != "http://localhost:11434/v1" || sv.model.Text != "qwen2.5vl:7b" {
		t.Fatalf("the preset filled %q, %q", sv.baseURL.Text, sv.model.Text)
	}
	test.Tap(sv.testBtn)
	h.q.waitFor(t, "the test", func() bool { return strings.HasPrefix(sv.result.Text, "Connected") })
}

// TestSecretsSection: a secret added in the settings goes to the keyring and
// into the next run; its value never shows; a variable of the same name wins;
// Remove forgets it.
func TestSecretsSection(t *testing.T) {
	ring := &memSecrets{m: map[string]string{}}
	environ := []string{"DESKPILOT_SECRET_MAIL=from-env", "HOME=/home/x"}
	h := newHarness(t, configured(t), func(d *Deps) {
		d.Secrets = ring
		d.Environ = func() []string { return environ }
	})
	sv := h.u.sv.secrets
	for _, s := range []struct{ name, value string }{{"GitHub_Token", "ghp-very-secret"}, {"mail", "ring-mail"}} {
		test.Type(sv.name, s.name)
		test.Type(sv.value, s.value)
		test.Tap(sv.addBtn)
	}
	test.Type(sv.name, "bad name!")
	test.Type(sv.value, "x")
	test.Tap(sv.addBtn)
	if !strings.Contains(sv.result.Text, "lower-case letters") {
		t.Errorf("a bad name: %q", sv.result.Text)
	}
	if v, _ := ring.Get(secretAccount + "github_token"); v != "ghp-very-secret" {
		t.Errorf("keyring holds %q", v)
	}
	markup := test.RenderObjectToMarkup(sv.content)
	if strings.Contains(markup, "ghp-very-secret") || !strings.Contains(markup, "github_token") {
		t.Error("the settings show a value, or not the name")
	}
	if !strings.Contains(markup, "DESKPILOT_SECRET_MAIL") {
		t.Error("the environment's secret is not listed")
	}
	h.u.tabs.Select(h.u.runTab)
	h.start("log in")
	got := h.runner.starts[0].keys.Secrets
	if got["github_token"] != "ghp-very-secret" {
		t.Errorf("run got secrets named %v", slices.Sorted(maps.Keys(got)))
	}
	if _, ok := got["mail"]; ok {
		t.Error("the keyring's mail reached the run though DESKPILOT_SECRET_MAIL is set (the environment wins)")
	}
	test.Tap(findButton(t, sv.list, "Remove"))
	if names, _ := (secretStore{ring}).names(); len(names) != 1 || names[0] != "mail" {
		t.Errorf("after Remove the keyring lists %v", names)
	}
	if _, err := ring.Get(secretAccount + "github_token"); err == nil {
		t.Error("Remove left the value in the keyring")
	}
}

// TestSecretStoreHostile: names and values from the settings are checked
// before they reach the keyring.
func TestSecretStoreHostile(t *testing.T) {
	st := secretStore{&memSecrets{m: map[string]string{}}}
	for _, tt := range []struct{ name, value, want string }{
		{"", "v", "secret name"},
		{"a\nb", "v", "secret name"},
		{"../x", "v", "secret name"},
		{strings.Repeat("a", 65), "v", "secret name"},
		{"ok", "", "empty"},
		{"ok", strings.Repeat("x", maxSecretBytes+1), "longer than"},
		{"ok", "\xff\xfe", "not text"},
	} {
		if err := st.set(tt.name, tt.value); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("set(%q, %d bytes) = %v, want %q", clipName(tt.name), len(tt.value), err, tt.want)
		}
	}
	// A tampered list of names keeps only the good ones.
	_ = st.s.Set(secretNamesAccount, "good\n../bad\n\ngood\nUPPER")
	if names, _ := st.names(); !slices.Equal(names, []string{"good"}) {
		t.Errorf("names = %q", names)
	}
}

// TestStripShowsThoughtAndAction: the strip shows what the agent thinks and
// the action it ran, as the peers' mini panels do.
func TestStripShowsThoughtAndAction(t *testing.T) {
	h := newHarness(t, configured(t))
	h.start("Write a haiku")
	ev := runScript()
	h.emit(ev[:3]...)
	if got := h.u.st.thought.Text; got != "Step 1: I open the editor." {
		t.Errorf("while streaming: %q", got)
	}
	h.emit(ev[3:7]...)
	if got := h.u.st.action.Text; !strings.HasPrefix(got, `launch("gedit")`) {
		t.Errorf("after the action: %q", got)
	}
}

// TestEnlargeFrame: a click on the live view opens the full-resolution screen
// with the step's actions marked.
func TestEnlargeFrame(t *testing.T) {
	h := newHarness(t, configured(t))
	h.start("Click the button")
	full := solid(400, 200, color.RGBA{0, 0, 80, 255})
	h.emit(agent.RunStarted{Task: "Click", Model: "m", MaxSteps: 5, Screen: image.Rect(0, 0, 400, 200), Time: runStart},
		agent.StepStarted{Step: 1, Max: 5},
		agent.ModelReplied{Step: 1, Text: "Thought: click\n```python\nclick(100, 50)\n```"},
		agent.ActionDone{Step: 1, Action: actions.Record{Name: "click", Args: "100, 50", Screen: &[2]int{200, 100}}},
		agent.Observed{Step: 1, Frame: solid(200, 100, color.RGBA{0, 0, 80, 255}), Screen: full})
	test.Tap(h.u.rv.live)
	if h.u.rv.zoom == nil {
		t.Fatal("no enlarged view")
	}
	var img *canvas.Image
	for _, o := range test.LaidOutObjects(h.u.rv.zoom.Content()) {
		if i, ok := o.(*canvas.Image); ok {
			img = i
		}
	}
	if img == nil || img.Image.Bounds().Dx() != 400 {
		t.Fatalf("the enlarged view shows %v, want the 400 px screen", img)
	}
	rgba := img.Image.(*image.RGBA)
	r := 7 // withMarks' smallest ring radius
	if c := rgba.RGBAAt(200+r, 100); c == (color.RGBA{0, 0, 80, 255}) {
		t.Error("no mark where the click was")
	}
	if c := rgba.RGBAAt(20, 20); c != (color.RGBA{0, 0, 80, 255}) {
		t.Errorf("pixel far from the mark = %v", c)
	}
	h.u.rv.zoom.Close()
	if h.u.rv.zoom != nil {
		t.Error("closing the view did not forget it")
	}
}

// TestLiveViewUsesTheSpace: in the full window the screen takes most of the
// Run tab, not a 470x265 corner of it.
func TestLiveViewUsesTheSpace(t *testing.T) {
	h := newHarness(t, configured(t))
	h.start("x")
	h.emit(runScript()...)
	h.emit(agent.Finished{Outcome: agent.Answered, Steps: 2})
	h.u.win.Resize(fyne.NewSize(1280, 820))
	h.u.win.Content().Refresh()
	settle(h.u.win.Content())
	sz := h.u.rv.live.Size()
	if sz.Width < 640 || sz.Height < 360 {
		t.Errorf("the live view is %v in a 1280x820 window, want at least 640x360", sz)
	}
}

// TestEscapeCompacts: Esc on the full window of a running run returns to the
// strip; with no run it does nothing.
func TestEscapeCompacts(t *testing.T) {
	h := newHarness(t, configured(t))
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}
	h.u.typedKey(esc)
	if h.u.compact {
		t.Fatal("Esc without a run made the strip")
	}
	h.start("x")
	test.Tap(h.u.st.expand)
	if h.u.compact {
		t.Fatal("expand did not expand")
	}
	if f := h.u.win.Canvas().Focused(); f != nil {
		t.Errorf("expanded during a run, %T has the focus and takes Esc", f)
	}
	h.u.typedKey(esc)
	if !h.u.compact {
		t.Error("Esc did not return to the strip")
	}
}
