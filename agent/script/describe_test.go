package script

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"strings"
	"sync"
	"testing"

	"deskpilot/actions"
	"deskpilot/vision"
)

// fakeGrounder finds elements by name in a table of screen points, as a
// grounding model would answer; an unknown name has no point.
type fakeGrounder struct {
	mu    sync.Mutex
	at    map[string]vision.ScreenPoint
	asked []string
}

var errNoSuchElement = errors.New("the grounder's reply has no point")

func (g *fakeGrounder) ground(_ context.Context, desc string) (Grounding, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = append(g.asked, desc)
	res := Grounding{Grounder: "fake-grounder", Space: "1000x1000 grid (norm1000)"}
	at, ok := g.at[desc]
	if !ok {
		res.Reply = "I cannot see it."
		return res, fmt.Errorf("found no point for %q: %w", desc, errNoSuchElement)
	}
	res.At, res.Point = at, vision.ModelPoint{X: 500, Y: 250}
	res.Reply = "click(start_box='(500,250)')"
	return res, nil
}

func groundedDesktop(t *testing.T) (*Executor, *fakeInput, *fakeGrounder) {
	t.Helper()
	g := &fakeGrounder{at: map[string]vision.ScreenPoint{
		"the Save button": {X: 2732, Y: 604}, // model (405.75, 301.75) on the 960x540 screenshot
		"the Trash icon":  {X: 3800, Y: 1000},
	}}
	e, in := newDesktop(t, "", func(d *DesktopDeps) { d.Ground = g.ground })
	return e, in, g
}

func TestGroundedPointerBuiltins(t *testing.T) {
	tests := []struct {
		name    string
		code    string
		input   []string
		results []string // each action as name: result
		output  string
	}{
		{"click", `click("the Save button")`, []string{"click (2732, 604) left x1"},
			[]string{`locate: fake-grounder answered "click(start_box='(500,250)')": (500, 250) in its 1000x1000 grid (norm1000)`,
				`click: clicked; grounded "the Save button" at (406, 302)`}, ""},
		{"keyword and button", `click(x="the Save button", button="right")`, []string{"click (2732, 604) right x1"}, nil, ""},
		{"double_click", `double_click("the Save button")`, []string{"click (2732, 604) left x2"}, nil, ""},
		{"right_click", `right_click("the Save button")`, []string{"click (2732, 604) right x1"}, nil, ""},
		{"move", `move("the Save button")`, []string{"move (2732, 604)"}, nil, ""},
		{"drag", `drag("the Save button", "the Trash icon")`, []string{"drag (2732, 604) (3800, 1000)"},
			[]string{"locate: ", "locate: ", `drag: dragged; grounded "the Save button" at (406, 302), grounded "the Trash icon" at (940, 500)`}, ""},
		// locate answers in whole pixels of the 960x540 screenshot: (406, 302)
		// is the 2x2 block whose lower-right pixel the grounder found.
		{"locate", `x, y = locate("the Save button")
print(x, y)
click(x, y)`, []string{"click (2733, 605) left x1"}, nil, "406 302\n"},
		{"coordinates still work", `click(10, 20)
drag(0, 0, 100, 50)`, []string{"click (1941, 41) left x1", "drag (1921, 1) (2121, 101)"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, in, _ := groundedDesktop(t)
			res := e.Exec(t.Context(), tt.code)
			if res.Err != nil {
				t.Fatal(res.Err.Msg)
			}
			if got := in.Calls(); strings.Join(got, "|") != strings.Join(tt.input, "|") {
				t.Errorf("input %q, want %q", got, tt.input)
			}
			if res.Output != tt.output {
				t.Errorf("output %q, want %q", res.Output, tt.output)
			}
			if tt.results == nil {
				return
			}
			if len(res.Actions) != len(tt.results) {
				t.Fatalf("%d actions, want %d: %+v", len(res.Actions), len(tt.results), res.Actions)
			}
			for i, w := range tt.results {
				if got := res.Actions[i].Name + ": " + res.Actions[i].Result; !strings.HasPrefix(got, w) {
					t.Errorf("action %d = %q, want %q", i, got, w)
				}
			}
		})
	}
}

// The grounder's call is in the action log: the description, its reply, the
// point in its own space and on the screen.
func TestGroundingIsLogged(t *testing.T) {
	e, _, _ := groundedDesktop(t)
	res := e.Exec(t.Context(), `click("the Save button")`)
	if res.Err != nil || len(res.Actions) != 2 {
		t.Fatalf("res = %+v", res)
	}
	loc, click := res.Actions[0], res.Actions[1]
	if loc.Name != "locate" || loc.Args != `"the Save button"` || *loc.Model != [2]float64{500, 250} || *loc.Screen != [2]int{2732, 604} {
		t.Errorf("locate action = %+v", loc)
	}
	if click.Args != `"the Save button"` || *click.Model != [2]float64{405.75, 301.75} || *click.Screen != [2]int{2732, 604} {
		t.Errorf("click action = %+v", click)
	}
}

func TestGroundingErrors(t *testing.T) {
	tests := []struct {
		name, code string
		want       []string
	}{
		{"no point", `click("the Cancel button")`, []string{`click: found no point for "the Cancel button"`}},
		{"description and y", `click("the Save button", 5)`, []string{`click: give either a description alone, e.g. click("the Save button"), or x and y as numbers`}},
		{"number without y", `click(10)`, []string{`click: y is missing: give x and y as numbers, or describe the element`}},
		{"drag with one description", `drag("the Save button", 5)`, []string{"drag: give either two descriptions"}},
		{"empty description", `locate("  ")`, []string{"locate: the description is empty"}},
		{"long description", `move("` + strings.Repeat("x", MaxDescription+1) + `")`, []string{"move: x is 501 characters long; the limit is 500 characters"}},
		{"scroll takes no description", `scroll("the list", 5)`, []string{`scroll: x must be a number, got string "the list"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, in, _ := groundedDesktop(t)
			res := e.Exec(t.Context(), tt.code)
			if res.Err == nil {
				t.Fatalf("no error; actions %+v", res.Actions)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Err.Msg, w) {
					t.Errorf("message lacks %q:\n%s", w, res.Err.Msg)
				}
			}
			if calls := in.Calls(); len(calls) != 0 {
				t.Errorf("input was driven: %q", calls)
			}
		})
	}
	e, _, _ := groundedDesktop(t)
	res := e.Exec(t.Context(), `click("the Cancel button")`)
	if len(res.Actions) != 1 || res.Actions[0].Name != "locate" || res.Actions[0].Error == "" ||
		!strings.Contains(res.Actions[0].Result, `fake-grounder answered "I cannot see it."`) {
		t.Errorf("a failed grounding is not logged with the grounder's reply: %+v", res.Actions)
	}
}

// Without a grounder, a description is an error saying how to configure one,
// and neither locate nor the description form is offered.
func TestNoGrounder(t *testing.T) {
	for _, code := range []string{`click("the Save button")`, `double_click(x="the Save button")`, `move("the Save button")`, `drag("a", "b")`} {
		t.Run(code, func(t *testing.T) {
			e, in := newDesktop(t, "", nil)
			res := e.Exec(t.Context(), code)
			if res.Err == nil || !strings.Contains(res.Err.Msg, ErrNoGrounder.Error()) || !strings.Contains(res.Err.Msg, "--grounder MODEL") {
				t.Errorf("err = %+v", res.Err)
			}
			if len(in.Calls()) != 0 {
				t.Errorf("input was driven")
			}
		})
	}
	e, _ := newDesktop(t, "", nil)
	if s := e.Stubs(); strings.Contains(s, "def locate(") || strings.Contains(s, "the Save button") {
		t.Errorf("stubs without a grounder offer grounding")
	}
	g, _, _ := groundedDesktop(t)
	s := g.Stubs()
	for _, w := range []string{
		"def locate(description: str) -> tuple[int, int]:",
		`def click(x: int | str, y: int | None = None, button: str = "left", modifiers: str = "") -> None:`,
		`click("the Save button")`,
		`def drag(x1: int | str, y1: int | str, x2: int | None = None, y2: int | None = None, modifiers: str = "") -> None:`,
	} {
		if !strings.Contains(s, w) {
			t.Errorf("grounded stubs lack %q", w)
		}
	}
}

// Stopping the block while the grounder is asked ends it at once.
func TestGroundingCancel(t *testing.T) {
	started := make(chan struct{})
	e, in := newDesktop(t, "", func(d *DesktopDeps) {
		d.Ground = func(ctx context.Context, _ string) (Grounding, error) {
			close(started)
			<-ctx.Done()
			return Grounding{}, ctx.Err()
		}
	})
	go func() {
		<-started
		e.Cancel()
	}()
	res := e.Exec(t.Context(), `click("the Save button")`)
	if res.Err == nil || res.Err.Kind != KindCancelled {
		t.Errorf("err = %+v, want cancelled", res.Err)
	}
	if len(in.Calls()) != 0 {
		t.Errorf("input was driven")
	}
}

// screen_size and cursor_position answer in the model's own space in every
// mode, so the point cursor_position gives maps back onto the pointer, within
// one unit of that space (whole pixels or grid steps; 0..1 fractions keep
// four decimals, well under a pixel).
func TestScreenToolsEveryMode(t *testing.T) {
	display := image.Rect(0, 0, 1920, 1080)
	tests := []struct {
		mode   vision.CoordMode
		img    image.Point
		cursor actions.Point
		out    string
	}{
		{vision.CoordPixels, image.Pt(1366, 768), actions.Point{X: 812, Y: 604}, "(1366, 768)\n(578, 429)\n"},
		{vision.CoordNorm1000, image.Pt(1366, 768), actions.Point{X: 812, Y: 604}, "(1000, 1000)\n(423, 560)\n"},
		{vision.CoordPixelsFloor, image.Pt(1932, 1092), actions.Point{X: 812, Y: 604}, "(1932, 1092)\n(818, 611)\n"},
		{vision.CoordNorm1000Round, image.Pt(1932, 1092), actions.Point{X: 812, Y: 604}, "(1000, 1000)\n(423, 559)\n"},
		{vision.CoordNorm999, image.Pt(1920, 1088), actions.Point{X: 812, Y: 604}, "(999, 999)\n(422, 559)\n"},
		{vision.CoordUnit, image.Pt(1366, 768), actions.Point{X: 812, Y: 604}, "(1, 1)\n(0.4229, 0.5593)\n"},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			in := &fakeInput{cursor: tt.cursor}
			m := vision.Mapper{Display: display, Image: tt.img, Mode: tt.mode}
			e := New(Options{}, Desktop(DesktopDeps{Mapper: m, Input: in})...)
			res := e.Exec(t.Context(), "print(screen_size())\nprint(cursor_position())\nmove(*cursor_position())")
			if res.Err != nil {
				t.Fatal(res.Err.Msg)
			}
			if res.Output != tt.out {
				t.Errorf("output %q, want %q", res.Output, tt.out)
			}
			ex, ey := m.Extent()
			var got actions.Point
			if calls := in.Calls(); len(calls) != 1 {
				t.Fatalf("calls %q", calls)
			} else if _, err := fmt.Sscanf(calls[0], "move (%d, %d)", &got.X, &got.Y); err != nil {
				t.Fatal(err)
			}
			unit := func(screen, extent float64) float64 { // screen pixels per unit
				if extent < 100 {
					return 1 // four decimals of a fraction
				}
				return math.Ceil(screen / extent)
			}
			if dx, dy := math.Abs(float64(got.X-tt.cursor.X)), math.Abs(float64(got.Y-tt.cursor.Y)); dx > unit(1920, ex) || dy > unit(1080, ey) {
				t.Errorf("move(*cursor_position()) went to %v, more than a unit from the cursor %v", got, tt.cursor)
			}
		})
	}
}
