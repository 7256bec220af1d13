package agent_test

import (
	"errors"
	"image"
	"image/color"
	"strings"
	"testing"

	"deskpilot/agent"
	"deskpilot/agent/trace"
	"deskpilot/internal/config"
)

// recordingUnlikeTheScreen records a one-step run whose step saw a
// checkerboard, which the test display never shows.
func recordingUnlikeTheScreen(t *testing.T) *trace.Trace {
	t.Helper()
	w, err := trace.Create(t.TempDir(), trace.Event{Task: "recorded elsewhere", CoordMode: "pixels",
		Screen: &trace.Rect{W: 1280, H: 800}, Image: &trace.Size{W: 1280, H: 800}})
	if err != nil {
		t.Fatal(err)
	}
	board := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	for y := range 800 {
		for x := range 1280 {
			if (x/64+y/64)%2 == 0 {
				board.SetRGBA(x, y, color.RGBA{250, 200, 0, 255})
			}
		}
	}
	frame, err := w.Frame(0, board)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []trace.Event{
		{Type: trace.TypeObservation, Step: 0, Frame: frame},
		{Type: trace.TypeCode, Step: 1, Code: `print("ran")`},
	} {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// A replay console checks the screen before a step (Step) and where code
// calls checkpoint (Run); --force goes on and says so; the safety policy
// refuses what nobody approved.
func TestReplayConsole(t *testing.T) {
	r := newRig(t, config.Settings{})
	rec := recordingUnlikeTheScreen(t)
	cases := []struct {
		name     string
		force    bool
		step     int // 0: Run
		code     string
		diverge  bool   // a *DivergenceError
		output   string // printed output the block must show ("" = must not print "ran"/"after")
		blockErr string
	}{
		{name: "step diverges", step: 1, code: `print("ran")`, diverge: true},
		{name: "step forced", step: 1, code: `print("ran")`, force: true, output: "ran"},
		{name: "checkpoint in code diverges", code: "checkpoint(1)\nprint(\"after\")", diverge: true},
		{name: "checkpoint forced", code: "checkpoint(1)\nprint(\"after\")", force: true, output: "after"},
		{name: "step without a frame", code: "checkpoint(7)\nprint(\"after\")", output: "after"},
		{name: "policy refuses launch", code: `launch("xterm")`, blockErr: "refused"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			con, err := r.agent.NewReplay(t.Context(), "replay", agent.Recording{Trace: rec, Force: c.force})
			if err != nil {
				t.Fatal(err)
			}
			defer con.Close()
			var text strings.Builder
			h := agent.Hooks{Event: func(e agent.Event) {
				if o, ok := e.(agent.Observed); ok {
					text.WriteString(o.Text)
				}
			}}
			var res agent.BlockResult
			if c.step > 0 {
				res, err = con.Step(t.Context(), c.step, c.code, h)
			} else {
				res, err = con.Run(t.Context(), c.code, h)
			}
			var div *agent.DivergenceError
			if got := errors.As(err, &div); got != c.diverge {
				t.Fatalf("err = %v, want a divergence: %v", err, c.diverge)
			}
			if c.diverge && (div.Check.Screen > 0.5 || div.Check.Step != 1 || !strings.Contains(err.Error(), "step 1 does not look as recorded")) {
				t.Errorf("check %+v: %v", div.Check, err)
			}
			obs := text.String()
			switch {
			case c.output != "" && !strings.Contains(obs, "Printed output:\n"+c.output):
				t.Errorf("the code did not run:\n%s", obs)
			case c.output == "" && strings.Contains(obs, "Printed output"):
				t.Errorf("the code ran:\n%s", obs)
			}
			if c.force && !strings.Contains(obs, "going on (--force)") {
				t.Errorf("the forced check does not say so:\n%s", obs)
			}
			if c.blockErr != "" && !strings.Contains(res.Error, c.blockErr) {
				t.Errorf("block error %q, want %q", res.Error, c.blockErr)
			}
		})
	}
}
