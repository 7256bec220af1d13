package app

import (
	"context"
	"deskpilot/internal/config"
	"errors"
	"os"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestFirstRunOpensSettings(t *testing.T) {
	con := &fakeConsole{}
	h := newHarness(t, func(d *Deps) { d.Console = con })
	if h.u.tabs.Selected() != h.u.settingsTab {
		t.Fatalf("first run opened on %q, want Settings", h.u.tabs.Selected().Text)
	}
	if !h.u.sv.guidance.Visible() {
		t.Fatal("no guidance on first run")
	}
	content := test.RenderObjectToMarkup(h.u.sv.guidance)
	for _, want := range []string{"http://localhost:11434/v1", "vLLM", "API key", "Console"} {
		if !strings.Contains(content, want) {
			t.Errorf("guidance does not mention %q", want)
		}
	}
	// Run without a model leads back to the settings.
	h.u.tabs.Select(h.u.runTab)
	test.Type(h.u.rv.task, "Write a haiku")
	test.Tap(h.u.rv.runBtn)
	if len(h.runner.starts) != 0 || h.u.tabs.Selected() != h.u.settingsTab {
		t.Errorf("run without a model: starts=%d tab=%q", len(h.runner.starts), h.u.tabs.Selected().Text)
	}
	// The console works meanwhile.
	h.u.tabs.Select(h.u.consoleTab)
	test.Type(h.u.cv.code, "click(10, 20)")
	test.Tap(h.u.cv.runBtn)
	h.q.waitFor(t, "the console run", func() bool { return h.u.cv.cancel == nil && h.u.cv.cur != nil })
	e := h.u.cv.cur
	if len(con.codes) != 1 || con.codes[0] != "click(10, 20)" {
		t.Fatalf("console ran %q", con.codes)
	}
	if len(e.actions.Objects) != 1 || e.output.Text != "clicked" || !h.u.cv.frame.Visible() {
		t.Errorf("console shows %d actions, output %q, frame %v", len(e.actions.Objects), e.output.Text, h.u.cv.frame.Visible())
	}
	// The lines meant for the model are not shown to the person.
	for _, o := range test.LaidOutObjects(h.u.cv.content) {
		if l, ok := o.(*widget.Label); ok && l.Visible() && (strings.Contains(l.Text, "Screen changed") || strings.Contains(l.Text, "wait(1)")) {
			t.Errorf("the console shows the model's text %q", l.Text)
		}
	}
}

func TestSettingsSaveAndReload(t *testing.T) {
	h := newHarness(t)
	sv := h.u.sv
	sv.preset.SetSelected("openai")
	if sv.baseURL.Text != "https://api.openai.com/v1" || sv.keyEnv.Text != "OPENAI_API_KEY" {
		t.Fatalf("preset did not fill the form: %q %q", sv.baseURL.Text, sv.keyEnv.Text)
	}
	sv.model.SetText("vision-72b")
	sv.coords.SetSelected("norm1000")
	sv.maxSide.SetText("1024")
	sv.maxSteps.SetText("12")
	sv.keep.SetText("2")
	sv.plan.SetText("4")
	sv.display.SetText("1")
	test.Tap(sv.saveBtn)
	if sv.result.Text != "Saved." {
		t.Fatalf("save said %q", sv.result.Text)
	}
	want := config.Settings{Preset: "openai", BaseURL: "https://api.openai.com/v1", Model: "vision-72b", APIKeyEnv: "OPENAI_API_KEY",
		CoordMode: "norm1000", MaxSide: 1024, MaxSteps: 12, KeepImages: 2, PlanEvery: 4, Display: 1}
	got, err := config.LoadFile(h.u.deps.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if got.Preset != want.Preset || got.BaseURL != want.BaseURL || got.Model != want.Model || got.APIKeyEnv != want.APIKeyEnv ||
		got.CoordMode != want.CoordMode || got.MaxSide != want.MaxSide || got.MaxSteps != want.MaxSteps ||
		got.KeepImages != want.KeepImages || got.PlanEvery != want.PlanEvery || got.Display != want.Display {
		t.Errorf("saved %+v\nwant  %+v", got, want)
	}
	if sv.guidance.Visible() {
		t.Error("guidance still shown once a model is configured")
	}

	// A new app on the same file shows the same values and opens on Run.
	h2 := newHarness(t, func(d *Deps) { d.ConfigPath = h.u.deps.ConfigPath })
	sv2 := h2.u.sv
	if h2.u.tabs.Selected() != h2.u.runTab || sv2.model.Text != "vision-72b" || sv2.coords.Selected != "norm1000" ||
		sv2.maxSteps.Text != "12" || sv2.preset.Selected != "openai" || h2.u.rv.picker.Selected != "openai" {
		t.Errorf("reloaded: tab=%q model=%q coords=%q steps=%q preset=%q",
			h2.u.tabs.Selected().Text, sv2.model.Text, sv2.coords.Selected, sv2.maxSteps.Text, sv2.preset.Selected)
	}
}

func TestSettingsKeyStorage(t *testing.T) {
	t.Run("keyring", func(t *testing.T) {
		sec := &memSecrets{m: map[string]string{}}
		h := newHarness(t, func(d *Deps) { d.Secrets = sec })
		sv := h.u.sv
		sv.preset.SetSelected("openai")
		test.Type(sv.key, "sk-secret-42")
		test.Tap(sv.saveBtn)
		if sec.m["OPENAI_API_KEY"] != "sk-secret-42" {
			t.Fatalf("keyring holds %v", sec.m)
		}
		data, err := os.ReadFile(h.u.deps.ConfigPath)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "sk-secret-42") {
			t.Fatal("the API key was written to the config file")
		}
		if sv.key.Text != "" {
			t.Error("the key stays visible in the form after saving")
		}
		// Runs get the key from the keyring.
		h.u.tabs.Select(h.u.runTab)
		h.start("x")
		if k := h.runner.starts[0].keys.APIKey; k != "sk-secret-42" {
			t.Errorf("run got key %q", k)
		}
	})
	t.Run("environment variable", func(t *testing.T) {
		h := newHarness(t)
		sv := h.u.sv
		if !strings.Contains(sv.keyNote.Text, "never stores keys") {
			t.Errorf("key note = %q", sv.keyNote.Text)
		}
		sv.baseURL.SetText("https://api.example.com/v1")
		sv.model.SetText("m")
		sv.keyEnv.SetText("sk-abc-123")
		test.Tap(sv.saveBtn)
		if _, err := os.Stat(h.u.deps.ConfigPath); err == nil {
			t.Error("a key typed into the variable field was saved")
		}
		if !strings.Contains(sv.result.Text, "not the key itself") {
			t.Errorf("result = %q", sv.result.Text)
		}
	})
}

func TestTestConnection(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"ok", nil, "Connected: vision-7b answered"},
		{"refused", errors.New("connection refused"), "Connection failed: connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotCfg config.Config
			var gotKey string
			h := newHarness(t, configured(t), func(d *Deps) {
				d.TestConnection = func(ctx context.Context, c config.Config, key string) error {
					gotCfg, gotKey = c, key
					return tt.err
				}
			})
			h.env["OPENAI_API_KEY"] = "k-env"
			test.Tap(h.u.sv.testBtn)
			h.q.waitFor(t, "the connection test", func() bool { return !h.u.sv.testBtn.Disabled() })
			if !strings.HasPrefix(h.u.sv.result.Text, tt.want) {
				t.Errorf("result = %q, want prefix %q", h.u.sv.result.Text, tt.want)
			}
			if gotCfg.Model != "vision-7b" || gotKey != "k-env" {
				t.Errorf("tested model %q with key %q", gotCfg.Model, gotKey)
			}
		})
	}
}

func TestEnvOverridesAreShown(t *testing.T) {
	h := newHarness(t, configured(t))
	h.env["OPENAI_BASE_URL"] = "http://other:8000/v1"
	h.u.loadConfig()
	h.u.sv.load()
	if !h.u.sv.envNote.Visible() || !strings.Contains(h.u.sv.envNote.Text, "OPENAI_BASE_URL") {
		t.Errorf("env note = %q", h.u.sv.envNote.Text)
	}
	if h.u.cfg.BaseURL != "http://other:8000/v1" {
		t.Errorf("effective base URL %q, want the environment's", h.u.cfg.BaseURL)
	}
}

// The dialect is shown and chosen in Settings: auto (by the model's name) or
// any dialect; the run view's model line names the dialect the runs speak.
func TestSettingsDialect(t *testing.T) {
	h := newHarness(t)
	sv := h.u.sv
	if opts := sv.dialect.Options; len(opts) < 2 || opts[0] != autoDialect || opts[1] != "code" {
		t.Fatalf("dialect options %q", opts)
	}
	if sv.dialect.Selected != autoDialect {
		t.Errorf("a fresh config shows dialect %q, want auto", sv.dialect.Selected)
	}
	sv.baseURL.SetText("http://localhost:8000/v1")
	sv.model.SetText("ByteDance-Seed/UI-TARS-1.5-7B")
	if !strings.Contains(sv.dialectNote.Text, "speaks the uitars-1.5 dialect") {
		t.Errorf("auto note for a UI-TARS model: %q", sv.dialectNote.Text)
	}
	test.Tap(sv.saveBtn)
	if got := h.u.rv.modelInfo.Text; !strings.Contains(got, "dialect uitars-1.5 (by model name)") {
		t.Errorf("run view model line %q does not name the dialect", got)
	}
	sv.dialect.SetSelected("qwen3")
	if !strings.Contains(sv.dialectNote.Text, "qwen3 format") || !strings.Contains(sv.dialectNote.Text, "code dialect only") {
		t.Errorf("note for a chosen dialect: %q", sv.dialectNote.Text)
	}
	test.Tap(sv.saveBtn)
	if got, err := config.LoadFile(h.u.deps.ConfigPath); err != nil || got.Dialect != "qwen3" {
		t.Fatalf("saved dialect %q (%v), want qwen3", got.Dialect, err)
	}
	if got := h.u.rv.modelInfo.Text; !strings.Contains(got, "dialect qwen3") || strings.Contains(got, "by model name") {
		t.Errorf("run view model line %q", got)
	}
	sv.dialect.SetSelected(autoDialect)
	test.Tap(sv.saveBtn)
	if got, _ := config.LoadFile(h.u.deps.ConfigPath); got.Dialect != "" {
		t.Errorf("auto saved as %q, want empty", got.Dialect)
	}
	if _, err := (settingsForm{Dialect: "klingon"}).apply(config.Settings{}); err == nil || !strings.Contains(err.Error(), "unknown dialect") {
		t.Errorf("an unknown dialect gives %v", err)
	}
}

// The local presets take no key: the note says so, and never "export none=…".
func TestKeyNoteOfAPresetWithoutKey(t *testing.T) {
	for _, keyring := range []bool{false, true} {
		var opts []harnessOpt
		if keyring {
			opts = append(opts, func(d *Deps) { d.Secrets = &memSecrets{m: map[string]string{}} })
		}
		h := newHarness(t, opts...)
		h.u.sv.pickPreset("ollama")
		if n := h.u.sv.keyNote.Text; strings.Contains(n, "none=") || strings.Contains(n, `under "none"`) || !strings.Contains(n, "takes no key") {
			t.Errorf("keyring %v: key note %q", keyring, n)
		}
	}
}

// The grounding and safety settings, named as in the config file, are saved
// there and shown again; what the window does not show (a confirmation entry
// naming a builtin) is kept, and the defaults stay unwritten.
func TestSettingsGroundingAndSafety(t *testing.T) {
	h := newHarness(t)
	sv := h.u.sv
	sv.preset.SetSelected("openai")
	sv.model.SetText("vision-72b")
	test.Tap(sv.saveBtn)
	data, err := os.ReadFile(h.u.deps.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"confirm =", "observe =", "allow_domains ="} {
		if strings.Contains(string(data), key) {
			t.Errorf("saving untouched settings wrote %s:\n%s", key, data)
		}
	}
	for r, c := range sv.safety.confirm {
		if !c.Checked {
			t.Errorf("confirm %s is off by default", r)
		}
	}

	g, s := sv.grounding, sv.safety
	g.ocr.SetChecked(true)
	g.marks.SetChecked(true)
	g.grounder.SetText("UI-TARS-1.5-7B")
	g.grounderURL.SetText("http://127.0.0.1:8001/v1/")
	g.grounderDialect.SetSelected("uitars-1.5")
	s.confirm["launch"].SetChecked(false)
	s.allow.SetText("example.com, wikipedia.org")
	s.denyApps.SetText("rm")
	s.folders.SetText("/srv/reports")
	s.private.SetChecked(true)
	test.Tap(sv.saveBtn)
	if sv.result.Text != "Saved." {
		t.Fatalf("save said %q", sv.result.Text)
	}
	got, err := config.LoadFile(h.u.deps.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Observe, ",") != "screenshot,ocr" || !got.Marks || got.Grounder.Model != "UI-TARS-1.5-7B" ||
		got.Grounder.BaseURL != "http://127.0.0.1:8001/v1" || got.Grounder.Dialect != "uitars-1.5" ||
		strings.Join(got.Confirm, ",") != "open_url,close_combos,send_after_read" ||
		strings.Join(got.AllowDomains, ",") != "example.com,wikipedia.org" || strings.Join(got.DenyApps, ",") != "rm" ||
		strings.Join(got.InspectFolders, ",") != "/srv/reports" || !got.AllowPrivate {
		t.Errorf("saved %+v", got)
	}
	if _, err := config.Resolve(got); err != nil {
		t.Errorf("the saved settings do not resolve: %v", err)
	}

	// Another app on the same file shows them; an entry the window does not
	// show survives, and with every box off nothing asks (confirm = []).
	got.Confirm = append(got.Confirm, "type_text")
	if err := config.SaveFile(h.u.deps.ConfigPath, got); err != nil {
		t.Fatal(err)
	}
	h2 := newHarness(t, func(d *Deps) { d.ConfigPath = h.u.deps.ConfigPath })
	sv2 := h2.u.sv
	if !sv2.grounding.ocr.Checked || sv2.grounding.a11y.Checked || sv2.grounding.grounderDialect.Selected != "uitars-1.5" ||
		sv2.safety.confirm["launch"].Checked || !sv2.safety.confirm["open_url"].Checked || sv2.safety.allow.Text != "example.com, wikipedia.org" {
		t.Errorf("reloaded: ocr=%v a11y=%v grounder dialect=%q launch=%v allow=%q", sv2.grounding.ocr.Checked, sv2.grounding.a11y.Checked,
			sv2.grounding.grounderDialect.Selected, sv2.safety.confirm["launch"].Checked, sv2.safety.allow.Text)
	}
	for _, c := range sv2.safety.confirm {
		c.SetChecked(false)
	}
	test.Tap(sv2.saveBtn)
	got, err = config.LoadFile(h.u.deps.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Confirm, ",") != "type_text" {
		t.Errorf("confirm saved as %q, want only the entry the window does not show", got.Confirm)
	}

	// A bad grounder URL is refused with its name.
	sv2.grounding.grounderURL.SetText("localhost:8001")
	test.Tap(sv2.saveBtn)
	if !strings.Contains(sv2.result.Text, "grounder base URL") {
		t.Errorf("a bad grounder URL: %q", sv2.result.Text)
	}
}

// With every confirmation box off and nothing else, the file says
// confirm = [] and nothing asks.
func TestSettingsConfirmNothing(t *testing.T) {
	f := formFrom(config.Settings{})
	for r := range f.Confirm {
		f.Confirm[r] = false
	}
	c, err := f.apply(config.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := config.Resolve(c)
	if err != nil || c.Confirm == nil || len(r.Confirm) != 0 {
		t.Errorf("confirm %#v resolves to %q (%v)", c.Confirm, r.Confirm, err)
	}
}
