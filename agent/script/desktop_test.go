package script

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/vision"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakeInput records the primitives it is asked to perform.
type fakeInput struct {
	mu     sync.Mutex
	calls  []string
	cursor actions.Point
	err    error // returned by every primitive when set
}

func (f *fakeInput) record(format string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	return f.err
}

func (f *fakeInput) Move(_ context.Context, p actions.Point) error { return f.record("move %v", p) }
func (f *fakeInput) Click(_ context.Context, p actions.Point, b actions.Button, n int) error {
	return f.record("click %v %v x%d", p, b, n)
}
func (f *fakeInput) Drag(_ context.Context, from, to actions.Point) error {
	return f.record("drag %v %v", from, to)
}
func (f *fakeInput) Scroll(_ context.Context, p actions.Point, d actions.Direction, n int) error {
	return f.record("scroll %v %s %d", p, d, n)
}
func (f *fakeInput) Press(_ context.Context, c actions.Combo) error { return f.record("press %s", c) }
func (f *fakeInput) Hold(_ context.Context, c actions.Combo, d time.Duration) error {
	return f.record("hold %s %s", c, d)
}
func (f *fakeInput) Type(_ context.Context, text string) error {
	if f.err != nil {
		f.record("type %s", text)
		return fmt.Errorf("xtest: cannot type %q", text)
	}
	return f.record("type %s", text)
}
func (f *fakeInput) Cursor() (actions.Point, error) { return f.cursor, nil }
func (f *fakeInput) ReleaseAll() error              { return nil }

// fakeInput is an actions.Holder too: it records what it holds.
func (f *fakeInput) KeyDown(_ context.Context, c actions.Combo) error {
	return f.record("keydown %s", c)
}
func (f *fakeInput) KeyUp(_ context.Context, c actions.Combo) error { return f.record("keyup %s", c) }
func (f *fakeInput) ButtonDown(_ context.Context, p actions.Point, b actions.Button) error {
	return f.record("buttondown %v %v", p, b)
}
func (f *fakeInput) ButtonUp(_ context.Context, p actions.Point, b actions.Button) error {
	return f.record("buttonup %v %v", p, b)
}

func (f *fakeInput) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// fakeFrames returns a frame of the display whose pixel (x, y) has colour
// (x%256, y%256, 7); its bounds start at 0,0.
type fakeFrames struct{ size image.Point }

func (f fakeFrames) Capture(context.Context) (*image.RGBA, error) {
	img := image.NewRGBA(image.Rectangle{Max: f.size})
	for y := range f.size.Y {
		for x := range f.size.X {
			img.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), 7, 255})
		}
	}
	return img, nil
}

// testDisplay is a 1920x1080 monitor right of another, shown to the model at
// 960x540: one model pixel is 2x2 screen pixels.
var testDisplay = image.Rect(1920, 0, 3840, 1080)

func newDesktop(t *testing.T, mode vision.CoordMode, opt func(*DesktopDeps)) (*Executor, *fakeInput) {
	t.Helper()
	in := &fakeInput{}
	deps := DesktopDeps{
		Mapper: vision.NewMapper(testDisplay, 960, mode),
		Input:  in,
		Frames: fakeFrames{testDisplay.Size()},
		Secrets: func(name string) (string, bool) {
			if name == "github" {
				return "hunter2-s3cret", true
			}
			return "", false
		},
	}
	if opt != nil {
		opt(&deps)
	}
	return New(Options{}, Desktop(deps)...), in
}

func TestDesktopPrimitives(t *testing.T) {
	tests := []struct {
		name  string
		mode  vision.CoordMode
		code  string
		calls []string
	}{
		{"click", "", "click(10, 20)", []string{"click (1941, 41) left x1"}},
		{"click right by keyword", "", `click(x=10, y=20, button="right")`, []string{"click (1941, 41) right x1"}},
		{"fractional", "", "click(10.6, 20)", []string{"click (1942, 41) left x1"}},
		{"double_click", "", "double_click(0, 0)", []string{"click (1921, 1) left x2"}},
		{"right_click", "", "right_click(959, 539)", []string{"click (3839, 1079) right x1"}},
		{"norm1000", vision.CoordNorm1000, "click(500, 1000)", []string{"click (2880, 1079) left x1"}},
		{"move", "", "move(100, 100)", []string{"move (2121, 201)"}},
		{"drag", "", "drag(0, 0, 100, 50)", []string{"drag (1921, 1) (2121, 101)"}},
		{"scroll defaults", "", "scroll(10, 10)", []string{"scroll (1941, 21) down 3"}},
		{"scroll up", "", `scroll(10, 10, "up", amount=10)`, []string{"scroll (1941, 21) up 10"}},
		{"type_text", "", `type_text("héllo, 世界")`, []string{"type héllo, 世界"}},
		{"press", "", `press("Ctrl+Shift+T")`, []string{"press ctrl+shift+t"}},
		{"hold", "", `hold("shift", 0.5)`, []string{"hold shift 500ms"}},
		{"several", "", "for x in [1, 2]:\n    click(x, 0)\npress('enter')",
			[]string{"click (1923, 1) left x1", "click (1925, 1) left x1", "press enter"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, in := newDesktop(t, tt.mode, nil)
			res := e.Exec(t.Context(), tt.code)
			if res.Err != nil {
				t.Fatalf("error: %s", res.Err.Msg)
			}
			if got := in.Calls(); strings.Join(got, "\n") != strings.Join(tt.calls, "\n") {
				t.Errorf("calls = %q, want %q", got, tt.calls)
			}
			if len(res.Actions) != len(tt.calls) {
				t.Fatalf("actions = %+v, want %d", res.Actions, len(tt.calls))
			}
			for _, a := range res.Actions {
				if a.Error != "" || a.Result == "" || a.Args == "" {
					t.Errorf("action = %+v", a)
				}
			}
		})
	}
}

func TestDesktopActionLog(t *testing.T) {
	var guarded []string
	e, _ := newDesktop(t, "", func(d *DesktopDeps) {
		d.Guard = func(_ context.Context, g Guarded) error {
			action := g.Call
			if g.At != nil {
				action = fmt.Sprintf("%s@%d,%d", action, g.At.X, g.At.Y)
			}
			if g.Tool == nil || g.Tool.Kind == "" {
				t.Errorf("guard of %s got no catalogue entry", g.Call)
			}
			guarded = append(guarded, action)
			return nil
		}
	})
	res := e.Exec(t.Context(), "click(10, 20, button='right')\ndrag(0, 0, 100, 50)\npress('Control+T')")
	if res.Err != nil || len(res.Actions) != 3 {
		t.Fatalf("res = %+v", res)
	}
	c := res.Actions[0]
	if c.Name != "click" || c.Args != `10, 20, button="right"` || *c.Model != [2]float64{10, 20} ||
		*c.Screen != [2]int{1941, 41} || c.Result != "clicked" || c.Start.IsZero() {
		t.Errorf("click action = %+v", c)
	}
	d := res.Actions[1]
	if d.To == nil || *d.To != [2]int{2121, 101} || *d.Screen != [2]int{1921, 1} {
		t.Errorf("drag action = %+v", d)
	}
	// A drag is guarded at its start and at its drop point.
	want := []string{`click(10, 20, button="right")@1941,41`, `drag(0, 0, 100, 50)@1921,1`, `drag(0, 0, 100, 50)@2121,101`, `press("ctrl+t")`}
	if strings.Join(guarded, "|") != strings.Join(want, "|") {
		t.Errorf("guard saw %q, want %q", guarded, want)
	}
}

func TestDesktopErrors(t *testing.T) {
	tests := []struct {
		name, code string
		want       []string
	}{
		{"out of range", "click(960, 10)", []string{"click: point (960, 10) is outside the screenshot", "x must be within 0..959 and y within 0..539"}},
		{"negative", "move(10, -3)", []string{"move: point (10, -3) is outside the screenshot"}},
		{"drag end out of range", "drag(1, 1, 10, 600)", []string{"drag: point (10, 600) is outside"}},
		{"coordinate type", `click("10", 20)`, []string{`click: x must be a number, got string "10"`}},
		{"button", `click(1, 1, button="top")`, []string{`click: unknown mouse button "top": accepted buttons are left, middle, right`}},
		{"unknown key", `press("ctrl+entr")`, []string{`press: unknown key "entr"`, `did you mean "enter"?`, "accepted keys"}},
		{"bad combo", `press("a+b")`, []string{`press: key combo "a+b"`}},
		{"direction", `scroll(1, 1, "sideways")`, []string{`scroll: unknown scroll direction "sideways"`}},
		{"amount", `scroll(1, 1, amount=0)`, []string{"scroll: amount must be 1 to 50, got 0"}},
		{"hold too long", `hold("a", 11)`, []string{"hold: seconds must be more than 0 and at most 10, got 11"}},
		{"wait too long", `wait(61)`, []string{"wait: seconds must be 0 to 60, got 61; call wait again"}},
		{"unknown secret", `type_secret("gitlab")`, []string{`type_secret: no secret named "gitlab" is configured`}},
		{"missing arg", `click(1)`, []string{`click: missing argument y; call it as click(x, y, button="left", modifiers="")`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, in := newDesktop(t, "", nil)
			res := e.Exec(t.Context(), "x = 1\n"+tt.code)
			if res.Err == nil || res.Err.Kind != KindRuntime || res.Err.Line != 2 {
				t.Fatalf("err = %+v, want runtime at line 2", res.Err)
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
}

func TestTypeSecretRedaction(t *testing.T) {
	const secret = "hunter2-s3cret"
	var guarded []string
	guard := func(_ context.Context, g Guarded) error {
		guarded = append(guarded, g.Call)
		return nil
	}
	check := func(t *testing.T, res Result) {
		t.Helper()
		text := fmt.Sprintf("%+v %s %q", res.Actions, res.Output, guarded)
		if res.Err != nil {
			text += res.Err.Msg
		}
		if strings.Contains(text, secret) {
			t.Errorf("secret leaked: %s", text)
		}
	}
	t.Run("typed", func(t *testing.T) {
		guarded = nil
		e, in := newDesktop(t, "", func(d *DesktopDeps) { d.Guard = guard })
		res := e.Exec(t.Context(), `type_secret("github")`)
		if res.Err != nil {
			t.Fatal(res.Err.Msg)
		}
		if calls := in.Calls(); len(calls) != 1 || calls[0] != "type "+secret {
			t.Errorf("calls = %q: the secret was not typed", calls)
		}
		if a := res.Actions[0]; a.Args != `"github"` || a.Result != "typed [secret:github]" {
			t.Errorf("action = %+v", a)
		}
		if len(guarded) != 1 || guarded[0] != `type_secret("github")` {
			t.Errorf("guard saw %q", guarded)
		}
		check(t, res)
	})
	t.Run("input error echoes the text", func(t *testing.T) {
		guarded = nil
		e, in := newDesktop(t, "", func(d *DesktopDeps) { d.Guard = guard })
		in.err = errors.New("boom")
		res := e.Exec(t.Context(), `type_secret("github")`)
		if res.Err == nil || !strings.Contains(res.Err.Msg, "[redacted]") {
			t.Fatalf("err = %+v, want the redacted input error", res.Err)
		}
		check(t, res)
	})
}

func TestGuard(t *testing.T) {
	t.Run("refusal reaches the model", func(t *testing.T) {
		var at *vision.ScreenPoint
		e, in := newDesktop(t, "", func(d *DesktopDeps) {
			d.Guard = func(_ context.Context, g Guarded) error {
				at = g.At
				if g.Tool.Name == "click" {
					return errors.New("that point is inside deskpilot's own window; click elsewhere")
				}
				return nil
			}
		})
		res := e.Exec(t.Context(), "move(1, 1)\nclick(10, 20)")
		if res.Err == nil || !strings.Contains(res.Err.Msg, "click: that point is inside deskpilot's own window") {
			t.Fatalf("err = %+v", res.Err)
		}
		if calls := in.Calls(); len(calls) != 1 || !strings.HasPrefix(calls[0], "move") {
			t.Errorf("calls = %q, want only the move", calls)
		}
		if at == nil || *at != (vision.ScreenPoint{X: 1941, Y: 41}) {
			t.Errorf("guard got point %v", at)
		}
		if a := res.Actions[1]; a.Result != "refused" || a.Error == "" {
			t.Errorf("refused action = %+v", a)
		}
	})
	t.Run("time in the guard does not count", func(t *testing.T) {
		in := &fakeInput{}
		deps := DesktopDeps{
			Mapper: vision.NewMapper(testDisplay, 960, ""), Input: in,
			Guard: func(ctx context.Context, _ Guarded) error {
				select { // a paused run: longer than the block's time limit
				case <-time.After(600 * time.Millisecond):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			},
		}
		e := New(Options{Timeout: 200 * time.Millisecond}, Desktop(deps)...)
		res := e.Exec(t.Context(), "click(1, 1)\nprint('done')")
		if res.Err != nil || res.Output != "done\n" {
			t.Fatalf("res = %+v", res)
		}
	})
}

func TestScreenTools(t *testing.T) {
	e, in := newDesktop(t, "", nil)
	in.cursor = actions.Point{X: 1941, Y: 41}
	res := e.Exec(t.Context(), "print(screen_size())\nprint(cursor_position())\nwait(0.01)")
	if res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	if res.Output != "(960, 540)\n(10, 20)\n" {
		t.Errorf("output = %q", res.Output)
	}
	if len(res.Actions) != 1 || res.Actions[0].Name != "wait" || res.Actions[0].Result != "waited" {
		t.Errorf("actions = %+v", res.Actions)
	}
	in.cursor = actions.Point{X: 5, Y: 5} // on the other monitor
	if res := e.Exec(t.Context(), "print(cursor_position())"); res.Output != "None\n" {
		t.Errorf("cursor elsewhere: %q %v", res.Output, res.Err)
	}
	n, _ := newDesktop(t, vision.CoordNorm1000, nil)
	if res := n.Exec(t.Context(), "print(screen_size())"); res.Output != "(1000, 1000)\n" {
		t.Errorf("norm1000 size: %q %v", res.Output, res.Err)
	}
}

func TestScreenshotAndZoom(t *testing.T) {
	e, _ := newDesktop(t, "", nil)
	res := e.Exec(t.Context(), "screenshot()\nzoom(10, 20, 19, 29)\nzoom(0, 0, 959, 539)")
	if res.Err != nil {
		t.Fatal(res.Err.Msg)
	}
	if len(res.Attachments) != 3 || len(res.Actions) != 3 {
		t.Fatalf("attachments %d, actions %d", len(res.Attachments), len(res.Actions))
	}
	if got := res.Attachments[0].Image.Rect.Size(); got != image.Pt(960, 540) {
		t.Errorf("screenshot size = %v, want the model's 960x540", got)
	}
	// The corners (10, 20) and (19, 29) are the screen pixels under them,
	// (21, 41) and (39, 59) of the display: a 19x19 region, enlarged 4x.
	z := res.Attachments[1].Image
	if got := z.Rect.Size(); got != image.Pt(76, 76) {
		t.Fatalf("zoom size = %v, want 76x76", got)
	}
	for _, p := range []image.Point{{0, 0}, {3, 3}, {75, 75}, {41, 6}} {
		want := color.RGBA{uint8(21 + p.X/4), uint8(41 + p.Y/4), 7, 255}
		if got := z.RGBAAt(p.X, p.Y); got != want {
			t.Errorf("zoom pixel %v = %v, want %v", p, got, want)
		}
	}
	if l := res.Attachments[1].Label; !strings.Contains(l, "19x19") || !strings.Contains(l, "4x") {
		t.Errorf("zoom label = %q", l)
	}
	if a := res.Actions[1]; *a.Screen != [2]int{1941, 41} || *a.To != [2]int{1959, 59} {
		t.Errorf("zoom action = %+v", a)
	}
	if got := res.Attachments[2].Image.Rect.Size(); got != image.Pt(960, 540) {
		t.Errorf("whole-screen zoom size = %v, want it scaled to 960x540", got)
	}
}

func TestDesktopCancelWait(t *testing.T) {
	e, _ := newDesktop(t, "", nil)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	res := e.Exec(ctx, "wait(60)")
	if res.Err == nil || res.Err.Kind != KindCancelled {
		t.Fatalf("err = %+v, want cancelled", res.Err)
	}
	// Usually the cancel lands mid-wait, which logs an interrupted wait.
	for _, a := range res.Actions {
		if a.Name != "wait" || a.Result != "interrupted" || a.Error == "" {
			t.Errorf("action = %+v", a)
		}
	}
}

func TestNoInput(t *testing.T) {
	e := New(Options{}, Desktop(DesktopDeps{Mapper: vision.NewMapper(testDisplay, 960, "")})...)
	for code, want := range map[string]string{
		"click(1, 1)":  "click: no mouse and keyboard are available",
		"screenshot()": "screenshot: no screen capture is available",
	} {
		res := e.Exec(t.Context(), code)
		if res.Err == nil || !strings.Contains(res.Err.Msg, want) {
			t.Errorf("%s: err = %+v, want %q", code, res.Err, want)
		}
	}
}

func TestStubsGolden(t *testing.T) {
	e, _ := newDesktop(t, "", nil)
	got := e.Stubs()
	checkGolden(t, "stubs.golden", got)
	for _, w := range []string{
		`def click(x: int, y: int, button: str = "left", modifiers: str = "") -> None:`,
		"    Args:\n        x: horizontal position",
		"def final_answer(answer: Any) -> None:",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("stubs lack %q", w)
		}
	}
	if i, j := strings.Index(got, "# mouse"), strings.Index(got, "# control"); i < 0 || j < i {
		t.Errorf("groups out of order")
	}
}

// discardInput accepts every primitive and records nothing (benchmarks).
type discardInput struct{}

func (discardInput) Move(context.Context, actions.Point) error                       { return nil }
func (discardInput) Click(context.Context, actions.Point, actions.Button, int) error { return nil }
func (discardInput) Drag(context.Context, actions.Point, actions.Point) error        { return nil }
func (discardInput) Scroll(context.Context, actions.Point, actions.Direction, int) error {
	return nil
}
func (discardInput) Press(context.Context, actions.Combo) error               { return nil }
func (discardInput) Hold(context.Context, actions.Combo, time.Duration) error { return nil }
func (discardInput) Type(context.Context, string) error                       { return nil }
func (discardInput) Cursor() (actions.Point, error)                           { return actions.Point{}, nil }
func (discardInput) ReleaseAll() error                                        { return nil }

// checkGolden compares got with testdata/name; -update rewrites the file.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update after checking):\n%s", path, got)
	}
}

// The modifiers of a pointer builtin are held down around its primitive and
// released after it; mouse_down and mouse_up hold and release the left
// button at their points; a modifier that is not one is refused before
// anything is sent.
func TestHeldModifiersAndButton(t *testing.T) {
	in := &fakeInput{}
	d := DesktopDeps{Mapper: vision.NewMapper(testDisplay, 0, ""), Input: in}
	res := New(Options{}, Desktop(d)...).Exec(t.Context(), `click(10, 20, modifiers="shift")
scroll(5, 5, direction="up", amount=1, modifiers="ctrl+shift")
drag(1, 2, 3, 4, modifiers="alt")
mouse_down(7, 8)
move(9, 9)
mouse_up(11, 12)`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	// Screen points of the test mapper (its display starts at x = 1920).
	want := []string{"keydown shift", "click (1934, 28) left x1", "keyup shift",
		"keydown ctrl+shift", "scroll (1927, 7) up 1", "keyup ctrl+shift",
		"keydown alt", "drag (1922, 3) (1924, 6)", "keyup alt",
		"buttondown (1930, 11) left", "move (1933, 13)", "buttonup (1936, 17) left"}
	if got := in.Calls(); !slices.Equal(got, want) {
		t.Errorf("calls\n%q\nwant\n%q", got, want)
	}
	in = &fakeInput{}
	d.Input = in
	res = New(Options{}, Desktop(d)...).Exec(t.Context(), `click(10, 20, modifiers="a")`)
	if res.Err == nil || !strings.Contains(res.Err.Error(), "not a modifier") || len(in.Calls()) != 0 {
		t.Errorf("modifiers=\"a\": err %v, calls %q", res.Err, in.Calls())
	}
	// An input that cannot hold refuses both, sending nothing.
	plain := discardInput{}
	d.Input = plain
	for _, code := range []string{`click(1, 1, modifiers="shift")`, `mouse_down(1, 1)`} {
		res = New(Options{}, Desktop(d)...).Exec(t.Context(), code)
		if res.Err == nil || !strings.Contains(res.Err.Error(), "cannot keep keys or mouse buttons down") {
			t.Errorf("%s on an input that cannot hold: %v", code, res.Err)
		}
	}
}
