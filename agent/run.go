package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"go.starlark.net/starlark"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/agent/script"
	"deskpilot/agent/secret"
	"deskpilot/vision"
)

// runState is the state of one run while it goes on. It lives on the loop goroutine.
type runState struct {
	a       *Agent
	cfg     Config
	task    string
	hooks   Hooks
	session *Session
	prompts prompts
	mapper  vision.Mapper
	dialect dialect.Dialect
	hist    dialect.Historian // how the dialect's conversation goes
	conv    *conversation
	exec    executor
	obs     *vision.Observer
	attEnc  vision.Encoder // encodes attachments (zoom, screenshot)
	// ownBefore are deskpilot's windows as listed right before the newest capture.
	ownBefore []image.Rectangle
	disp      *dispatcher
	rec       *recorder
	input     *trackedInput
	priors    []Prior // the earlier runs a follow-up continues, oldest first
	codeKept  bool    // the follow-up's code runs in the earlier run's child: its variables are there

	// The run's parts, each its own type, wired by newRunWith.
	replay  *replayer    // the recording a replay checks against; nil in other runs
	checker *replayCheck // compares the screen with it; nil in other runs
	locator *locator     // asks the grounder where described elements are
	layers  *layers      // what an observation adds: marks, a11y and ocr layers
	policy  *runPolicy   // the confirmations, and what send_after_read remembers

	frame    *image.RGBA   // the newest full-resolution frame
	marks    []vision.Mark // last actions, drawn on the next screenshot
	step     int
	curStep  atomic.Int32 // step, for other goroutines (Pause, Resume)
	usage    Usage
	started  time.Time
	lastCode string
	cut      string // why the newest reply was cut short (llm.Response.Cut), or ""
	calls    int    // model calls made (Finished.ModelCalls)
	// source is StepStarted.Source of the run's model steps: SourceModel
	// in a replay's takeover (agent/takeover.go), "" in runs.
	source string

	reuse frameReuse // what a step that did not act can look at again

	// Secrets (agent/secrets.go): the filter of every text that leaves, the
	// reply's stream through it, the fields to mask, the display as the run
	// captures it (masked) and the tree as it reads it.
	red      *secret.Redactor
	stream   *secret.Stream
	fields   secretFields
	screen   vision.Capturer
	elements script.ElementFinder
}

// frameReuse is how a step that did not act avoids a new frame. Such a step
// finds the screen as it was more often than not. Its capture then goes to
// spare, a buffer no one else holds, and is dropped there: the run's frame
// stays, kept (afterStep), and the Observer looks at it again
// (vision.Observer.Again) instead of a frame-sized buffer being allocated,
// faulted in and scaled each step. seen is the frame observed last, shown the
// view made of it.
type frameReuse struct {
	spare *image.RGBA
	kept  bool
	seen  *image.RGBA
	shown view
}

// currentStep is the step now running; safe from any goroutine.
func (r *runState) currentStep() int { return int(r.curStep.Load()) }

// newRun sets a run up; rp is the recording of a replay, nil otherwise.
func (a *Agent) newRun(ctx context.Context, task string, h Hooks, s *Session, rp *replayer, f *followUp) (*runState, error) {
	return a.newRunWith(ctx, a.Config, task, h, s, rp, f)
}

// newRunWith sets up a run with the given config instead of a.Config.
func (a *Agent) newRunWith(ctx context.Context, c Config, task string, h Hooks, s *Session, rp *replayer, f *followUp) (*runState, error) {
	return a.buildRun(ctx, c, task, h, s, rp, f, true)
}

// buildRun is newRunWith; without record the run opens no trace (a
// takeover's steps go to its replay's, agent/takeover.go).
func (a *Agent) buildRun(ctx context.Context, c Config, task string, h Hooks, s *Session, rp *replayer, f *followUp, record bool) (*runState, error) {
	if strings.TrimSpace(task) == "" {
		return nil, errors.New("the task is empty")
	}
	if a.Model == nil || a.Screen == nil || a.Input == nil {
		return nil, errors.New("agent: Model, Screen and Input must be set")
	}
	cfg := c.withDefaults()
	p, err := loadPrompts()
	if err != nil {
		return nil, err
	}
	r := &runState{
		a: a, cfg: cfg, task: task, hooks: h, session: s, prompts: p, dialect: cfg.Dialect,
		hist:    dialect.HistorianOf(cfg.Dialect),
		mapper:  mapperFor(cfg, a.Display),
		started: a.now(),
		replay:  rp,
		red:     a.SecretFilter(),
	}
	r.stream = secret.NewStream(r.red)
	r.screen, r.elements = maskedScreen{r}, r.elementsOf()
	if f != nil {
		r.priors = f.priors
	}
	r.conv = newConversation(r.hist.History(), cfg.KeepImages, cfg.ImageChunk)
	enc := vision.Encoder{Format: cfg.ImageFormat, Quality: cfg.ImageQuality}
	r.obs = &vision.Observer{Mapper: r.mapper, Encoder: enc}
	r.attEnc = enc
	r.locator = &locator{a: a, cfg: cfg, attEnc: enc, ownRects: r.ownRects, screen: r.screen, redact: r.redact}
	r.layers = &layers{a: a, cfg: cfg, mapper: r.mapper, elements: r.elements}
	r.policy = &runPolicy{cfg: cfg, confirm: r.confirm, red: r.red}
	r.input = &trackedInput{Input: a.Input, cursor: a.Cursor, screen: a.Screen, display: a.Display}

	r.exec = r.newExecutor(f)
	if rp != nil {
		r.checker = &replayCheck{a: a, replay: rp, exec: r.exec, ownIgnore: r.ownIgnore, screen: r.screen}
	}
	if record {
		if err := r.openRecorder(); err != nil {
			return nil, err
		}
	}
	r.disp = newDispatcher(r.deliver)
	a.current.Store(r)
	s.setControl(func(reason string) {
		if s.gate.pause(reason) {
			r.disp.emit(Paused{Step: r.currentStep(), Reason: reason})
		}
	}, func() { r.disp.emit(Resumed{Step: r.currentStep()}) })
	return r, nil
}

// mapperFor is the run's coordinate mapping: the dialect's space on the target
// display (the code dialect's in the configured mode).
func mapperFor(cfg Config, display image.Rectangle) vision.Mapper {
	sp := cfg.Dialect.Space(display.Size(), cfg.MaxSide)
	if cfg.Dialect.Name() == dialect.Default {
		sp.Mode = cfg.CoordMode
	}
	if cfg.ImageSize.X > 0 && cfg.ImageSize.Y > 0 {
		sp.Image = cfg.ImageSize
	}
	return vision.Mapper{Display: display, Image: sp.Image, Mode: sp.Mode}
}

// executor runs the model's code: script.Sandbox (a child process, the
// default) or script.Executor (in this process).
type executor interface {
	Exec(ctx context.Context, code string) script.Result
	Stubs() string
	Kind(name string) script.Kind
	Close() error
}

// newExecutor makes the run's executor with its tools and the dialect's
// modules (pyautogui): built here in process, by name in a sandbox child.
func (r *runState) newExecutor(f *followUp) executor {
	if f != nil && f.code != nil {
		// A follow-up in this process: the earlier run's child, with its
		// globals, serves this run's tools.
		if !r.cfg.InProcess && f.code.Rebind(r.tools()...) {
			r.codeKept = true
			return f.code
		}
		_ = f.code.Close()
	}
	if r.cfg.InProcess {
		return script.New(script.Options{Modules: modulesOf(r.cfg.Dialect), Redact: r.red.Text}, r.tools()...)
	}
	return script.NewSandbox(script.SandboxOptions{Options: script.Options{Redact: r.red.Text},
		Memory: r.cfg.CodeMemory, Modules: moduleSet(r.cfg.Dialect)}, r.tools()...)
}

// moduleSet names the module set of d's programs for a sandbox child
// (dialect.ModuleSet); "" = none. A console's are pyautogui's.
func moduleSet(d dialect.Dialect) string {
	switch d.(type) {
	case consoleDialect:
		return "pyautogui"
	case dialect.Moduler:
		return d.Name()
	}
	return ""
}

// modulesOf returns the executor hook that adds a dialect's modules (pyautogui)
// over the run's builtins; nil for a dialect without modules.
func modulesOf(d dialect.Dialect) func(call func(*starlark.Thread, string, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) starlark.StringDict {
	m, ok := d.(dialect.Moduler)
	if !ok {
		return nil
	}
	return func(call func(*starlark.Thread, string, starlark.Tuple, []starlark.Tuple) (starlark.Value, error)) starlark.StringDict {
		return m.Modules(call)
	}
}

// deliver sends one event to the trace and to the hooks, in order.
func (r *runState) deliver(e Event) {
	switch x := e.(type) {
	case TextDelta:
		if e = r.streamDelta(x); x.Text != "" && e.(TextDelta).Text == "" && !x.Reset {
			return // held back: it may start a secret
		}
	case ModelReplied:
		if rest := r.stream.Flush(); rest != "" {
			r.deliver(TextDelta{Step: x.Step, Text: rest})
		}
		r.stream.Reset()
		e = r.redactEvent(e)
	default:
		e = r.redactEvent(e)
	}
	if r.rec != nil {
		r.rec.record(e)
	}
	if r.hooks.Event != nil {
		r.hooks.Event(e)
	}
}

// loop runs the steps and returns how the run ended.
func (r *runState) loop(ctx context.Context) Finished {
	first, err := r.capture(ctx)
	if err != nil {
		return r.fail(ctx, fmt.Errorf("first screenshot: %w", err))
	}
	view, err := r.observe(ctx, first)
	if err != nil {
		return r.fail(ctx, err)
	}
	sys, err := r.a.systemPrompt(r.dialect, r.task, r.mapper, r.exec.Stubs(), r.a.now())
	if err != nil {
		return r.fail(ctx, err)
	}
	r.disp.emit(RunStarted{
		Task: r.task, Model: r.cfg.Model, MaxSteps: r.cfg.MaxSteps, Screen: r.a.Display,
		ImageSize: r.mapper.Image, CoordMode: string(r.mapper.Mode), TraceDir: r.traceDir(), Time: r.started,
	})
	r.disp.emit(view.observed(0, "The screen when the task started."))
	if notes := r.redact(view.notes); len(r.priors) > 0 {
		r.startPriors(sys, notes, view.part())
	} else {
		r.conv.start(sys, withLayers(r.hist.FirstTurn(r.task), notes), view.part())
	}
	r.input.settle() // from here on, input the agent did not send is a person's
	for r.step = 1; r.step <= r.cfg.MaxSteps; r.step++ {
		if err := r.holdForPerson(ctx); err != nil { // takeover, before the model is asked
			return r.cancelled()
		}
		fin, err := r.doStep(ctx)
		if errors.Is(err, errStop) {
			return fin
		}
		if ctx.Err() != nil {
			return r.cancelled()
		}
		if err != nil {
			return r.fail(ctx, err)
		}
	}
	r.step = r.cfg.MaxSteps
	return r.stepLimit(ctx)
}

// doStep is one action step: ask the model, run its code, observe.
func (r *runState) doStep(ctx context.Context) (Finished, error) {
	start := r.a.now()
	r.curStep.Store(int32(r.step))
	r.disp.emit(StepStarted{Step: r.step, Max: r.cfg.MaxSteps, Time: start, Source: r.source})
	if err := r.maybePlan(ctx); err != nil {
		return Finished{}, err
	}
	parsed, perr, err := r.ask(ctx)
	if err != nil {
		return Finished{}, err
	}
	r.disp.emit(CodeParsed{Step: r.step, Code: parsed.Code, Thought: parsed.Thought})
	acks, refused := r.approve(ctx, &parsed)
	code := parsed.Code
	var res script.Result
	var notes, hints []string
	if refused != "" {
		notes = append(notes, refused)
	}
	if r.cut != "" {
		notes = append(notes, "Note: your reply was cut because "+r.cut+"; only what came before the cut was read. Keep replies short: a brief thought and one code block.")
	}
	if fe := (*dialect.FormatError)(nil); errors.As(perr, &fe) {
		notes = append(notes, fe.Help)
	} else if perr != nil {
		notes = append(notes, perr.Error())
	}
	if code != "" {
		if code == r.lastCode {
			hints = append(hints, "WARNING: this code is the same as in your previous step. If it did not work then, it will not work now: try something different.")
		}
		r.lastCode = code
		res = r.execBlock(ctx, code)
		if ctx.Err() != nil {
			return Finished{}, ctx.Err()
		}
	}
	for _, x := range res.Actions {
		r.disp.emit(ActionDone{Step: r.step, Action: x})
	}
	obs, err := r.observeStep(ctx, res, notes, hints, start)
	if err != nil {
		return Finished{}, err
	}
	r.answer(parsed, obs, perr != nil || res.Err != nil || refused != "", acks)
	if res.Final != nil {
		return r.finished(Answered, res.Final.Value, ""), errStop
	}
	return Finished{}, nil
}

// complete calls the model and returns the reply's text (agent/turns.go).
func (r *runState) complete(ctx context.Context, msgs []llm.Message, stopAtObservation bool) (string, error) {
	resp, err := r.completeResponse(ctx, msgs, stopAtObservation)
	return resp.Text, err
}

// maybePlan runs a planning call before steps 1, 1+N, 1+2N... when planning is on.
func (r *runState) maybePlan(ctx context.Context) error {
	n := r.cfg.PlanEvery
	if n <= 0 || (r.step-1)%n != 0 {
		return nil
	}
	ask, err := render(r.prompts.plan, struct{ Remaining int }{r.cfg.MaxSteps - r.step + 1})
	if err != nil {
		return err
	}
	msgs := append(r.conv.request(), textMsg("user", ask))
	plan, err := r.complete(ctx, msgs, false)
	if err != nil {
		return err
	}
	r.conv.add("assistant", "Here are the facts I know and my plan:\n"+plan)
	r.conv.add("user", "Now carry out this plan, one step at a time.")
	return nil
}

// stepLimit asks the model, without tools, for a summary of what it found: the
// Summary of a run that ends with no answer.
func (r *runState) stepLimit(ctx context.Context) Finished {
	ask, err := render(r.prompts.final, nil)
	if err != nil {
		return r.fail(ctx, err)
	}
	msgs := append([]llm.Message{textMsg("system", ask)}, r.conv.withoutSystem()...)
	msgs = append(msgs, textMsg("user", "Based on the above, give your best answer to the task:\n"+r.task))
	r.step++
	answer, err := r.complete(ctx, msgs, false)
	if ctx.Err() != nil {
		return r.cancelled()
	}
	fin := r.finished(MaxSteps, "", StepLimitAnswer)
	if err != nil {
		fin.Summary = r.redact("none: the closing model call failed: " + err.Error())
	} else {
		fin.Summary = r.redact(strings.TrimSpace(answer))
	}
	return fin
}

func (r *runState) finished(o Outcome, answer, errText string) Finished {
	steps := r.step
	if steps > r.cfg.MaxSteps {
		steps = r.cfg.MaxSteps
	}
	return Finished{
		Outcome: o, Answer: r.redact(answer), Error: r.redact(errText), Steps: steps, Usage: r.usage.add(r.locator.grounded.load()),
		ModelCalls: r.calls, Elapsed: r.a.now().Sub(r.started), TraceDir: r.traceDir(),
	}
}

func (r *runState) cancelled() Finished { return r.finished(Cancelled, "", "") }

func (r *runState) fail(ctx context.Context, err error) Finished {
	if ctx.Err() != nil {
		return r.cancelled()
	}
	// The error reaches every watcher in Finished; the log only keeps a record.
	r.a.log().Info("run failed", "step", r.step, "err", r.redact(err.Error()))
	return r.finished(Failed, "", err.Error())
}

// finish releases input, emits Finished and closes the trace.
func (r *runState) finish(fin Finished) {
	r.a.current.CompareAndSwap(r, nil)
	if err := r.input.ReleaseAll(); err != nil {
		r.a.log().Warn("release input", "err", err)
	}
	if !r.keepCode(fin) {
		if err := r.exec.Close(); err != nil {
			r.a.log().Warn("close the code's process", "err", err)
		}
	}
	r.disp.emit(fin)
	r.disp.close()
	if r.rec != nil {
		r.rec.close()
	}
}

// capture takes a full-resolution frame of the target display.
func (r *runState) capture(ctx context.Context) (*image.RGBA, error) {
	r.ownBefore = r.ownRects()
	f, err := r.screen.Capture(ctx)
	if err != nil {
		return nil, err
	}
	r.frame = f
	return f, nil
}

// view is the model's picture of the screen.
type view struct {
	image  *image.RGBA // what the model sees (a copy the caller may keep)
	data   []byte      // image encoded as sent to the model
	format string      // "png" or "jpeg"
	full   *image.RGBA // the full frame with deskpilot's windows masked
	notes  string      // what the observation adds to the image: marks, layers (agent/layers.go)
}

// part is the view as a message part: the encoded bytes, held once (the data
// URL is built only while a request is sent).
func (v view) part() llm.Part {
	return llm.Part{Image: v.data, ImageMIME: vision.Format(v.format).MIME()}
}

// observed is the Observed event showing this view.
func (v view) observed(step int, text string) Observed {
	return Observed{Step: step, Text: text, Frame: v.image, FrameData: v.data, FrameFormat: v.format, Screen: v.full}
}

// observe turns a full frame into the model's view: own windows masked, cursor,
// last actions and set-of-marks drawn, downscaled, encoded.
func (r *runState) observe(ctx context.Context, full *image.RGBA) (view, error) {
	var cursor *image.Point
	if r.a.Cursor != nil {
		if c, err := r.a.Cursor(); err == nil && c.In(r.a.Display) {
			cursor = &c
		}
	}
	// deskpilot's windows as listed before the capture and now: one that moved in
	// between is masked at both places.
	mask := slices.Concat(r.ownBefore, r.ownRects())
	r.lookForSecrets(ctx, full)
	boxes, notes, err := r.layers.look(ctx, full, mask)
	if err != nil {
		return view{}, err
	}
	if r.reuse.kept && !r.masksNothing() {
		// The walk found a secret's field: paint a copy, not the kept frame
		// (the trace and the watchers have it, the Observer took it as is).
		full, r.reuse.kept = vision.Crop(full, full.Rect), false
		if r.frame == r.reuse.seen {
			r.frame = full
		}
	}
	r.fields.paint(full, r.a.Display) // the walk may have moved a field
	ov := vision.Overlay{Cursor: cursor, Marks: r.marks, Mask: mask, Boxes: boxes}
	var o vision.Observation
	if r.reuse.kept && full == r.reuse.seen {
		o, err = r.obs.Again(ov)
	} else {
		o, err = r.obs.Observe(full, ov)
	}
	r.reuse.kept, r.reuse.seen = false, full
	if err != nil {
		r.reuse.seen, r.reuse.shown = nil, view{}
		return view{}, err
	}
	v := view{data: o.Data, format: string(o.Format), full: o.Full, notes: notes}
	if last := r.reuse.shown; last.image != nil && last.format == v.format && bytes.Equal(last.data, v.data) {
		// The model sees what it saw: the image and bytes it was shown
		// before (nobody writes to them) serve again.
		v.image, v.data = last.image, last.data
	} else {
		// The Observer reuses its image; the UI gets its own copy.
		v.image = vision.Crop(o.Image, o.Image.Rect)
	}
	r.reuse.shown = v
	return v, nil
}

// ownRects returns deskpilot's own windows on the target display, root coordinates.
func (r *runState) ownRects() []image.Rectangle {
	if r.a.OwnWindows == nil {
		return nil
	}
	var out []image.Rectangle
	for _, w := range r.a.OwnWindows() {
		if w = w.Intersect(r.a.Display); !w.Empty() {
			out = append(out, w)
		}
	}
	return out
}
