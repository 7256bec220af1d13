package app

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/software"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"deskpilot/actions"
	"deskpilot/agent"
	"deskpilot/internal/config"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// uiQueue stands in for the Fyne event loop: fyne.Do posts here and the test
// goroutine runs the posted functions, so widgets are only touched by the test
// goroutine (and the race detector stays quiet).
type uiQueue struct {
	mu     sync.Mutex
	fns    []func()
	notify chan struct{}
}

func newQueue() *uiQueue { return &uiQueue{notify: make(chan struct{}, 1)} }

func (q *uiQueue) post(f func()) {
	q.mu.Lock()
	q.fns = append(q.fns, f)
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// flush runs everything posted, including what the functions post themselves.
func (q *uiQueue) flush() {
	for {
		q.mu.Lock()
		fns := q.fns
		q.fns = nil
		q.mu.Unlock()
		if len(fns) == 0 {
			return
		}
		for _, f := range fns {
			f()
		}
	}
}

// waitFor flushes until cond holds; it fails the test when nothing more arrives
// for a long while (a hang, not a timing assertion).
func (q *uiQueue) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for {
		q.flush()
		if cond() {
			return
		}
		select {
		case <-q.notify:
		case <-time.After(20 * time.Second):
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// fixedClock is the test clock: 42 s after the run start used in event scripts.
var runStart = time.Date(2026, 3, 4, 14, 5, 0, 0, time.UTC)

func fixedClock() time.Time { return runStart.Add(42 * time.Second) }

// recApp records the files and URLs the UI asks to open; with openErr set,
// opening fails with it.
type recApp struct {
	fyne.App
	mu      sync.Mutex
	opened  []string
	openErr error
}

func (a *recApp) OpenURL(u *url.URL) error { return a.openFile(u.String()) }

func (a *recApp) openFile(path string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opened = append(a.opened, path)
	return a.openErr
}

func (a *recApp) openedFiles() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.opened...)
}

// harness is a UI on the test driver with fakes behind it.
type harness struct {
	t      *testing.T
	u      *UI
	q      *uiQueue
	app    *recApp
	runner *fakeRunner
	env    map[string]string
}

type harnessOpt func(*Deps)

// configured writes a config with a model so the UI opens on the Run tab.
func configured(t *testing.T) harnessOpt {
	return func(d *Deps) {
		err := config.SaveFile(d.ConfigPath, config.Settings{Preset: "openai", BaseURL: "http://127.0.0.1:9/v1", Model: "vision-7b", APIKeyEnv: "OPENAI_API_KEY"})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func newHarness(t *testing.T, opts ...harnessOpt) *harness {
	t.Helper()
	h := &harness{t: t, q: newQueue(), runner: &fakeRunner{}, env: map[string]string{}}
	h.app = &recApp{App: test.NewTempApp(t)}
	d := Deps{
		Runner:     h.runner,
		ConfigPath: filepath.Join(t.TempDir(), "config.toml"),
		TraceRoot:  filepath.Join(t.TempDir(), "traces"),
		LookupEnv:  func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
	}
	for _, o := range opts {
		o(&d)
	}
	h.u = newUI(h.app, d, h.q.post, fixedClock, 0)
	h.u.open = h.app.openFile
	h.u.win.Resize(fyne.NewSize(1280, 820))
	return h
}

// hooks returns the hooks the fake runner received.
func (h *harness) hooks() agent.Hooks {
	h.t.Helper()
	h.runner.mu.Lock()
	defer h.runner.mu.Unlock()
	if len(h.runner.starts) == 0 {
		h.t.Fatal("no run was started")
	}
	return h.runner.starts[len(h.runner.starts)-1].hooks
}

// emit sends events like the agent loop does and lets the UI apply them.
func (h *harness) emit(events ...agent.Event) {
	hk := h.hooks()
	for _, e := range events {
		hk.Event(e)
	}
	h.q.flush()
}

// start types task and taps Run.
func (h *harness) start(task string) *fakeRun {
	h.t.Helper()
	test.Type(h.u.rv.task, task)
	test.Tap(h.u.rv.runBtn)
	h.q.flush()
	return h.runner.last(h.t)
}

type started struct {
	task   string
	cfg    config.Config
	keys   Keys
	hooks  agent.Hooks
	run    *fakeRun
	follow string // the trace a follow-up continues; "" for a new run
	prev   Run    // the run a follow-up continues
}

// fakeRunner records the runs it is asked to start.
type fakeRunner struct {
	mu     sync.Mutex
	starts []started
	err    error
}

func (f *fakeRunner) Start(task string, cfg config.Config, keys Keys, h agent.Hooks) (Run, error) {
	return f.Continue(nil, "", task, cfg, keys, h)
}

// Continue records a follow-up of the run in traceDir ("" = a new run).
func (f *fakeRunner) Continue(prev Run, traceDir, task string, cfg config.Config, keys Keys, h agent.Hooks) (Run, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	r := &fakeRun{done: make(chan struct{})}
	f.starts = append(f.starts, started{task, cfg, keys, h, r, traceDir, prev})
	return r, nil
}

func (f *fakeRunner) last(t *testing.T) *fakeRun {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.starts) == 0 {
		t.Fatal("no run was started")
	}
	return f.starts[len(f.starts)-1].run
}

// fakeRun records the controls the UI used.
type fakeRun struct {
	released bool
	mu       sync.Mutex
	pauses   int
	resumes  []string
	stops    int
	done     chan struct{}
	once     sync.Once
}

func (r *fakeRun) Pause() { r.mu.Lock(); r.pauses++; r.mu.Unlock() }
func (r *fakeRun) Resume(note string) {
	r.mu.Lock()
	r.resumes = append(r.resumes, note)
	r.mu.Unlock()
}
func (r *fakeRun) Stop() {
	r.mu.Lock()
	r.stops++
	r.mu.Unlock()
	r.finish()
}
func (r *fakeRun) Done() <-chan struct{} { return r.done }
func (r *fakeRun) Release()              { r.mu.Lock(); r.released = true; r.mu.Unlock() }
func (r *fakeRun) finish()               { r.once.Do(func() { close(r.done) }) }

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
	return "", fmt.Errorf("account %s: %w", account, ErrNoSecret)
}

func (s *memSecrets) Set(account, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[account] = secret
	return nil
}

func (s *memSecrets) Delete(account string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[account]; !ok {
		return fmt.Errorf("account %s: %w", account, ErrNoSecret)
	}
	delete(s.m, account)
	return nil
}

// fakeConsole reports one action and an observation with a frame per Exec.
type fakeConsole struct {
	mu    sync.Mutex
	codes []string
}

func (c *fakeConsole) Exec(ctx context.Context, code string, h agent.Hooks) error {
	c.mu.Lock()
	c.codes = append(c.codes, code)
	c.mu.Unlock()
	h.Event(agent.ActionDone{Step: 1, Action: actions.Record{Name: "click", Args: "10, 20", Screen: &[2]int{10, 20}}})
	// The text the model is sent, and the parts of it a person reads.
	h.Event(agent.Observed{Step: 1, Output: "clicked\n", Frame: solid(64, 40, color.RGBA{0, 0, 255, 255}),
		Text: "Printed output:\nclicked\n- click(10, 20)\nScreen changed: no (watched for 900 ms). If you expected a change it may still come: wait(1) and look again; otherwise try something different.\nThis is the screen now:"})
	return ctx.Err()
}

func solid(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

// findButton returns the visible button labelled text under o.
func findButton(t *testing.T, o fyne.CanvasObject, text string) *widget.Button {
	t.Helper()
	for _, c := range test.LaidOutObjects(o) {
		if b, ok := c.(*widget.Button); ok && b.Text == text && b.Visible() {
			return b
		}
	}
	t.Fatalf("no button %q", text)
	return nil
}

// assertMarkup compares o's markup with testdata/name; -update rewrites it.
func assertMarkup(t *testing.T, name string, o fyne.CanvasObject) {
	t.Helper()
	if *update {
		writeGolden(t, name, []byte(test.RenderObjectToMarkup(o)))
	}
	test.AssertObjectRendersToMarkup(t, name, o)
}

// assertImage compares o's rendering with testdata/name; -update rewrites it.
func assertImage(t *testing.T, name string, o fyne.CanvasObject, size fyne.Size) {
	t.Helper()
	c := software.NewCanvas()
	c.SetPadded(false)
	c.SetContent(o)
	c.Resize(size)
	if *update {
		f := filepath.Join("testdata", name)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		writePNG(t, f, c.Capture())
	}
	test.AssertRendersToImage(t, name, c)
}

func writeGolden(t *testing.T, name string, data []byte) {
	t.Helper()
	f := filepath.Join("testdata", name)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
