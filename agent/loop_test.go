//go:build linux

package agent_test

import (
	"context"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/actions/robot"
	"deskpilot/agent"
	"deskpilot/agent/llm"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
	"deskpilot/internal/config"
)

func TestStatePersistsAcrossSteps(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("x = 41\ndef inc(v):\n    return v + 1\nseen = [x]"),
		code("seen.append(inc(x))\nprint(seen)"),
		code("final_answer(str(inc(seen[-1]) - 1))"),
	)
	fin := r.run("count")
	if fin.Outcome != agent.Answered || fin.Answer != "42" {
		t.Fatalf("got %s %q (%s), want answered 42", fin.Outcome, fin.Answer, fin.Error)
	}
	if obs := r.lastUser(2); !strings.Contains(obs, "[41, 42]") {
		t.Errorf("step 2 printed output missing from the observation:\n%s", obs)
	}
}

func TestFinalAnswerInNestedFunction(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("def inner():\n    final_answer(\"deep\")\n    print(\"never printed\")\ndef outer():\n    inner()\n    fail(\"not reached\")\nouter()"),
	)
	fin := r.run("nested")
	if fin.Outcome != agent.Answered || fin.Answer != "deep" || fin.Steps != 1 {
		t.Fatalf("got %s %q after %d steps, want answered \"deep\" after 1", fin.Outcome, fin.Answer, fin.Steps)
	}
}

func TestErrorIsShownAndNextStepRecovers(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("print(\"before the error\")\nx = 1 // 0"),
		code("final_answer(\"recovered\")"),
	)
	fin := r.run("recover")
	if fin.Outcome != agent.Answered || fin.Answer != "recovered" {
		t.Fatalf("got %s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
	}
	obs := r.lastUser(1)
	for _, want := range []string{"before the error", "division by zero", "line 2"} {
		if !strings.Contains(obs, want) {
			t.Errorf("observation after the error lacks %q:\n%s", want, obs)
		}
	}
}

func TestNoCodeBlockGetsFormatHelp(t *testing.T) {
	r := newRig(t, config.Settings{},
		llmtest.Reply{Text: "Thought: I am done, the final answer is 7."},
		code("final_answer(\"7\")"),
	)
	fin := r.run("format")
	if fin.Outcome != agent.Answered || fin.Answer != "7" {
		t.Fatalf("got %s %q", fin.Outcome, fin.Answer)
	}
	obs := r.lastUser(1)
	if !strings.Contains(obs, "no code block") || !strings.Contains(obs, "final_answer(") {
		t.Errorf("format help missing or without the final_answer hint:\n%s", obs)
	}
}

func TestRepeatedCodeIsFlagged(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("move(10, 10)"),
		code("move(10, 10)"),
		code("final_answer(\"done\")"),
	)
	r.run("repeat")
	if obs := r.lastUser(2); !strings.Contains(obs, "same as in your previous step") {
		t.Errorf("no repeat warning:\n%s", obs)
	}
	if obs := r.lastUser(1); strings.Contains(obs, "same as in your previous step") {
		t.Errorf("warning after the first occurrence:\n%s", obs)
	}
}

func TestStepLimitAsksForAnswer(t *testing.T) {
	r := newRig(t, config.Settings{MaxSteps: 3},
		code("print(1)"), code("print(2)"), code("print(3)"),
		llmtest.Reply{Text: "My best guess is 3."},
	)
	fin := r.run("never finishes")
	if fin.Outcome != agent.MaxSteps || fin.Answer != "" || fin.Summary != "My best guess is 3." || fin.Steps != 3 {
		t.Fatalf("got %s answer %q summary %q after %d steps; want no answer, the reply as the summary", fin.Outcome, fin.Answer, fin.Summary, fin.Steps)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 3 steps + 1 final", len(reqs))
	}
	final := reqs[3]
	if !strings.Contains(final.Messages[0].Text(), "step limit") || strings.Contains(final.Messages[0].Text(), "def click(") {
		t.Errorf("final call system message is not the tool-less step-limit prompt:\n%s", final.Messages[0].Text())
	}
	if !strings.Contains(final.Last("user").Text(), "never finishes") {
		t.Errorf("final call does not restate the task")
	}
	if tr := r.readTrace(fin); tr.End.Outcome != "max_steps" || tr.End.Answer != "" {
		t.Errorf("trace outcome %q, answer %q", tr.End.Outcome, tr.End.Answer)
	}
}

// TestRequestSizeStaysFlat: only the newest screenshots stay in the prompt, so the
// request at step 30 carries no more images than at step 4. Older screenshots
// leave in chunks (image_chunk, default keep_images): with keep 3 a request
// holds 3 to 5 of them; with a chunk of 1, exactly 3.
func TestRequestSizeStaysFlat(t *testing.T) {
	tests := []struct {
		name     string
		chunk    int
		min, max int
	}{
		// The rig's screen never changes, so a screenshot equal to the newest
		// one the request still holds is not sent again: one image per
		// request, never more than the bound.
		{"chunked", 0, 1, 5},
		{"one at a time", 1, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replies []llmtest.Reply
			for i := 0; i < 29; i++ {
				replies = append(replies, code("print(\"step\")"))
			}
			replies = append(replies, code("final_answer(\"ok\")"))
			r := newRig(t, config.Settings{MaxSteps: 30, KeepImages: 3, ImageChunk: tt.chunk}, replies...)
			if fin := r.run("long run"); fin.Outcome != agent.Answered {
				t.Fatalf("got %s (%s)", fin.Outcome, fin.Error)
			}
			reqs := r.srv.Requests()
			for i, req := range reqs[3:] {
				if n := len(req.Images()); n < tt.min || n > tt.max {
					t.Errorf("images at step %d: %d, want %d to %d", i+4, n, tt.min, tt.max)
				}
			}
			if !strings.Contains(string(reqs[29].Body), "screenshot not repeated") {
				t.Errorf("no pointer to the unchanged screenshot at step 30")
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	r := newRig(t, config.Settings{}, llmtest.Reply{
		Text:  "Thought: " + strings.Repeat("thinking slowly ", 400) + "\n```python\nfinal_answer(\"x\")\n```",
		Delay: 50 * time.Millisecond,
	})
	s := r.agent.Start(t.Context(), "cancel me", r.hooks())
	firstDelta := make(chan struct{})
	var once bool
	r.events.onEvent(func(e agent.Event) {
		if _, ok := e.(agent.TextDelta); ok && !once {
			once = true
			close(firstDelta)
		}
	})
	select {
	case <-firstDelta:
	case <-time.After(30 * time.Second):
		t.Fatal("the model stream never started")
	}
	checkStops(t, s)
	if tr := r.readTrace(s.Result()); tr.End.Outcome != "cancelled" {
		t.Errorf("trace outcome %q, want cancelled", tr.End.Outcome)
	}
}

func TestCancelMidWait(t *testing.T) {
	r := newRig(t, config.Settings{}, code("print(\"waiting\")\nwait(30)\nfinal_answer(\"too late\")"))
	s := r.agent.Start(t.Context(), "wait then cancel", r.hooks())
	code := make(chan struct{})
	var once bool
	r.events.onEvent(func(e agent.Event) {
		if _, ok := e.(agent.CodeParsed); ok && !once {
			once = true
			close(code)
		}
	})
	select {
	case <-code:
	case <-time.After(30 * time.Second):
		t.Fatal("no code was run")
	}
	time.Sleep(300 * time.Millisecond) // inside wait(30) now
	checkStops(t, s)
	if tr := r.readTrace(s.Result()); tr.End.Outcome != "cancelled" {
		t.Errorf("trace outcome %q, want cancelled", tr.End.Outcome)
	}
}

// checkStops stops the session and requires it to end within a second: Stop must
// reach the HTTP stream and any wait at once.
func checkStops(t *testing.T, s *agent.Session) {
	t.Helper()
	s.Stop()
	select {
	case <-s.Done():
	case <-time.After(time.Second):
		t.Fatal("the run did not end within 1 s of Stop")
	}
	if got := s.Result().Outcome; got != agent.Cancelled {
		t.Errorf("outcome %s, want cancelled", got)
	}
}

func TestModelFaultsAreRetried(t *testing.T) {
	r := newRig(t, config.Settings{Retries: 4},
		llmtest.Reply{Status: 500},
		llmtest.Reply{Status: 429, RetryAfter: "1"},
		llmtest.Reply{Text: "Thought: x\n```python\nprint('cut')\n```" + strings.Repeat(" pad", 50), CutStream: true},
		code("final_answer(\"survived\")"),
	)
	fin := r.run("flaky server")
	if fin.Outcome != agent.Answered || fin.Answer != "survived" {
		t.Fatalf("got %s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
	}
	if n := len(r.srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4 (3 faults retried)", n)
	}
	// The cut stream had streamed text: the UI is told to drop it.
	reset := false
	for _, e := range r.events.all() {
		if d, ok := e.(agent.TextDelta); ok && d.Reset {
			reset = true
		}
	}
	if !reset {
		t.Error("no TextDelta reset after the cut stream")
	}
	r.readTrace(fin)
}

func TestModelHangFailsCleanly(t *testing.T) {
	r := newRig(t, config.Settings{Retries: -1, TimeoutSec: 1}, llmtest.Reply{Hang: true})
	fin := r.run("hanging server")
	if fin.Outcome != agent.Failed || !strings.Contains(fin.Error, "model call") {
		t.Fatalf("got %s %q, want failed with a model call error", fin.Outcome, fin.Error)
	}
	if tr := r.readTrace(fin); tr.End.Outcome != "failed" || tr.End.Error == "" {
		t.Errorf("trace end %+v", tr.End)
	}
}

func TestSandboxHasNoOSAccess(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("data = open(\"/etc/passwd\").read()"),
		code("load(\"os\", \"system\")"),
		code("final_answer(\"contained\")"),
	)
	if fin := r.run("escape"); fin.Answer != "contained" {
		t.Fatalf("got %s %q", fin.Outcome, fin.Answer)
	}
	if obs := r.lastUser(1); !strings.Contains(obs, "open") || strings.Contains(obs, "root:x:0") {
		t.Errorf("open() was not refused:\n%s", obs)
	}
	if obs := r.lastUser(2); !strings.Contains(obs, "load") {
		t.Errorf("load() was not refused:\n%s", obs)
	}
}

func TestSecretNeverReachesModelOrTrace(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("type_secret(\"password\")\nprint(\"typed\")"),
		code("final_answer(\"ok\")"),
	)
	fin := r.run("log in")
	for i, req := range r.srv.Requests() {
		if strings.Contains(string(req.Body), "hunter2-Secret") || strings.Contains(string(req.Body), "sk-test-secret-key-123") {
			t.Errorf("request %d carries a secret", i)
		}
		if got := req.Header.Get("Authorization"); got != "Bearer sk-test-secret-key-123" {
			t.Errorf("request %d Authorization = %q", i, got)
		}
	}
	r.readTrace(fin) // checks the trace for both secrets
}

func TestAskUserReturnsReply(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("a = ask_user(\"Which file?\")\nfinal_answer(a)"),
	)
	fin := r.run("ask")
	if fin.Answer != "answer to: Which file?" {
		t.Fatalf("answer %q", fin.Answer)
	}
}

func TestCodeWithoutPersonAsk(t *testing.T) {
	r := newRig(t, config.Settings{}, code("ask_user(\"anyone?\")"), code("final_answer(\"alone\")"))
	fin := r.agent.Run(context.Background(), "nobody", agent.Hooks{})
	if fin.Answer != "alone" || !strings.Contains(r.lastUser(1), "no person is available") {
		t.Errorf("got %q; observation:\n%s", fin.Answer, r.lastUser(1))
	}
}

// TestTakeoverPausesUntilResumed: a person moving the mouse while a run goes on
// pauses the agent before its next primitive; Resume lets it continue and the model
// is told what the person said.
func TestTakeoverPausesUntilResumed(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("wait(3)\nclick(100, 100)\nprint(\"clicked\")"),
		code("final_answer(\"done\")"),
	)
	person, err := robot.New(os.Getenv("DISPLAY"), image.Rect(0, 0, 1280, 800))
	if err != nil {
		t.Fatal(err)
	}
	defer person.Close()
	codeSeen, paused := r.events.watchCodeAndPauses()
	s := r.agent.Start(t.Context(), "takeover", r.hooks())
	defer s.Stop()
	<-codeSeen // the script is about to wait 3 s: the person acts meanwhile
	if err := person.Move(t.Context(), actions.Point{X: 640, Y: 500}); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-paused:
		if !strings.Contains(p.Reason, "mouse") {
			t.Errorf("pause reason %q", p.Reason)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the agent did not pause when the person moved the mouse")
	}
	time.Sleep(300 * time.Millisecond)
	if c, _ := r.ready.Desktop.Cursor(); c != image.Pt(640, 500) {
		t.Fatalf("the paused agent moved the pointer to %v", c)
	}
	s.Resume("I moved the mouse to check something")
	select {
	case <-s.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not finish after Resume")
	}
	if fin := s.Result(); fin.Answer != "done" {
		t.Fatalf("got %s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
	}
	obs := r.lastUser(1)
	if !strings.Contains(obs, "clicked") || !strings.Contains(obs, "I moved the mouse to check something") {
		t.Errorf("observation after resume:\n%s", obs)
	}
	if c, _ := r.ready.Desktop.Cursor(); c != image.Pt(100, 100) {
		t.Errorf("after resume the click went to %v, want (100, 100)", c)
	}
}

func TestPlanningEveryN(t *testing.T) {
	r := newRig(t, config.Settings{PlanEvery: 2},
		llmtest.Reply{Text: "## Facts\n- none\n## Plan\n1. print\n2. answer"},
		code("print(\"one\")"),
		code("print(\"two\")"),
		llmtest.Reply{Text: "## Facts\n- printed twice\n## Plan\n1. answer"},
		code("final_answer(\"planned\")"),
	)
	fin := r.run("plan it")
	if fin.Answer != "planned" {
		t.Fatalf("got %s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model calls, want 2 plans + 3 steps", len(reqs))
	}
	for _, i := range []int{0, 3} {
		if !strings.Contains(reqs[i].Last("user").Text(), "## Plan") {
			t.Errorf("request %d is not a planning request:\n%s", i, reqs[i].Last("user").Text())
		}
	}
	if !strings.Contains(string(reqs[4].Body), "printed twice") {
		t.Errorf("the second plan is not in the conversation of the next step")
	}
}

// TestPolicyRefusesDomainsAndApps: open_url to a denied domain and launch of a
// denied program are refused before anything starts; the model reads why.
func TestPolicyRefusesDomainsAndApps(t *testing.T) {
	asked := 0
	r := newRig(t, config.Settings{DenyDomains: []string{"evil.test"}, DenyApps: []string{"xterm"}},
		code("open_url(\"https://login.evil.test/steal\")"),
		code("launch(\"xterm -e sh\")"),
		code("final_answer(\"refused\")"),
	)
	h := r.hooks()
	h.Confirm = func(context.Context, string) (bool, error) { asked++; return true, nil }
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if fin := r.agent.Run(ctx, "policy", h); fin.Answer != "refused" {
		t.Fatalf("got %s %q", fin.Outcome, fin.Answer)
	}
	if obs := r.lastUser(1); !strings.Contains(obs, "login.evil.test is in deny_domains") {
		t.Errorf("open_url not refused:\n%s", obs)
	}
	if obs := r.lastUser(2); !strings.Contains(obs, "xterm is in deny_apps") {
		t.Errorf("launch not refused:\n%s", obs)
	}
	if asked != 0 {
		t.Errorf("the person was asked %d times about actions the policy refuses", asked)
	}
}

// A reply that never ends is cut at the client's cap; what came before the cut
// runs and the model is told its reply was cut.
func TestEndlessReplyIsCut(t *testing.T) {
	r := newRig(t, config.Settings{},
		llmtest.Reply{Text: "Thought: go.\n```python\nprint(\"first\")\n```\n" + strings.Repeat("blah ", 200), Endless: true},
		code(`final_answer("done")`))
	r.agent.Model = llm.New(llm.Config{BaseURL: r.srv.URL, Model: "m", MaxRetries: -1, MaxReplyBytes: 8 << 10})
	fin := r.run("say something")
	if fin.Outcome != agent.Answered || fin.Answer != "done" {
		t.Fatalf("run ended %s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
	}
	if obs := r.lastUser(1); !strings.Contains(obs, "your reply was cut because the reply was longer than 8192 bytes") || !strings.Contains(obs, "first") {
		t.Errorf("observation after the cut reply:\n%s", obs)
	}
	tr := r.readTrace(fin)
	if n := len(tr.Steps[0].Reply); n > 8<<10 {
		t.Errorf("the trace holds a %d-byte reply", n)
	}
}

// The trace keeps what the model was sent and what the step cost: a zoom's
// image is stored with its observation, a step that acted records how long the
// screen took to settle, and an unchanged screen references the frame stored
// before instead of a new file.
func TestTraceRecordsAttachmentsSettleAndReusesFrames(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("zoom(0, 0, 200, 100)"),
		code("print(\"look\")"),
		code("press(\"shift\")"),
		code("final_answer(\"done\")"))
	fin := r.run("zoom then look")
	if fin.Outcome != agent.Answered {
		t.Fatalf("got %s (%s)", fin.Outcome, fin.Error)
	}
	tr := r.readTrace(fin)
	obs := map[int]*trace.Event{}
	for _, s := range tr.Steps {
		if s.Observation != nil {
			obs[s.Number] = s.Observation
		}
	}
	if o := obs[1]; o == nil || len(o.Attachments) != 1 {
		t.Fatalf("step 1 observation %+v: want one attachment (the zoom)", o)
	}
	img, err := os.Open(filepath.Join(fin.TraceDir, filepath.FromSlash(obs[1].Attachments[0])))
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	cfg, _, err := image.DecodeConfig(img)
	if err != nil {
		t.Fatalf("the zoom attachment is no image: %v", err)
	}
	if cfg.Width < 200 || cfg.Height < 100 {
		t.Errorf("zoom attachment is %dx%d, want at least the region's 200x100", cfg.Width, cfg.Height)
	}
	if obs[2] == nil || obs[1].Frame == "" || obs[2].Frame != obs[1].Frame {
		t.Errorf("unchanged screen: step 2 frame %q, step 1 frame %q; want the same file", obs[2].Frame, obs[1].Frame)
	}
	if o := obs[3]; o == nil || o.SettleMS <= 0 {
		t.Errorf("step 3 pressed a key but its observation records no settle time: %+v", o)
	}
}
