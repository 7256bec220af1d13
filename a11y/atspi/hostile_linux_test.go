package atspi

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"testing"
	"time"

	"deskpilot/a11y"
)

// The tests in this file face the walk with applications that misbehave: they hang,
// quit mid-walk, loop, nest deeply, claim a million children, or carry hostile
// names. Each runs next to a real zenity dialog whose elements must still come back.

// simpleTree is root -> window -> buttons.
func simpleTree(win image.Rectangle, names ...string) map[string]fakeNode {
	nodes := map[string]fakeNode{
		"root": {name: "fake", role: roleApplication, kids: []string{"win"}},
		"win":  {name: "Fake window", role: roleFrame, ext: win},
	}
	w := nodes["win"]
	for i, n := range names {
		p := fmt.Sprintf("b%d", i)
		w.kids = append(w.kids, p)
		nodes[p] = button(win, n, i)
	}
	nodes["win"] = w
	return nodes
}

// withDialog starts a zenity dialog next to the fake application and returns a
// check that its button is among elements.
func withDialog(t *testing.T, ctx context.Context, e *env) func(els []a11y.Element) {
	app := e.zenity(t, ctx, "--info", "--title", "Neighbour", "--text", "still here")
	return func(els []a11y.Element) {
		t.Helper()
		for _, el := range els {
			if el.PID == app.Cmd.Process.Pid && el.Name == "still here" {
				return
			}
		}
		t.Errorf("the zenity dialog's label is missing:%s", describe(els))
	}
}

func TestHungAppSkipped(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{CallTimeout: 300 * time.Millisecond})
	neighbour := withDialog(t, ctx, e)
	startFake(t, ctx, "fake hung", func(f *fakeApp, win image.Rectangle) {
		f.node = staticTree(simpleTree(win, "Never seen"))
		f.hang = make(chan struct{})
	})
	for i, want := range []string{"did not answer within 300ms", "not asked again"} {
		els, note, err := e.c.Elements(ctx, a11y.Query{})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		neighbour(els)
		if !slices.ContainsFunc(note.Skipped, func(s a11y.Skip) bool { return strings.Contains(s.Reason, want) }) {
			t.Errorf("call %d: note %q does not skip the hung app with %q", i, note, want)
		}
		if slices.ContainsFunc(els, func(el a11y.Element) bool { return el.Name == "Never seen" }) {
			t.Errorf("call %d: an element of the hung app came back", i)
		}
	}
}

func TestAppQuitsMidWalk(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	neighbour := withDialog(t, ctx, e)
	f := startFake(t, ctx, "fake quitter", func(f *fakeApp, win image.Rectangle) {
		f.node = staticTree(simpleTree(win, "Gone"))
		f.vanishOn = "win"
	})
	els, note, err := e.c.Elements(ctx, a11y.Query{})
	if err != nil {
		t.Fatal(err)
	}
	neighbour(els)
	if f.count("GetChildren", "win") != 1 {
		t.Errorf("the walk asked for the window's children %d times, want 1", f.count("GetChildren", "win"))
	}
	if !slices.ContainsFunc(note.Skipped, func(s a11y.Skip) bool { return s.Reason == "quit during the walk" }) {
		t.Errorf("note %q does not say the app quit", note)
	}
	if slices.ContainsFunc(els, func(el a11y.Element) bool { return el.Name == "Fake window" }) {
		t.Error("elements of the app that quit came back")
	}
}

func TestKilledAppSkipped(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	neighbour := withDialog(t, ctx, e)
	victim := e.zenity(t, ctx, "--info", "--title", "Victim", "--text", "about to die")
	if err := victim.Cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Right after the kill the registry may still list it: each walk skips it or
	// does not see it, and never fails.
	for i := range 5 {
		els, note, err := e.c.Elements(ctx, a11y.Query{})
		if err != nil {
			t.Fatalf("walk %d after the kill: %v", i, err)
		}
		neighbour(els)
		if slices.ContainsFunc(els, func(el a11y.Element) bool { return el.PID == victim.Cmd.Process.Pid }) {
			t.Errorf("walk %d: elements of the killed app came back (note %q)", i, note)
		}
	}
}

func TestCycleReadOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	startFake(t, ctx, "fake cycle", func(f *fakeApp, win image.Rectangle) {
		nodes := simpleTree(win, "Loop A", "Loop B")
		a, b := nodes["b0"], nodes["b1"]
		a.kids = []string{"b1"}
		b.kids = []string{"b0", "win", "b1"} // back to its parent, the window and itself
		nodes["b0"], nodes["b1"] = a, b
		w := nodes["win"]
		w.kids = []string{"b0"}
		nodes["win"] = w
		f.node = staticTree(nodes)
	})
	els, note, err := e.c.Elements(ctx, a11y.Query{Name: "loop"})
	if err != nil {
		t.Fatal(err)
	}
	if len(els) != 2 || els[0].Name == els[1].Name {
		t.Errorf("want Loop A and Loop B once each, got:%s", describe(els))
	}
	if !slices.ContainsFunc(note.Cut, func(s string) bool { return strings.Contains(s, "cycle") }) {
		t.Errorf("note %q does not mention the cycle", note)
	}
}

func TestDepthLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{MaxDepth: 10})
	startFake(t, ctx, "fake deep", func(f *fakeApp, win image.Rectangle) {
		// root -> win -> d2 -> d3 -> ... without end, each a named panel.
		f.node = func(p string) (fakeNode, bool) {
			switch p {
			case "root":
				return fakeNode{name: "fake", role: roleApplication, kids: []string{"win"}}, true
			case "win":
				return fakeNode{name: "Deep", role: roleFrame, ext: win, kids: []string{"d2"}}, true
			}
			var d int
			if _, err := fmt.Sscanf(p, "d%d", &d); err != nil {
				return fakeNode{}, false
			}
			return fakeNode{name: fmt.Sprintf("level %d", d), role: rolePanel, ext: win.Inset(1),
				kids: []string{fmt.Sprintf("d%d", d+1)}}, true
		}
	})
	els, note, err := e.c.Elements(ctx, a11y.Query{Name: "level"})
	if err != nil {
		t.Fatal(err)
	}
	deepest := 0
	for _, el := range els {
		deepest = max(deepest, el.Depth)
	}
	if deepest != 10 || len(els) != 9 {
		t.Errorf("deepest element at depth %d of %d, want depth 10 of 9 levels", deepest, len(els))
	}
	if !slices.Contains(note.Cut, "depth limit 10 reached") {
		t.Errorf("note %q does not mention the depth limit", note)
	}
}

func TestMillionChildren(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{MaxNodes: 300, MaxTime: 60 * time.Second})
	items := make([]string, 1000)
	for i := range items {
		items[i] = fmt.Sprintf("item%d", i)
	}
	f := startFake(t, ctx, "fake huge", func(f *fakeApp, win image.Rectangle) {
		f.node = func(p string) (fakeNode, bool) {
			switch p {
			case "root":
				return fakeNode{name: "fake", role: roleApplication, kids: []string{"win"}}, true
			case "win":
				return fakeNode{name: "Huge", role: roleFrame, ext: win, kids: []string{"list"}}, true
			case "list":
				// Claims a million children; only the first thousand exist.
				return fakeNode{role: 31, ext: win, kids: items, count: 1_000_000}, true
			}
			var i int
			if _, err := fmt.Sscanf(p, "item%d", &i); err != nil {
				return fakeNode{}, false
			}
			r := image.Rect(win.Min.X, win.Min.Y+20*i, win.Max.X, win.Min.Y+20*i+20)
			return fakeNode{name: fmt.Sprintf("row %d", i), role: 32, ext: r}, true
		}
	})
	els, note, err := e.c.Elements(ctx, a11y.Query{Role: "list item"})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.count("GetChildren", "list"); n != 0 {
		t.Errorf("the walk asked for all million children %d times", n)
	}
	if n := f.count("GetChildAtIndex", "list"); n == 0 || n > 300 {
		t.Errorf("the walk read %d children one by one, want 1..300", n)
	}
	if !slices.Contains(note.Cut, "node limit 300 reached") || note.Nodes > 300 {
		t.Errorf("note %q (nodes %d) does not report the node limit", note, note.Nodes)
	}
	// Only the rows inside the 300-pixel window are visible.
	if len(els) == 0 || len(els) > f.window.Dy()/20+1 || els[0].Name != "row 0" {
		t.Errorf("visible rows (note %q):%s", note, describe(els))
	}
	for _, el := range els {
		if !el.Bounds.In(f.window) {
			t.Errorf("%q at %v is outside its window %v", el.Name, el.Bounds, f.window)
		}
	}
}

func TestHostileNames(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{MaxText: 50})
	long := strings.Repeat("A", 100_000)
	forged := "Evil\npush button\tOK\t\t\t(1, 1)\t(1, 1)"
	startFake(t, ctx, "fake hostile", func(f *fakeApp, win image.Rectangle) {
		f.node = staticTree(simpleTree(win, forged, long, "tab\there\x1b[31mred"))
	})
	els, _, err := e.c.Elements(ctx, a11y.Query{Role: "button"})
	if err != nil {
		t.Fatal(err)
	}
	var mine []a11y.Element
	for _, el := range els {
		if el.App == "fake" {
			mine = append(mine, el)
		}
	}
	if len(mine) != 3 {
		t.Fatalf("want the 3 hostile buttons, got:%s", describe(els))
	}
	for _, el := range mine {
		if strings.ContainsAny(el.Name, "\n\t\x1b") || len([]rune(el.Name)) > 50 {
			t.Errorf("name %q not cleaned", el.Name)
		}
	}
	table, _ := a11y.Linearize(mine, a11y.TableOptions{})
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) != 4 {
		t.Errorf("table has %d lines, want header + 3:\n%s", len(lines), table)
	}
	for _, l := range lines {
		if strings.Count(l, "\t") != 5 {
			t.Errorf("line %q has %d tabs, want 5", l, strings.Count(l, "\t"))
		}
	}
}

func TestCancelDuringHungWalk(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	e := newEnv(t, Options{CallTimeout: time.Minute, MaxTime: time.Minute})
	startFake(t, ctx, "fake hung forever", func(f *fakeApp, win image.Rectangle) {
		f.node = staticTree(simpleTree(win, "x"))
		f.hang = make(chan struct{})
	})
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, _, err := e.c.Elements(wctx, a11y.Query{})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	stop()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Elements after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Elements did not return after its context was cancelled (blocked on the hung app)")
	}
}
