//go:build linux

package agent_test

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/agent"
	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/script"
	"deskpilot/agent/trace"
	"deskpilot/internal/config"
	"deskpilot/internal/testapps"
	"deskpilot/internal/wiring"
	"deskpilot/vision/xdisplay"
)

// The tests of this package drive a private Xvfb display (1280x800, openbox) with
// real capture and real input, and a scripted model served over real HTTP.
func TestMain(m *testing.M) {
	script.ServeIfChild(dialect.ModuleSet) // the model's code runs in this binary, started again
	os.Exit(xdisplay.Main(m, xdisplay.Options{Width: 1280, Height: 800}))
}

// rig is one agent wired (internal/wiring, as every run is) to the test display
// and a scripted model.
type rig struct {
	t      testing.TB
	srv    *llmtest.Server
	ready  *wiring.Ready
	agent  *agent.Agent
	events *eventLog
	traces string
}

// newRig wires an agent from settings whose zero fields take test-friendly values.
func newRig(t testing.TB, s config.Settings, replies ...llmtest.Reply) *rig {
	t.Helper()
	srv := llmtest.New(t, replies...)
	traces := t.TempDir()
	if keep := os.Getenv("DESKPILOT_KEEP_TRACES"); keep != "" {
		traces = keep // to look at a test's traces afterwards
	}
	s.BaseURL, s.Model, s.TraceDir = srv.URL, "scripted-vlm", traces
	s.APIKeyEnv = "DESKPILOT_TEST_KEY"
	if s.MaxSteps == 0 {
		s.MaxSteps = 8
	}
	if s.TimeoutSec == 0 {
		s.TimeoutSec = 20
	}
	t.Setenv("DESKPILOT_TEST_KEY", "sk-test-secret-key-123")
	cfg, err := config.Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	ready, err := wiring.Open(t.Context(), cfg, wiring.Options{
		Secrets: map[string]string{"password": "hunter2-Secret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ready.Close() })
	// The one deviation from production wiring: retries back off in
	// milliseconds, not seconds, so fault tests stay short.
	ready.Agent.Model = llm.New(llm.Config{BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: cfg.APIKey(nil),
		Timeout: cfg.Timeout(), MaxRetries: cfg.Retries, Backoff: 10 * time.Millisecond})
	return &rig{t: t, srv: srv, ready: ready, agent: ready.Agent, events: &eventLog{}, traces: traces}
}

// run runs the task to its end with an event log and auto-approval.
func (r *rig) run(task string) agent.Finished {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.t.Context(), 2*time.Minute)
	defer cancel()
	return r.agent.Run(ctx, task, r.hooks())
}

func (r *rig) hooks() agent.Hooks {
	return agent.Hooks{
		Event:   r.events.add,
		Confirm: func(context.Context, string) (bool, error) { return true, nil },
		Ask:     func(_ context.Context, q string) (string, error) { return "answer to: " + q, nil },
	}
}

// readTrace loads the run's trace and checks it is well-formed.
func (r *rig) readTrace(fin agent.Finished) *trace.Trace {
	r.t.Helper()
	if fin.TraceDir == "" {
		r.t.Fatal("the run reports no trace folder")
	}
	tr, err := trace.Read(fin.TraceDir)
	if err != nil {
		r.t.Fatalf("trace unreadable: %v", err)
	}
	if tr.End == nil {
		r.t.Fatalf("trace has no run_end")
	}
	if _, err := os.Stat(filepath.Join(fin.TraceDir, "report.html")); err != nil {
		r.t.Errorf("no report.html: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(fin.TraceDir, "trace.jsonl"))
	if err != nil {
		r.t.Fatal(err)
	}
	for _, secret := range []string{"sk-test-secret-key-123", "hunter2-Secret"} {
		if strings.Contains(string(raw), secret) {
			r.t.Errorf("trace contains the secret %q", secret)
		}
	}
	return tr
}

// lastUser returns the text of the last user message of request i.
func (r *rig) lastUser(i int) string {
	r.t.Helper()
	reqs := r.srv.Requests()
	if i >= len(reqs) {
		r.t.Fatalf("request %d was never made (%d requests)", i, len(reqs))
	}
	return reqs[i].Last("user").Text()
}

// code is a scripted reply with a thought and one code block.
func code(src string) llmtest.Reply {
	return llmtest.Reply{Text: "Thought: next step.\n```python\n" + src + "\n```\n"}
}

// eventLog records events; safe for concurrent use.
type eventLog struct {
	mu     sync.Mutex
	events []agent.Event
	notify func(agent.Event)
}

func (l *eventLog) add(e agent.Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	n := l.notify
	l.mu.Unlock()
	if n != nil {
		n(e)
	}
}

func (l *eventLog) onEvent(f func(agent.Event)) {
	l.mu.Lock()
	l.notify = f
	l.mu.Unlock()
}

// watchCodeAndPauses reports, from now on, that the model's code was
// parsed (once, on a channel that never blocks the events) and each pause.
func (l *eventLog) watchCodeAndPauses() (codeSeen <-chan struct{}, paused <-chan agent.Paused) {
	code, p := make(chan struct{}, 1), make(chan agent.Paused, 1)
	l.onEvent(func(e agent.Event) {
		switch e := e.(type) {
		case agent.CodeParsed:
			select {
			case code <- struct{}{}:
			default:
			}
		case agent.Paused:
			p <- e
		}
	})
	return code, p
}

func (l *eventLog) all() []agent.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]agent.Event(nil), l.events...)
}

// startForm starts the form app (internal/testapps) on the test display.
func startForm(t *testing.T) *testapps.Form {
	t.Helper()
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	return testapps.StartForm(t, d)
}

// clickAt returns model coordinates of the centre of a form widget for the newest
// image of req. It runs on the model server's goroutine, so it reports with Errorf.
func clickAt(t *testing.T, f *testapps.Form, name string, req llmtest.Request, mode string) string {
	imgs := req.Images()
	if len(imgs) == 0 {
		t.Errorf("request has no image")
		return "0, 0"
	}
	at, err := f.Click(name, imgs[len(imgs)-1].Size, image.Pt(1280, 800), mode)
	if err != nil {
		t.Error(err)
		return "0, 0"
	}
	return at
}
