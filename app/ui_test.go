package app

import (
	"errors"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"deskpilot/actions"
	"deskpilot/agent"
	"deskpilot/internal/config"
)

const step1Reply = "Thought: I open the editor.\n```python\nlaunch(\"gedit\")\n```"

// runScript is a two-step run: a good step, then one whose code fails.
func runScript() []agent.Event {
	return []agent.Event{
		agent.RunStarted{Task: "Write a haiku", Model: "vision-7b", MaxSteps: 30, Time: runStart},
		agent.StepStarted{Step: 1, Max: 30, Time: runStart},
		agent.TextDelta{Step: 1, Text: "Thought: I open the editor.\n```py"},
		agent.TextDelta{Step: 1, Text: "thon\nlaunch(\"gedit\")\n```"},
		agent.ModelReplied{Step: 1, Text: step1Reply, Usage: agent.Usage{Input: 1200, Output: 80}, Duration: 2 * time.Second},
		agent.CodeParsed{Step: 1, Code: `launch("gedit")`},
		agent.ActionDone{Step: 1, Action: actions.Record{Name: "launch", Args: `"gedit"`, Duration: 150 * time.Millisecond, Result: "started"}},
		agent.Observed{Step: 1, Text: "Screen changed: yes", Changed: true, Frame: solid(160, 90, color.RGBA{0, 128, 0, 255}), Duration: time.Second},
		agent.StepStarted{Step: 2, Max: 30, Time: runStart.Add(5 * time.Second)},
		agent.ModelReplied{Step: 2, Text: "Thought: Save it.\n```python\npres(\"ctrl+s\")\n```", Usage: agent.Usage{Input: 1500, Output: 60}, Duration: time.Second},
		agent.CodeParsed{Step: 2, Code: `pres("ctrl+s")`},
		agent.Observed{Step: 2, Text: "Error: line 1: undefined: pres", Error: "line 1: undefined: pres", Duration: 100 * time.Millisecond},
	}
}

func TestRunStartsOnFakeRunner(t *testing.T) {
	tests := []struct {
		name  string
		press func(h *harness)
	}{
		{"run button", func(h *harness) { test.Tap(h.u.rv.runBtn) }},
		{"ctrl+enter", func(h *harness) {
			h.u.rv.task.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, configured(t))
			h.env["OPENAI_API_KEY"] = "k-123"
			if h.u.tabs.Selected() != h.u.runTab {
				t.Fatalf("configured app opened on %q, want Run", h.u.tabs.Selected().Text)
			}
			if got := h.u.win.Canvas().Focused(); got != h.u.rv.task {
				t.Fatalf("focused %T, want the task entry", got)
			}
			test.Type(h.u.rv.task, "Open the editor")
			tt.press(h)
			h.q.flush()
			h.runner.mu.Lock()
			starts := h.runner.starts
			h.runner.mu.Unlock()
			if len(starts) != 1 {
				t.Fatalf("runner started %d runs, want 1", len(starts))
			}
			s := starts[0]
			if s.task != "Open the editor" || s.cfg.Model != "vision-7b" || s.keys.APIKey != "k-123" {
				t.Errorf("started task=%q model=%q key=%q", s.task, s.cfg.Model, s.keys.APIKey)
			}
			if !h.u.compact || h.u.win.Content() != h.u.st.content {
				t.Error("window did not shrink to the strip while running")
			}
			if h.u.rv.runBtn.Disabled() == false || h.u.rv.stopBtn.Disabled() {
				t.Error("Run should be disabled and Stop enabled while running")
			}
		})
	}
}

func TestRunRefusals(t *testing.T) {
	t.Run("empty task", func(t *testing.T) {
		h := newHarness(t, configured(t))
		test.Tap(h.u.rv.runBtn)
		if len(h.runner.starts) != 0 || !h.u.rv.hint.Visible() || h.u.rv.hint.Text != "Type a task first." {
			t.Errorf("empty task: starts=%d hint=%q", len(h.runner.starts), h.u.rv.hint.Text)
		}
	})
	t.Run("runner error", func(t *testing.T) {
		h := newHarness(t, configured(t))
		h.runner.err = errors.New("no display")
		test.Type(h.u.rv.task, "x")
		test.Tap(h.u.rv.runBtn)
		if !strings.Contains(h.u.rv.hint.Text, "no display") || h.u.run != nil || h.u.compact {
			t.Errorf("start error: hint=%q running=%v compact=%v", h.u.rv.hint.Text, h.u.run != nil, h.u.compact)
		}
	})
}

func TestEventsRenderAsCards(t *testing.T) {
	h := newHarness(t, configured(t))
	h.start("Write a haiku")
	ev := runScript()
	h.emit(ev[:3]...) // first delta only: the thought streams in
	v := h.u.rv
	if len(v.cards) != 1 || v.cards[0].thought.Text != "I open the editor." {
		t.Fatalf("streaming: cards=%d thought=%q", len(v.cards), v.cards[0].thought.Text)
	}
	if v.cards[0].meta.Text != "thinking…" {
		t.Errorf("streaming meta = %q", v.cards[0].meta.Text)
	}
	h.emit(ev[3:]...)
	if len(v.cards) != 2 {
		t.Fatalf("%d cards, want 2", len(v.cards))
	}
	c1, c2 := v.cards[0], v.cards[1]
	checks := []struct{ name, got, want string }{
		{"title", c1.title.Text, "Step 1"},
		{"thought", c1.thought.Text, "I open the editor."},
		{"code", c1.code.block.Text(), `launch("gedit")`},
		{"meta", c1.meta.Text, "model 2.0 s  ·  run 1.0 s  ·  1.2k in / 80 out"},
		{"observation", c1.obs.Text, "Screen changed: yes"},
		{"error", c2.errLabel.Text, "line 1: undefined: pres"},
		{"state", v.state.Text, "Thinking"},
		{"status", v.status.Text, "Step 2 / 30  ·  0:42  ·  2.7k in  ·  140 out  ·  $0.0065"},
		{"live caption", v.liveCaption.Text, "after step 1  ·  160×90 px  ·  click to enlarge"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if n := len(c1.actions.Objects); n != 1 || !c1.actionsPart.Visible() {
		t.Errorf("step 1 shows %d actions (visible %v), want 1", n, c1.actionsPart.Visible())
	}
	if !c2.errPart.Visible() || c2.content.fill != theme.ColorNameError {
		t.Error("the failed step does not stand out in the error colour")
	}
	if c1.content.fill == theme.ColorNameError || c1.errPart.Visible() {
		t.Error("the good step is marked as failed")
	}
	if !v.live.Visible() || v.live.image() != h.u.model.Frame {
		t.Error("live view does not show the newest frame")
	}
	c1.content.Resize(fyne.NewSize(560, c1.content.MinSize().Height))
	assertMarkup(t, "step_card.xml", c1.content)
	c2.content.Resize(fyne.NewSize(560, c2.content.MinSize().Height))
	assertImage(t, "step_card_error.png", c2.content, c2.content.Size())
}

func TestFinishedShowsAnswer(t *testing.T) {
	h := newHarness(t, configured(t))
	run := h.start("Write a haiku")
	h.emit(runScript()...)
	h.emit(agent.Finished{Outcome: agent.Answered, Answer: "Saved haiku.txt", Steps: 2,
		Usage: agent.Usage{Input: 2700, Output: 140}, Elapsed: 42 * time.Second, TraceDir: t.TempDir()})
	run.finish()
	v := h.u.rv
	r := v.result
	if !r.content.Visible() || r.title.Text != "Answer" || r.answer.Text != "Saved haiku.txt" {
		t.Fatalf("result: visible=%v title=%q answer=%q", r.content.Visible(), r.title.Text, r.answer.Text)
	}
	if h.u.compact || h.u.win.Content() != h.u.tabs {
		t.Error("window did not come back from the strip")
	}
	if v.runBtn.Disabled() || !v.stopBtn.Disabled() || v.state.Text != "Answered" {
		t.Errorf("after the run: run disabled=%v stop disabled=%v state=%q", v.runBtn.Disabled(), v.stopBtn.Disabled(), v.state.Text)
	}
	test.Tap(r.copyBtn)
	if got := h.app.Clipboard().Content(); got != "Saved haiku.txt" {
		t.Errorf("clipboard = %q", got)
	}
	test.Tap(v.reportBtn)
	h.q.waitFor(t, "the report to open", func() bool { return len(h.app.openedFiles()) == 1 })
	if got := h.app.openedFiles(); !strings.HasSuffix(got[0], "/report.html") {
		t.Errorf("opened %v, want the report", got)
	}
	r.content.Resize(fyne.NewSize(520, r.content.MinSize().Height))
	assertMarkup(t, "result_answer.xml", r.content)
}

func TestStopCallsRunStop(t *testing.T) {
	h := newHarness(t, configured(t))
	run := h.start("Write a haiku")
	h.emit(runScript()[:4]...) // mid-stream
	test.Tap(h.u.st.stop)      // the strip's Stop
	if run.stops != 1 {
		t.Fatalf("Stop called %d times, want 1", run.stops)
	}
	h.emit(agent.Finished{Outcome: agent.Cancelled, Steps: 1})
	h.q.waitFor(t, "the run to end", func() bool { return h.u.run == nil })
	if h.u.rv.result.title.Text != "Stopped" || h.u.rv.runBtn.Disabled() {
		t.Errorf("after stop: title=%q run disabled=%v", h.u.rv.result.title.Text, h.u.rv.runBtn.Disabled())
	}
}

func TestRunEndedWithoutFinished(t *testing.T) {
	h := newHarness(t, configured(t))
	run := h.start("Write a haiku")
	h.emit(runScript()[:2]...)
	run.finish()
	h.q.waitFor(t, "the UI to notice the run ended", func() bool { return h.u.run == nil })
	if h.u.model.Result.Outcome != agent.Failed || h.u.rv.result.title.Text != "The run failed" {
		t.Errorf("outcome %q title %q", h.u.model.Result.Outcome, h.u.rv.result.title.Text)
	}
}

func TestPausedShowsBanner(t *testing.T) {
	h := newHarness(t, configured(t))
	run := h.start("Write a haiku")
	h.emit(runScript()[:8]...)
	h.emit(agent.Paused{Step: 1, Reason: "you moved the mouse"})
	v := h.u.rv
	if !v.banner.Visible() || !strings.Contains(v.bannerReason.Text, "you moved the mouse") {
		t.Fatalf("banner visible=%v text=%q", v.banner.Visible(), v.bannerReason.Text)
	}
	if h.u.st.thought.Text != "You took over — the agent is paused. Resume when you are done." || h.u.st.pause.Text != "Resume" {
		t.Errorf("strip: line=%q button=%q", h.u.st.thought.Text, h.u.st.pause.Text)
	}
	if v.bannerTitle.Text != "You took over — the agent is paused" {
		t.Errorf("banner title %q", v.bannerTitle.Text)
	}
	h.u.st.content.Resize(fyne.NewSize(stripWidth, h.u.st.content.MinSize().Height))
	assertMarkup(t, "strip_paused.xml", h.u.st.content)

	h.u.setCompact(false)
	test.Type(v.note, "I closed a popup")
	test.Tap(findButton(t, v.banner, "Resume"))
	if len(run.resumes) != 1 || run.resumes[0] != "I closed a popup" {
		t.Fatalf("Resume notes %q", run.resumes)
	}
	h.emit(agent.Resumed{Step: 1})
	if v.banner.Visible() || v.pauseBtn.Text != "Pause" {
		t.Errorf("after resume: banner=%v pause=%q", v.banner.Visible(), v.pauseBtn.Text)
	}
	test.Tap(v.pauseBtn)
	if run.pauses != 1 {
		t.Errorf("Pause called %d times", run.pauses)
	}
	// Paused with the button, the person did not take over.
	h.emit(agent.Paused{Step: 1, Reason: "paused by the person"})
	if strings.Contains(v.bannerTitle.Text, "took over") || strings.Contains(v.bannerReason.Text, "paused by the person") {
		t.Errorf("after Pause: banner %q / %q; the person pressed Pause, they did not take over", v.bannerTitle.Text, v.bannerReason.Text)
	}
	if th := h.u.st.thought.Text; strings.Contains(th, "took over") {
		t.Errorf("after Pause, the strip says %q", th)
	}
}

func TestEventsOfAnOldRunAreIgnored(t *testing.T) {
	h := newHarness(t, configured(t))
	h.start("first")
	old := h.hooks()
	h.emit(agent.Finished{Outcome: agent.Answered, Answer: "one"})
	h.start("second")
	old.Event(agent.StepStarted{Step: 7})
	h.q.flush()
	if len(h.u.model.Steps) != 0 {
		t.Errorf("an event of the finished run changed the new one: %d steps", len(h.u.model.Steps))
	}
}

func TestPresetPickerSaves(t *testing.T) {
	h := newHarness(t, configured(t))
	h.u.rv.picker.SetSelected("ollama")
	c, err := config.LoadFile(h.u.deps.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if c.Preset != "ollama" || c.BaseURL != "http://localhost:11434/v1" || c.Model != "qwen2.5vl:7b" {
		t.Errorf("saved %+v", c)
	}
	if h.u.rv.modelInfo.Text != "qwen2.5vl:7b at http://localhost:11434/v1 · dialect qwen2.5 (by model name)" {
		t.Errorf("model info %q", h.u.rv.modelInfo.Text)
	}
	if h.u.sv.baseURL.Text != "http://localhost:11434/v1" {
		t.Errorf("settings not refreshed: %q", h.u.sv.baseURL.Text)
	}
}

func TestCheckDisplay(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		ok   bool
	}{
		{"x11", map[string]string{"DISPLAY": ":0"}, true},
		{"wayland", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{"none", map[string]string{"DISPLAY": ""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckDisplay(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if (err == nil) != tt.ok {
				t.Fatalf("CheckDisplay = %v", err)
			}
			if err != nil && !strings.Contains(err.Error(), "deskpilot run") {
				t.Errorf("message does not say how to run headless: %v", err)
			}
		})
	}
}

// After an answer the next task follows it up (checked by default): the
// runner is asked to continue the answered run's trace. Unchecked, or after a
// run that gave no answer, the next task is a new run.
func TestFollowUpAfterAnAnswer(t *testing.T) {
	h := newHarness(t, configured(t))
	v := h.u.rv
	if v.follow.Visible() {
		t.Fatal("a follow-up is offered before any run")
	}
	run := h.start("find the invoice total")
	trace := t.TempDir()
	h.emit(agent.Finished{Outcome: agent.Answered, Answer: "1,250.00 EUR", Steps: 3, TraceDir: trace})
	run.finish()
	h.q.flush()
	if !v.follow.Visible() || !v.follow.Checked {
		t.Fatalf("after an answer: follow-up visible=%v checked=%v", v.follow.Visible(), v.follow.Checked)
	}
	v.task.SetText("")
	h.start("now convert it to dollars")
	last := h.runner.starts[len(h.runner.starts)-1]
	if last.follow != trace || last.task != "now convert it to dollars" || last.prev != Run(run) {
		t.Errorf("the follow-up started %+v; want a continuation of %s and of the run itself", last, trace)
	}
	if v.follow.Visible() {
		t.Error("the follow-up choice stays on screen during the run")
	}

	// The follow-up failed: nothing to follow up, the next task is new.
	h.emit(agent.Finished{Outcome: agent.Failed, Error: "model down", TraceDir: t.TempDir()})
	h.runner.last(t).finish()
	h.q.flush()
	if v.follow.Visible() {
		t.Error("a follow-up is offered after a failed run")
	}
	v.task.SetText("")
	h.start("something else")
	if f := h.runner.starts[len(h.runner.starts)-1].follow; f != "" {
		t.Errorf("after a failure the next run continues %q", f)
	}

	// Answered again, but the person unticks the choice: a new run.
	h.emit(agent.Finished{Outcome: agent.Answered, Answer: "ok", TraceDir: t.TempDir()})
	answered := h.runner.last(t)
	answered.finish()
	h.q.flush()
	test.Tap(v.follow)
	v.task.SetText("")
	h.start("unrelated task")
	if f := h.runner.starts[len(h.runner.starts)-1].follow; f != "" {
		t.Errorf("unticked, the next run still continues %q", f)
	}
	answered.mu.Lock()
	defer answered.mu.Unlock()
	if !answered.released {
		t.Error("the answered run that was not followed up was not released (its code's process would stay)")
	}
}
