package agent

import (
	"deskpilot/actions"
	"sync"

	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/agent/script"
	"deskpilot/agent/trace"
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
	exec    executor
	obs     *vision.Observer
	attEnc  vision.Encoder // encodes attachments (zoom, screenshot)
	// ownBefore are deskpilot's windows as listed right before the newest capture.
	ownBefore []image.Rectangle
	disp      *dispatcher
	rec       *recorder
	input     *trackedInput
	replay    *replayer // the recording a replay checks against; nil in other runs

	msgs     []llm.Message // the conversation; images pruned when sent
	frame    *image.RGBA   // the newest full-resolution frame
	marks    []vision.Mark // last actions, drawn on the next screenshot
	step     int
	curStep  atomic.Int32 // step, for other goroutines (Pause, Resume)
	usage    Usage
	started  time.Time
	lastCode string
	cut      string // why the newest reply was cut short (llm.Response.Cut), or ""

	readHome atomic.Bool     // inspect_file read a file under the home folder
	sentMu   sync.Mutex      // guards sentTo
	sentTo   map[string]bool // hosts data went to (or was approved for)
}

// currentStep is the step now running; safe from any goroutine.
func (r *runState) currentStep() int { return int(r.curStep.Load()) }

// newRun sets a run up; rp is the recording of a replay, nil otherwise.
func (a *Agent) newRun(ctx context.Context, task string, h Hooks, s *Session, rp *replayer) (*runState, error) {
	if strings.TrimSpace(task) == "" {
		return nil, errors.New("the task is empty")
	}
	if a.Model == nil || a.Screen == nil || a.Input == nil {
		return nil, errors.New("agent: Model, Screen and Input must be set")
	}
	cfg := a.Config.withDefaults()
	p, err := loadPrompts()
	if err != nil {
		return nil, err
	}
	r := &runState{
		a: a, cfg: cfg, task: task, hooks: h, session: s, prompts: p, dialect: cfg.Dialect,
		mapper:  mapperFor(cfg, a.Display),
		started: a.now(),
		replay:  rp,
	}
	enc := vision.Encoder{Format: cfg.ImageFormat, Quality: cfg.ImageQuality}
	r.obs = &vision.Observer{Mapper: r.mapper, Encoder: enc}
	r.attEnc = enc
	r.input = &trackedInput{Input: a.Input, cursor: a.Cursor, look: a.Screen.Capture, origin: a.Display.Min}

	r.exec = r.newExecutor()
	if err := r.openRecorder(); err != nil {
		return nil, err
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

// executor runs the model's code: script.Sandbox (a child process, the
// default) or script.Executor (in this process).
type executor interface {
	Exec(ctx context.Context, code string) script.Result
	Stubs() string
	Kind(name string) script.Kind
	Close() error
}

// newExecutor makes the run's executor with its tools.
func (r *runState) newExecutor() executor {
	if r.cfg.InProcess {
		return script.New(script.Options{}, r.tools()...)
	}
	return script.NewSandbox(script.SandboxOptions{Memory: r.cfg.CodeMemory}, r.tools()...)
}

// mapperFor is the run's coordinate mapping: the dialect's space on the target
// display (the code dialect's in the configured mode).
func mapperFor(cfg Config, display image.Rectangle) vision.Mapper {
	sp := cfg.Dialect.Space(display.Size(), cfg.MaxSide)
	if _, code := cfg.Dialect.(dialect.Code); code {
		sp.Mode = cfg.CoordMode
	}
	if cfg.ImageSize.X > 0 && cfg.ImageSize.Y > 0 {
		sp.Image = cfg.ImageSize
	}
	return vision.Mapper{Display: display, Image: sp.Image, Mode: sp.Mode}
}

// deliver sends one event to the trace and to the hooks, in order.
func (r *runState) deliver(e Event) {
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
	view, err := r.observe(first)
	if err != nil {
		return r.fail(ctx, err)
	}
	sys, err := r.a.systemPrompt(r.dialect, r.mapper, r.exec.Stubs(), r.a.now())
	if err != nil {
		return r.fail(ctx, err)
	}
	r.disp.emit(RunStarted{
		Task: r.task, Model: r.cfg.Model, MaxSteps: r.cfg.MaxSteps, Screen: r.a.Display,
		ImageSize: r.mapper.Image, CoordMode: string(r.mapper.Mode), TraceDir: r.traceDir(), Time: r.started,
	})
	r.disp.emit(view.observed(0, "The screen when the task started."))
	r.msgs = []llm.Message{
		textMsg("system", sys),
		{Role: "user", Parts: []llm.Part{
			{Text: "New task:\n" + r.task + "\n\nThis is the screen now:"},
			{ImageURL: view.dataURL},
		}},
	}
	r.input.settle() // from here on, input the agent did not send is a person's
	for r.step = 1; r.step <= r.cfg.MaxSteps; r.step++ {
		if err := r.session.gate.wait(ctx); err != nil {
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
	r.disp.emit(StepStarted{Step: r.step, Max: r.cfg.MaxSteps, Time: start})
	if err := r.maybePlan(ctx); err != nil {
		return Finished{}, err
	}
	reply, err := r.complete(ctx, pruneImages(r.msgs, r.cfg.KeepImages), true)
	if err != nil {
		return Finished{}, err
	}
	parsed, perr := r.dialect.Parse(reply)
	code := parsed.Code
	r.disp.emit(CodeParsed{Step: r.step, Code: code, Thought: parsed.Thought})
	turn := parsed.Turn
	if turn == "" {
		turn = reply
	}
	r.msgs = append(r.msgs, textMsg("assistant", turn))
	var res script.Result
	var notes []string
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
			notes = append(notes, "WARNING: this code is the same as in your previous step. If it did not work then, it will not work now: try something different.")
		}
		r.lastCode = code
		res = r.exec.Exec(ctx, code)
		if ctx.Err() != nil {
			return Finished{}, ctx.Err()
		}
	}
	for _, x := range res.Actions {
		r.disp.emit(ActionDone{Step: r.step, Action: x})
	}
	obs, err := r.observeStep(ctx, res, notes, start)
	if err != nil {
		return Finished{}, err
	}
	r.msgs = append(r.msgs, llm.Message{Role: "user", Parts: append([]llm.Part{{Text: obs.text}}, obs.images...)})
	if res.Final != nil {
		return r.finished(Answered, res.Final.Value, ""), errStop
	}
	return Finished{}, nil
}

// complete calls the model, streaming deltas as events, and counts usage.
func (r *runState) complete(ctx context.Context, msgs []llm.Message, stopAtObservation bool) (string, error) {
	req := llm.Request{Messages: msgs, MaxTokens: r.cfg.MaxTokens}
	if r.cfg.Temperature != 0 {
		t := r.cfg.Temperature
		req.Temperature = &t
	}
	if stopAtObservation {
		req.Stop = r.dialect.Stop()
	}
	t0 := r.a.now()
	step := r.step
	req.OnRetry = func(rt llm.Retry) {
		r.a.log().Info("model call retried", "step", step, "attempt", rt.Attempt, "delay", rt.Delay, "err", rt.Err)
		if rt.Discard {
			r.disp.emit(TextDelta{Step: step, Reset: true})
		}
	}
	resp, err := r.a.Model.Complete(ctx, req, func(d string) {
		r.disp.emit(TextDelta{Step: step, Text: d})
	})
	if err != nil {
		return "", fmt.Errorf("model call: %w", err)
	}
	r.cut = resp.Cut
	u := Usage{Input: resp.Usage.Input, Output: resp.Usage.Output}
	r.usage.Input += u.Input
	r.usage.Output += u.Output
	r.disp.emit(ModelReplied{Step: step, Text: resp.Text, Usage: u, Duration: r.a.now().Sub(t0)})
	return resp.Text, nil
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
	msgs := append(pruneImages(r.msgs, r.cfg.KeepImages), textMsg("user", ask))
	plan, err := r.complete(ctx, msgs, false)
	if err != nil {
		return err
	}
	r.msgs = append(r.msgs,
		textMsg("assistant", "Here are the facts I know and my plan:\n"+plan),
		textMsg("user", "Now carry out this plan, one step at a time."))
	return nil
}

// stepLimit asks the model, without tools, for its best answer from the history.
func (r *runState) stepLimit(ctx context.Context) Finished {
	ask, err := render(r.prompts.final, nil)
	if err != nil {
		return r.fail(ctx, err)
	}
	msgs := append([]llm.Message{textMsg("system", ask)}, pruneImages(r.msgs[1:], r.cfg.KeepImages)...)
	msgs = append(msgs, textMsg("user", "Based on the above, give your best answer to the task:\n"+r.task))
	r.step++
	answer, err := r.complete(ctx, msgs, false)
	if ctx.Err() != nil {
		return r.cancelled()
	}
	if err != nil {
		answer = "no answer: the final model call failed: " + err.Error()
	}
	return r.finished(MaxSteps, strings.TrimSpace(answer), StepLimitAnswer)
}

func (r *runState) finished(o Outcome, answer, errText string) Finished {
	steps := r.step
	if steps > r.cfg.MaxSteps {
		steps = r.cfg.MaxSteps
	}
	return Finished{
		Outcome: o, Answer: answer, Error: errText, Steps: steps, Usage: r.usage,
		Elapsed: r.a.now().Sub(r.started), TraceDir: r.traceDir(),
	}
}

func (r *runState) cancelled() Finished { return r.finished(Cancelled, "", "") }

func (r *runState) fail(ctx context.Context, err error) Finished {
	if ctx.Err() != nil {
		return r.cancelled()
	}
	// The error reaches every watcher in Finished; the log only keeps a record.
	r.a.log().Info("run failed", "step", r.step, "err", err)
	return r.finished(Failed, "", err.Error())
}

// finish releases input, emits Finished and closes the trace.
func (r *runState) finish(fin Finished) {
	r.a.current.CompareAndSwap(r, nil)
	if err := r.input.ReleaseAll(); err != nil {
		r.a.log().Warn("release input", "err", err)
	}
	if err := r.exec.Close(); err != nil {
		r.a.log().Warn("close the code's process", "err", err)
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
	f, err := r.a.Screen.Capture(ctx)
	if err != nil {
		return nil, err
	}
	r.frame = f
	return f, nil
}

// view is the model's picture of the screen.
type view struct {
	image   *image.RGBA // what the model sees (a copy the caller may keep)
	data    []byte      // image encoded as sent to the model
	format  string      // "png" or "jpeg"
	full    *image.RGBA // the full frame with deskpilot's windows masked
	dataURL string
}

// observed is the Observed event showing this view.
func (v view) observed(step int, text string) Observed {
	return Observed{Step: step, Text: text, Frame: v.image, FrameData: v.data, FrameFormat: v.format, Screen: v.full}
}

// observe turns a full frame into the model's view: own windows masked, cursor and
// last actions drawn, downscaled, encoded.
func (r *runState) observe(full *image.RGBA) (view, error) {
	var cursor *image.Point
	if r.a.Cursor != nil {
		if c, err := r.a.Cursor(); err == nil && c.In(r.a.Display) {
			cursor = &c
		}
	}
	// deskpilot's windows as listed before the capture and now: one that moved in
	// between is masked at both places.
	mask := slices.Concat(r.ownBefore, r.ownRects())
	o, err := r.obs.Observe(full, vision.Overlay{Cursor: cursor, Marks: r.marks, Mask: mask})
	if err != nil {
		return view{}, err
	}
	// The Observer reuses its image; the UI gets its own copy.
	return view{image: vision.Crop(o.Image, o.Image.Rect), data: o.Data, format: string(o.Format),
		full: o.Full, dataURL: o.DataURL()}, nil
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

// touchesScreen reports whether any action may have changed the screen: a
// builtin whose kind acts on the desktop (script.Kind.Acts). After the others
// the screen is looked at once, without waiting for it to settle.
func (r *runState) touchesScreen(acts []actions.Record) bool {
	for _, a := range acts {
		if r.exec.Kind(a.Name).Acts() {
			return true
		}
	}
	return false
}

// settleInterval is the time between the captures that watch the screen settle after
// a step's actions. Apps answer a click within a frame or two; a slower change (an app
// starting) is the model's to wait for.
const settleInterval = 15 * time.Millisecond

// observeStep settles the screen after the step's actions and builds the observation.
func (r *runState) observeStep(ctx context.Context, res script.Result, notes []string, start time.Time) (observation, error) {
	frame, changed, settle, err := r.afterStep(ctx, r.touchesScreen(res.Actions))
	if err != nil {
		return observation{}, err
	}
	r.marks = marksFor(res.Actions)
	v, err := r.observe(frame)
	if err != nil {
		return observation{}, err
	}
	var b strings.Builder
	if res.Output != "" {
		b.WriteString("Printed output:\n")
		b.WriteString(res.Output)
		if !strings.HasSuffix(res.Output, "\n") {
			b.WriteByte('\n')
		}
	}
	b.WriteString(describeActions(res.Actions))
	errText := ""
	if res.Err != nil {
		errText = res.Err.Error()
		fmt.Fprintf(&b, "Error: %s\nFix the problem and try again; if it keeps failing, try a different approach.\n", errText)
	}
	for _, n := range r.session.gate.takeNotes() {
		b.WriteString("Note: the agent was paused and the person may have used the desktop meanwhile; then they let you continue.")
		if n != "" {
			fmt.Fprintf(&b, " They said: %q.", n)
		}
		b.WriteString(" Things may have moved: look at the new screenshot before acting.\n")
	}
	for _, n := range notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	if res.Final == nil {
		if changed {
			fmt.Fprintf(&b, "Screen changed: yes (settled after %d ms).\n", settle.Milliseconds())
		} else if r.touchesScreen(res.Actions) {
			fmt.Fprintf(&b, "Screen changed: no (watched for %d ms). If you expected a change it may still come: wait(1) and look again; otherwise try something different.\n", settle.Milliseconds())
		} else {
			b.WriteString("Screen changed: no.\n")
		}
	}
	var imgs []llm.Part
	for _, at := range res.Attachments {
		data, err := r.attEnc.Encode(at.Image)
		if err != nil {
			return observation{}, fmt.Errorf("encode %s: %w", at.Label, err)
		}
		fmt.Fprintf(&b, "Attached image: %s.\n", at.Label)
		imgs = append(imgs, llm.Part{ImageURL: vision.DataURL(r.attEnc.Format, data)})
	}
	b.WriteString("This is the screen now:")
	imgs = append(imgs, llm.Part{ImageURL: v.dataURL})
	// A secret's value can come back in what the code printed (a file, a
	// page): neither the model nor anyone watching sees it.
	text := r.redact(b.String())
	ev := v.observed(r.step, text)
	ev.Error, ev.Changed, ev.Duration = r.redact(errText), changed, r.a.now().Sub(start)
	r.disp.emit(ev)
	return observation{text: text, images: imgs}, nil
}

// afterStep takes the frame that shows the step's effect: when the step acted on
// the desktop it waits for the screen to settle; otherwise one capture. deskpilot's
// own windows (its live view changes all the time) count neither for settling nor
// for "changed".
func (r *runState) afterStep(ctx context.Context, acted bool) (*image.RGBA, bool, time.Duration, error) {
	before := r.frame
	r.ownBefore = r.ownRects()
	ignore := r.ownIgnore()
	if !acted {
		f, err := r.a.Screen.Capture(ctx)
		if err != nil {
			return nil, false, 0, fmt.Errorf("screenshot: %w", err)
		}
		r.frame = f
		return f, !vision.Same(before, f, ignore), 0, nil
	}
	sr, err := vision.Settle(ctx, r.a.Screen, before, vision.SettleOptions{
		Interval: settleInterval, Patience: 1, Ignore: ignore})
	if err != nil {
		return nil, false, 0, fmt.Errorf("settle: %w", err)
	}
	r.frame = sr.Frame
	return sr.Frame, sr.Changed, sr.Elapsed, nil
}

// redact hides the run's secrets (type_secret values, the API key) in s.
func (r *runState) redact(s string) string {
	secrets := slices.Clone(r.a.Redact)
	for _, v := range r.a.Secrets {
		secrets = append(secrets, v)
	}
	return trace.Redact(s, secrets...)
}

// ownIgnore is deskpilot's own windows in the coordinates of a frame of the
// target display: areas that count neither for settling nor for "changed".
func (r *runState) ownIgnore() []image.Rectangle {
	var ignore []image.Rectangle
	for _, w := range r.ownRects() {
		ignore = append(ignore, w.Sub(r.a.Display.Min))
	}
	return ignore
}

// marksFor draws the step's pointer actions on the next screenshot (the last three).
func marksFor(acts []actions.Record) []vision.Mark {
	var marks []vision.Mark
	for _, x := range acts {
		if x.Screen == nil || x.Error != "" || x.Name == "zoom" {
			continue
		}
		mk := vision.Mark{Kind: vision.MarkClick, At: image.Pt(x.Screen[0], x.Screen[1]), Label: x.Name}
		if x.To != nil {
			mk.Kind, mk.To = vision.MarkDrag, image.Pt(x.To[0], x.To[1])
		}
		marks = append(marks, mk)
	}
	if len(marks) > 3 {
		marks = marks[len(marks)-3:]
	}
	return marks
}
