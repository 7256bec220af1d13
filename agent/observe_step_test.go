//go:build linux

package agent_test

import (
	"bytes"
	"context"
	"image"
	"strings"
	"testing"
	"time"

	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
	"deskpilot/vision"
	"deskpilot/vision/screen"
	"deskpilot/vision/xdisplay"
)

// TestPrintStepsSeeTheScreenAsItIs runs a click, then steps that only print.
// On the unchanged screen the first print step's screenshot is what a new
// Observer makes of a new capture (the click's marker gone), the next one's
// the same bytes, and a window an outside program opens before the last
// print step is in that step's screenshot, which says the screen changed.
func TestPrintStepsSeeTheScreenAsItIs(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	sc, err := screen.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var started agent.RunStarted
	var fresh []byte // a new Observer's image of the screen before the fourth request
	var rig *rig
	look := func() []byte {
		frame, err := sc.Capture(ctx, image.Rectangle{})
		if err != nil {
			t.Error(err)
			return nil
		}
		at, err := sc.Cursor()
		if err != nil {
			t.Error(err)
			return nil
		}
		cfg := rig.agent.Config
		o := vision.Observer{Mapper: vision.Mapper{Display: rig.agent.Display, Image: started.ImageSize, Mode: vision.CoordMode(started.CoordMode)},
			Encoder: vision.Encoder{Format: cfg.ImageFormat, Quality: cfg.ImageQuality}}
		obs, err := o.Observe(frame, vision.Overlay{Cursor: &at})
		if err != nil {
			t.Error(err)
			return nil
		}
		return obs.Data
	}
	var app *xdisplay.App
	defer func() {
		if app != nil {
			_ = app.Stop()
		}
	}()
	rig = newRig(t, config.Settings{},
		code("click(300, 300)"),
		code(`print("a")`),
		llmtest.Reply{Func: func(llmtest.Request) string {
			fresh = look()
			return code(`print("b")`).Text
		}},
		llmtest.Reply{Func: func(llmtest.Request) string {
			var err error
			if app, err = d.StartApp(ctx, "xmessage", "-geometry", "+600+400", "opened meanwhile"); err != nil {
				t.Error(err)
			} else if _, err := d.WaitWindow(ctx, "xmessage"); err != nil {
				t.Error(err)
			}
			time.Sleep(300 * time.Millisecond) // its text drawn
			return code(`print("c")`).Text
		}},
		code(`final_answer("done")`))
	rig.events.onEvent(func(e agent.Event) {
		if s, ok := e.(agent.RunStarted); ok {
			started = s
		}
	})
	if fin := rig.run("click, then look"); fin.Outcome != agent.Answered {
		t.Fatalf("got %s (%s)", fin.Outcome, fin.Error)
	}
	reqs := rig.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	// The bytes each step's observation sends (the request leaves out a
	// screenshot equal to the one before it).
	shots := map[int][]byte{}
	for _, e := range rig.events.all() {
		if o, ok := e.(agent.Observed); ok {
			shots[o.Step] = o.FrameData
		}
	}
	shot := func(step int) []byte {
		if shots[step] == nil {
			t.Fatalf("step %d observed no screenshot", step)
		}
		return shots[step]
	}
	if bytes.Equal(shot(1), shot(2)) {
		t.Error("the print step after the click was sent the click's screenshot, marker and all")
	}
	if fresh == nil || !bytes.Equal(shot(2), fresh) {
		t.Error("the print step's screenshot is not what a new Observer makes of the screen")
	}
	if !bytes.Equal(shot(3), shot(2)) {
		t.Error("two print steps on an unchanged screen were sent different screenshots")
	}
	for i, want := range map[int]string{2: "Screen changed: no.", 3: "Screen changed: no.", 4: "Screen changed: yes"} {
		if got := reqs[i].Last("user").Text(); !strings.Contains(got, want) {
			t.Errorf("request %d says %q, want %q", i, got, want)
		}
	}
	if bytes.Equal(shot(4), shot(3)) {
		t.Error("the window opened before the last print step is not in its screenshot")
	}
}
