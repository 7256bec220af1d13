// Command demo opens the deskpilot window fed by a scripted fake agent, to look at
// the UI without a model or a desktop to drive. It writes its config and traces to
// a temporary folder.
//
//	go run ./app/internal/demo -delay 400ms -ask -takeover 2
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"deskpilot/actions"
	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/app"
	"deskpilot/internal/config"
)

func main() {
	firstRun := flag.Bool("first-run", false, "start without a model configured")
	delay := flag.Duration("delay", 350*time.Millisecond, "pause between scripted events")
	ask := flag.Bool("ask", false, "the agent asks a question in step 2")
	takeover := flag.Int("takeover", 0, "the person takes over after this step (0 = never)")
	noStrip := flag.Bool("no-strip", false, "keep the full window while running")
	keyring := flag.Bool("keyring", false, "pretend there is a system keyring")
	flag.Parse()

	dir, err := os.MkdirTemp("", "deskpilot-demo-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cfgPath := filepath.Join(dir, "config.toml")
	traces := filepath.Join(dir, "traces")
	if !*firstRun {
		err := config.SaveFile(cfgPath, config.Settings{Preset: "ollama"})
		if err != nil {
			log.Fatal(err)
		}
	}
	p := newPainter()
	for i, task := range []string{"Find the weather in Lisbon tomorrow", "Rename the screenshots on the desktop by date"} {
		r := &fakeRun{painter: p, traceRoot: traces, script: haikuScript()[:2+i], done: make(chan struct{})}
		r.play(task, agent.Hooks{}, 0)
	}

	a := app.NewFyneApp()
	a.Preferences().SetBool(app.PrefCompactWhileRunning, !*noStrip)
	d := app.Deps{
		Runner:  &fakeRunner{painter: p, traceRoot: traces, delay: *delay, ask: *ask, takeover: *takeover},
		Console: &fakeConsole{painter: p},
		TestConnection: func(ctx context.Context, c config.Config, key string) error {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return ctx.Err()
			}
			if strings.Contains(c.BaseURL, "localhost") {
				return errors.New("dial tcp 127.0.0.1:11434: connect: connection refused")
			}
			return nil
		},
		ConfigPath: cfgPath,
		TraceRoot:  traces,
	}
	if *keyring {
		d.Secrets = &memSecrets{m: map[string]string{}}
	}
	app.New(a, d).Run()
}

// fakeRunner starts scripted runs.
type fakeRunner struct {
	painter   *painter
	traceRoot string
	delay     time.Duration
	ask       bool
	takeover  int
}

func (f *fakeRunner) Start(task string, cfg config.Config, _ app.Keys, h agent.Hooks) (app.Run, error) {
	r := &fakeRun{painter: f.painter, traceRoot: f.traceRoot, script: haikuScript(), ask: f.ask,
		takeover: f.takeover, done: make(chan struct{}), resume: make(chan string, 1), model: cfg.Model}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	go r.play(task, h, f.delay)
	return r, nil
}

// fakeRun plays a script as events and writes a real trace.
type fakeRun struct {
	painter   *painter
	traceRoot string
	script    []scriptStep
	ask       bool
	takeover  int
	model     string

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	resume chan string
	mu     sync.Mutex
	pause  bool
}

func (r *fakeRun) Pause()                { r.mu.Lock(); r.pause = true; r.mu.Unlock() }
func (r *fakeRun) Resume(note string)    { r.resume <- note }
func (r *fakeRun) Stop()                 { r.cancel() }
func (r *fakeRun) Done() <-chan struct{} { return r.done }

func (r *fakeRun) paused() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.pause }

func (r *fakeRun) play(task string, h agent.Hooks, delay time.Duration) {
	defer close(r.done)
	if r.ctx == nil {
		r.ctx = context.Background()
	}
	emit := func(e agent.Event) {
		if h.Event != nil {
			h.Event(e)
		}
	}
	start := time.Now()
	tw, err := trace.Create(r.traceRoot, trace.Event{Task: task, Model: firstNonEmpty(r.model, "qwen2.5vl:7b"),
		CoordMode: "pixels", Screen: &trace.Rect{W: 2732, H: 1536}, Image: &trace.Size{W: 1366, H: 768}, MaxSteps: 30})
	if err != nil {
		log.Print(err)
		return
	}
	defer tw.Close()
	if rel, err := tw.Frame(0, r.painter.desktop(false, "", nil)); err == nil {
		tw.Write(trace.Event{Type: trace.TypeObservation, Step: 0, Text: "Initial screen.", Frame: rel, ModelFrame: rel})
	}
	emit(agent.RunStarted{Task: task, Model: firstNonEmpty(r.model, "qwen2.5vl:7b"), MaxSteps: 30, TraceDir: tw.Dir(), Time: start})
	usage := agent.Usage{}
	finish := func(f agent.Finished) {
		f.Usage, f.Elapsed, f.TraceDir = usage, time.Since(start), tw.Dir()
		tw.Write(trace.Event{Type: trace.TypeRunEnd, Outcome: string(f.Outcome), Answer: f.Answer, Steps: f.Steps,
			Usage: &trace.Usage{In: usage.Input, Out: usage.Output}, ElapsedMS: f.Elapsed.Milliseconds()})
		emit(f)
	}
	sleep := func(n int) bool {
		select {
		case <-time.After(time.Duration(n) * delay):
			return true
		case <-r.ctx.Done():
			return false
		}
	}
	for i, s := range r.script {
		n := i + 1
		if !r.step(n, s, emit, tw, &usage, sleep, h) {
			finish(agent.Finished{Outcome: agent.Cancelled, Steps: n})
			return
		}
		if !r.maybePause(n, emit) {
			finish(agent.Finished{Outcome: agent.Cancelled, Steps: n})
			return
		}
		if s.answer != "" {
			finish(agent.Finished{Outcome: agent.Answered, Answer: s.answer, Steps: n})
			return
		}
	}
	finish(agent.Finished{Outcome: agent.MaxSteps, Steps: len(r.script), Answer: "I could not finish."})
}

// maybePause pauses after step n when asked or scripted; false when stopped.
func (r *fakeRun) maybePause(n int, emit func(agent.Event)) bool {
	if r.takeover != n && !r.paused() {
		return true
	}
	reason := "you moved the mouse"
	if r.paused() {
		reason = "you pressed Pause"
	}
	emit(agent.Paused{Step: n, Reason: reason})
	select {
	case <-r.resume:
		r.mu.Lock()
		r.pause = false
		r.mu.Unlock()
		emit(agent.Resumed{Step: n})
		return true
	case <-r.ctx.Done():
		return false
	}
}

// step plays one scripted step; false when stopped.
func (r *fakeRun) step(n int, s scriptStep, emit func(agent.Event), tw *trace.Writer, usage *agent.Usage,
	sleep func(int) bool, h agent.Hooks) bool {
	t0 := time.Now()
	emit(agent.StepStarted{Step: n, Max: 30, Time: t0})
	tw.Write(trace.Event{Type: trace.TypeStepStart, Step: n})
	words := strings.SplitAfter(s.reply, " ")
	for i := 0; i < len(words); i += 3 {
		emit(agent.TextDelta{Step: n, Text: strings.Join(words[i:min(i+3, len(words))], "")})
		if !sleep(1) {
			return false
		}
	}
	u := agent.Usage{Input: 2100 + 1400*n, Output: 60 + 9*len(words)}
	usage.Input += u.Input
	usage.Output += u.Output
	md := time.Since(t0)
	emit(agent.ModelReplied{Step: n, Text: s.reply, Usage: u, Duration: md})
	tw.Write(trace.Event{Type: trace.TypeModelOutput, Step: n, Text: s.reply, Usage: &trace.Usage{In: u.Input, Out: u.Output}, DurationMS: md.Milliseconds()})
	emit(agent.CodeParsed{Step: n, Code: s.code})
	tw.Write(trace.Event{Type: trace.TypeCode, Step: n, Code: s.code})
	if r.ask && n == 2 && h.Ask != nil {
		ans, err := h.Ask(r.ctx, "Which folder should I save the haiku in? (Documents or Desktop)")
		obs := fmt.Sprintf("ask_user → %q", ans)
		if err != nil {
			obs = "ask_user failed: " + err.Error()
		}
		emit(agent.ActionDone{Step: n, Action: actions.Record{Name: "ask_user", Args: `"Which folder…?"`, Result: obs}})
	}
	for _, a := range s.actions {
		if !sleep(2) {
			return false
		}
		a.Start = time.Now()
		emit(agent.ActionDone{Step: n, Action: a})
		tw.Write(trace.Event{Type: trace.TypeAction, Step: n, Action: &a})
	}
	frame := s.frame(r.painter)
	rel, _ := tw.Frame(n, frame)
	emit(agent.Observed{Step: n, Text: s.obs, Error: s.err, Changed: true, Frame: frame, Duration: time.Since(t0) - md})
	tw.Write(trace.Event{Type: trace.TypeObservation, Step: n, Text: s.obs, Error: s.err, Changed: true, Frame: rel, ModelFrame: rel})
	if s.answer != "" {
		tw.Write(trace.Event{Type: trace.TypeFinalAnswer, Step: n, Answer: s.answer})
	}
	return sleep(2)
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fakeConsole "runs" each line as an action and shows a desktop frame.
type fakeConsole struct{ painter *painter }

func (c *fakeConsole) Exec(ctx context.Context, code string, h agent.Hooks) error {
	var out []string
	for _, l := range strings.Split(code, "\n") {
		l = strings.TrimSpace(l)
		name, args, ok := strings.Cut(l, "(")
		if !ok || l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		a := actions.Record{Name: name, Args: strings.TrimSuffix(args, ")"), Duration: 20 * time.Millisecond}
		if name == "print" {
			out = append(out, strings.Trim(a.Args, `"`))
		}
		h.Event(agent.ActionDone{Step: 1, Action: a})
	}
	img := c.painter.desktop(true, "Console — Text Editor", []string{"hello from the console"})
	mark(img, 640, 400)
	h.Event(agent.Observed{Step: 1, Text: strings.Join(out, "\n"), Changed: true, Frame: img})
	return ctx.Err()
}

// memSecrets is an in-memory keyring.
type memSecrets struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memSecrets) Get(account string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.m[account]; ok {
		return v, nil
	}
	return "", fmt.Errorf("%s: %w", account, app.ErrNoSecret)
}

func (s *memSecrets) Delete(account string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, account)
	return nil
}

func (s *memSecrets) Set(account, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[account] = secret
	return nil
}
