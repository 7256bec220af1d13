package app

import (
	"fmt"
	"image"
	"strings"
	"time"

	"deskpilot/agent"
	"deskpilot/internal/config"
)

// startRun starts the task in the entry (Run button, Ctrl+Enter). With the strip
// on, the window first gets out of the way, so the agent's first screenshot shows
// the desktop rather than deskpilot.
func (u *UI) startRun() {
	v := u.rv
	if u.run != nil || u.pending != 0 {
		return
	}
	task := strings.TrimSpace(v.task.Text)
	switch {
	case task == "":
		v.setHint("Type a task first.")
		u.win.Canvas().Focus(v.task)
		return
	case u.deps.Runner == nil:
		v.setHint("This build has no agent wired in; only the Console works.")
		return
	case !u.configured():
		u.sv.showGuidance("Set up a model before the first run.")
		u.tabs.Select(u.settingsTab)
		return
	}
	v.setHint("")
	follow, prev := "", u.followRun
	if v.follow.Visible() && v.follow.Checked {
		follow = u.followTrace
	} else if r, ok := prev.(Releaser); ok {
		r.Release() // not followed up: what it kept goes
	}
	u.offerFollowUp("", nil)
	u.gen++
	gen := u.gen
	cfg, err := u.resolved()
	if err != nil {
		v.setHint(fmt.Sprintf("The settings have a problem: %v", err))
		return
	}
	u.model = runModel{Task: task, Model: cfg.Model, MaxSteps: cfg.MaxSteps, Started: u.now(), Waiting: u.model.Waiting}
	u.recent = nil
	v.reset()
	u.pending = gen
	v.runBtn.Disable()
	if !u.autoStrip {
		u.beginRun(gen, task, cfg, follow, prev)
		return
	}
	u.compactThen(true, func() {
		u.beginRun(gen, task, cfg, follow, prev)
		if u.deps.TakeoverNote != "" && u.compact {
			u.st.showNote(u.deps.TakeoverNote)
		}
	})
}

// offerFollowUp shows the follow-up choice for the answered run recorded in
// trace ("" hides it), checked: a chat-style next turn is what a person who
// just got an answer most often wants. Only a runner that can continue runs
// gets it.
func (u *UI) offerFollowUp(trace string, run Run) {
	if _, ok := u.deps.Runner.(FollowUpRunner); !ok {
		trace = ""
	}
	u.followTrace, u.followRun = trace, run
	if trace == "" {
		u.rv.follow.Hide()
		return
	}
	u.rv.follow.SetChecked(true)
	u.rv.follow.Show()
}

// beginRun starts run gen prepared by startRun, unless Stop cancelled it
// meanwhile: a follow-up of the run recorded in follow when it is not "".
func (u *UI) beginRun(gen int, task string, cfg config.Config, follow string, prev Run) {
	if u.pending != gen {
		return
	}
	u.pending = 0
	keys, err := u.keys(cfg)
	if err != nil {
		u.abortStart(fmt.Sprintf("Could not read the secrets: %v", err))
		return
	}
	var run Run
	if fr, ok := u.deps.Runner.(FollowUpRunner); ok && follow != "" {
		run, err = fr.Continue(prev, follow, task, cfg, keys, u.hooks(gen))
	} else {
		run, err = u.deps.Runner.Start(task, cfg, keys, u.hooks(gen))
	}
	if err != nil {
		u.abortStart(fmt.Sprintf("Could not start: %v", err))
		return
	}
	u.run = run
	v := u.rv
	v.setRunning(true)
	u.refreshState()
	u.startTicker()
	go func() {
		<-run.Done()
		u.do(func() { u.runEnded(gen) })
	}()
}

// abortStart returns to idle when a run did not start; hint says why ("" = none).
func (u *UI) abortStart(hint string) {
	u.pending = 0
	u.model = runModel{}
	u.rv.runBtn.Enable()
	u.setCompact(false)
	u.refreshState()
	u.rv.setHint(hint)
}

// hooks connects a run to the UI. Every function is safe from any goroutine.
func (u *UI) hooks(gen int) agent.Hooks {
	return agent.Hooks{
		Event: func(e agent.Event) {
			u.do(func() {
				if gen == u.gen {
					u.onEvent(e)
				}
			})
		},
		Ask:      u.ask,
		Confirm:  u.confirm,
		MakeRoom: u.makeRoom,
	}
}

// onEvent folds an event into the run model and re-renders what it touched.
func (u *UI) onEvent(e agent.Event) {
	s := u.model.apply(e)
	v := u.rv
	switch e := e.(type) {
	case agent.Observed:
		if s != nil {
			v.updateStep(s)
		}
		v.updateLive()
		u.keepClear()
	case agent.ActionDone:
		v.updateStep(s)
		if a := e.Action; a.Screen != nil {
			u.noteAction(image.Pt(a.Screen[0], a.Screen[1]))
			if a.To != nil {
				u.noteAction(image.Pt(a.To[0], a.To[1]))
			}
			u.keepClear()
		}
	case agent.Paused:
		v.setPaused(true, e.Reason)
	case agent.Resumed:
		v.setPaused(false, "")
	case agent.Finished:
		u.finish()
	default:
		if s != nil {
			v.updateStep(s)
		}
	}
	u.refreshState()
}

// refreshState shows the run's state everywhere it appears: the status bar,
// the strip and the step cards.
func (u *UI) refreshState() {
	u.rv.refreshStatus()
	u.st.refresh()
}

// finish returns the UI to idle after a run; the model keeps the result.
func (u *UI) finish() {
	last := u.run
	u.run = nil
	u.stopTicker()
	u.rv.setRunning(false)
	u.rv.showFinished()
	if u.model.Result.Outcome == agent.Answered && !u.model.Vanished {
		u.offerFollowUp(u.model.TraceDir, last)
	}
	u.setCompact(false)
	u.refreshState()
}

// runEnded handles Done: a run that ended without a Finished event failed.
func (u *UI) runEnded(gen int) {
	if gen != u.gen || u.model.Done {
		return
	}
	u.model.Vanished = true
	u.model.apply(agent.Finished{Outcome: agent.Failed, Steps: len(u.model.Steps),
		Error: "the run ended without reporting a result", Usage: u.model.Usage,
		Elapsed: u.model.elapsed(u.now())})
	u.finish()
}

// stopRun stops the active run; the Finished event follows from the run.
func (u *UI) stopRun() {
	if u.run == nil {
		if u.pending != 0 {
			u.abortStart("") // still getting out of the way: do not start at all
		}
		return
	}
	u.run.Stop()
	u.model.Stopping = true
	u.rv.stopBtn.Disable()
	u.refreshState()
}

// togglePause pauses a running run or resumes a paused one.
func (u *UI) togglePause() {
	if u.run == nil {
		return
	}
	if u.model.Paused {
		u.resumeRun()
		return
	}
	u.model.PauseAsked = true
	u.run.Pause()
}

// resumeRun resumes with the note typed in the banner.
func (u *UI) resumeRun() {
	if u.run == nil {
		return
	}
	u.run.Resume(strings.TrimSpace(u.rv.note.Text))
}

func (u *UI) startTicker() {
	if u.tick <= 0 {
		return
	}
	stop := make(chan struct{})
	u.stopTick = stop
	go func() {
		t := time.NewTicker(u.tick)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				u.do(func() {
					u.refreshState()
					u.keepClear() // the pointer or the windows may have moved
				})
			}
		}
	}()
}

func (u *UI) stopTicker() {
	if u.stopTick != nil {
		close(u.stopTick)
		u.stopTick = nil
	}
}
