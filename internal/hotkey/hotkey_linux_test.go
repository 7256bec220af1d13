//go:build linux

package hotkey

import (
	"context"
	"errors"
	"image"
	"os"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/actions/robot"
	"deskpilot/vision/xdisplay"
)

func TestMain(m *testing.M) { os.Exit(xdisplay.Main(m, xdisplay.Options{Width: 640, Height: 480})) }

// press sends combo through XTest, as a person's keyboard would.
func press(t *testing.T, combo string) {
	t.Helper()
	r, err := robot.New("", image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := actions.ParseCombo(combo)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Press(t.Context(), c); err != nil {
		t.Fatal(err)
	}
}

// The grabbed combination fires wherever the focus is, with Num Lock on too;
// another combination does not; a second grab of the same one is refused
// with ErrTaken; the grab ends with ctx.
func TestWatchFiresOnTheCombination(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	fired := make(chan struct{}, 8)
	done := make(chan error, 1)
	watch := func() {
		go func() { done <- Watch(ctx, Options{Combo: "ctrl+alt+escape"}, func() { fired <- struct{}{} }) }()
	}
	watch()
	// The grab is in place when a second one is refused. A probe that came
	// first holds the grab only until its short context ends; the watch it
	// beat then ended with ErrTaken and starts again.
	deadline := time.Now().Add(20 * time.Second)
	for {
		probe, end := context.WithTimeout(t.Context(), 300*time.Millisecond)
		err := Watch(probe, Options{Combo: "ctrl+alt+escape"}, func() {})
		end()
		if errors.Is(err, ErrTaken) {
			break
		}
		select {
		case werr := <-done:
			if !errors.Is(werr, ErrTaken) {
				t.Fatalf("Watch ended early: %v", werr)
			}
			watch()
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second grab was not refused: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	press(t, "ctrl+escape")
	press(t, "ctrl+alt+escape")
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl+Alt+Esc did not fire")
	}
	press(t, "numlock")
	press(t, "ctrl+alt+escape")
	press(t, "numlock")
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("Ctrl+Alt+Esc with Num Lock on did not fire")
	}
	if n := len(fired); n != 0 {
		t.Errorf("%d more firings (Ctrl+Esc fired too?)", n)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not end with its context")
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in     string
		ok     bool
		errors bool
	}{
		{"", true, false}, {"ctrl+alt+esc", true, false}, {"none", false, false}, {"OFF", false, false},
		{"ctrl+alt", false, true}, {"ctrl+bogus", false, true},
	} {
		_, ok, err := Parse(c.in)
		if ok != c.ok || (err != nil) != c.errors {
			t.Errorf("Parse(%q) = %v, %v", c.in, ok, err)
		}
	}
}
