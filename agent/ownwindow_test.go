//go:build linux

package agent_test

import (
	"context"
	"image"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/actions/robot"
	"deskpilot/internal/config"
)

// TestOwnInputIsNoTakeover: the person moves the mouse while the agent
// waits, but the input went to deskpilot's own window (the strip's buttons,
// Allow/Deny) — the run goes on without pausing and the click lands.
func TestOwnInputIsNoTakeover(t *testing.T) {
	tests := []struct {
		name      string
		own       bool // the input went to deskpilot's window
		wantPause bool
	}{
		{"own window", true, false},
		{"elsewhere", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, config.Settings{},
				code("wait(2)\nclick(100, 100)\nprint(\"clicked\")"),
				code("final_answer(\"done\")"),
			)
			person, err := robot.New(os.Getenv("DISPLAY"), image.Rect(0, 0, 1280, 800))
			if err != nil {
				t.Fatal(err)
			}
			defer person.Close()
			var ownAt atomic.Pointer[time.Time]
			r.agent.OwnInput = func() time.Time {
				if p := ownAt.Load(); p != nil {
					return *p
				}
				return time.Time{}
			}
			codeSeen, paused := r.events.watchCodeAndPauses()
			s := r.agent.Start(t.Context(), "own input", r.hooks())
			defer s.Stop()
			<-codeSeen
			time.Sleep(300 * time.Millisecond) // into the wait
			if err := person.Move(t.Context(), actions.Point{X: 1200, Y: 760}); err != nil {
				t.Fatal(err)
			}
			if tt.own {
				now := time.Now() // as the desktop reports input to its own windows
				ownAt.Store(&now)
			}
			var gotPause bool
			select {
			case <-paused:
				gotPause = true
				s.Resume("")
			case <-s.Done():
			case <-time.After(30 * time.Second):
				t.Fatal("the run neither paused nor finished")
			}
			<-s.Done()
			if gotPause != tt.wantPause {
				t.Errorf("paused %v, want %v", gotPause, tt.wantPause)
			}
			if fin := s.Result(); fin.Answer != "done" {
				t.Fatalf("got %s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
			}
			if c, _ := r.ready.Desktop.Cursor(); c != image.Pt(100, 100) {
				t.Errorf("the click went to %v, want (100, 100)", c)
			}
		})
	}
}

// TestMakeRoomThenAct: a click inside deskpilot's own window first asks the
// app to move it out of the way, then goes through; without room made it is
// refused.
func TestMakeRoomThenAct(t *testing.T) {
	tests := []struct {
		name    string
		moves   bool // the app moves its window
		refused bool
	}{
		{"the window moves", true, false},
		{"the window stays", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, config.Settings{},
				code("click(700, 600)\nprint(\"clicked\")"),
				code("final_answer(\"done\")"),
			)
			var mu sync.Mutex
			strip := image.Rect(540, 560, 1272, 680)
			var asked []image.Point
			r.agent.OwnWindows = func() []image.Rectangle {
				mu.Lock()
				defer mu.Unlock()
				return []image.Rectangle{strip}
			}
			h := r.hooks()
			h.MakeRoom = func(_ context.Context, p image.Point) bool {
				mu.Lock()
				defer mu.Unlock()
				asked = append(asked, p)
				if tt.moves {
					strip = image.Rect(8, 560, 740, 680).Add(image.Pt(0, -500)) // to the top left
				}
				return tt.moves
			}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			fin := r.agent.Run(ctx, "click under the strip", h)
			if fin.Answer != "done" {
				t.Fatalf("got %s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
			}
			obs := r.lastUser(1)
			if refused := strings.Contains(obs, "inside deskpilot's own window"); refused != tt.refused {
				t.Errorf("refused %v, want %v; observation:\n%s", refused, tt.refused, obs)
			}
			mu.Lock()
			if len(asked) != 1 || asked[0] != image.Pt(700, 600) {
				t.Errorf("MakeRoom asked %v, want once at (700, 600)", asked)
			}
			mu.Unlock()
			if c, _ := r.ready.Desktop.Cursor(); !tt.refused && c != image.Pt(700, 600) {
				t.Errorf("the click went to %v", c)
			}
		})
	}
}
