package script

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"deskpilot/a11y"
	"deskpilot/vision"
)

// These tests check what the grounding builtins make of what an engine
// read: positions in every coordinate space, clicks, the log, and errors. The
// engines themselves are read on real screens in internal/wiring's tests.

// fakeText reads the same words on every frame (frame pixels) and records
// the frames it was given.
type fakeText struct {
	words  []TextWord
	mu     sync.Mutex
	frames []*image.RGBA
}

func (f *fakeText) ReadText(_ context.Context, frame *image.RGBA) (ScreenText, error) {
	f.mu.Lock()
	f.frames = append(f.frames, frame)
	f.mu.Unlock()
	return fakeScreen(f.words), nil
}

// fakeScreen matches a text as a case-insensitive whole word.
type fakeScreen []TextWord

func (s fakeScreen) Find(text string, exact bool) []TextMatch {
	var out []TextMatch
	for _, w := range s {
		if w.Text == text || !exact && strings.EqualFold(w.Text, text) {
			out = append(out, TextMatch{Text: w.Text, Box: w.Box, Score: 1, Line: w.Text})
		}
	}
	return out
}

func (s fakeScreen) Closest(_ string, n int) []TextMatch {
	var out []TextMatch
	for _, w := range s[:min(n, len(s))] {
		out = append(out, TextMatch{Text: w.Text, Box: w.Box, Score: 0.5})
	}
	return out
}

func (s fakeScreen) Words() []TextWord { return s }

func (s fakeScreen) Layer(int, func(image.Point) string) string { return "" }

// fakeTree holds elements (root coordinates) and answers queries as
// a11y.Match does; err, when set, is every query's answer.
type fakeTree struct {
	els  []a11y.Element
	note a11y.Note
	err  error
}

func (f *fakeTree) Elements(_ context.Context, q a11y.Query) ([]a11y.Element, a11y.Note, error) {
	if f.err != nil {
		return nil, a11y.Note{}, f.err
	}
	els, err := a11y.Match(f.els, q)
	return els, f.note, err
}

// groundWords are read on testDisplay's frames (frame pixels; the display
// starts at x=1920).
var groundWords = []TextWord{
	{Text: "Charlie", Box: image.Rect(100, 200, 160, 216), Conf: 0.9},
	{Text: "Save", Box: image.Rect(1800, 1000, 1840, 1020), Conf: 0.9},
	{Text: "Save", Box: image.Rect(10, 10, 50, 30), Conf: 0.9},
}

func newGround(t *testing.T, mode vision.CoordMode, g GroundDeps) (*Executor, *fakeInput) {
	t.Helper()
	in := &fakeInput{}
	d := DesktopDeps{Mapper: vision.NewMapper(testDisplay, 960, mode), Input: in, Frames: fakeFrames{testDisplay.Size()}}
	return New(Options{}, append(Desktop(d), Ground(d, g)...)...), in
}

// In every coordinate space, find_text's x and y are where click clicks the
// match's centre, and click_text clicks there too.
func TestFindTextCoordinates(t *testing.T) {
	for _, mode := range []vision.CoordMode{vision.CoordPixels, vision.CoordNorm1000, vision.CoordPixelsFloor,
		vision.CoordNorm1000Round, vision.CoordNorm999, vision.CoordUnit} {
		t.Run(string(mode), func(t *testing.T) {
			e, in := newGround(t, mode, GroundDeps{Text: &fakeText{words: groundWords}})
			res := e.Exec(t.Context(), `m = find_text("charlie")[0]
print(m.text, m.score, type(m.x))
click(m.x, m.y)
click_text("Charlie")`)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			calls := in.Calls()
			if len(calls) != 2 || calls[0] != calls[1] {
				t.Fatalf("click(m.x, m.y) and click_text clicked %q", calls)
			}
			var x, y int
			if _, err := fmt.Sscanf(calls[0], "click (%d, %d)", &x, &y); err != nil {
				t.Fatal(err)
			}
			// The word is at (100..160, 200..216) of the frame; one model
			// unit is at most 2 screen pixels.
			if x < 1920+128 || x > 1920+132 || y < 206 || y > 210 {
				t.Errorf("clicked (%d, %d), want the centre of the word, (2050, 208)", x, y)
			}
			wantType := "int"
			if mode == vision.CoordUnit {
				wantType = "float"
			}
			if want := "Charlie 1.0 " + wantType; strings.TrimSpace(res.Output) != want {
				t.Errorf("printed %q, want %q", res.Output, want)
			}
		})
	}
}

func TestFindTextResults(t *testing.T) {
	reader := &fakeText{words: groundWords}
	own := image.Rect(1920, 0, 2020, 100) // deskpilot's window over the second "Save"
	e, in := newGround(t, vision.CoordPixels, GroundDeps{Text: reader, Exclude: func() []image.Rectangle { return []image.Rectangle{own} }})
	res := e.Exec(t.Context(), `ms = find_text("Save")
print(len(ms), ms[0].x, ms[0].y, ms[0].w, ms[0].h)
print(find_text("nowhere"))
click_text("save", index=2)`)
	if res.Err == nil || !strings.Contains(res.Err.Msg, `click_text: index 2 is past the last match: "save" is on the screen 2 time(s), index 0 to 1: "Save" at (910, 505), "Save" at (15, 10)`) {
		t.Fatalf("error %v", res.Err)
	}
	// Both "Save"s are found (the fake reads them whatever the frame), in
	// model pixels of the 960x540 screenshot.
	if want := "2 910 505 20 10\n[]\n"; res.Output != want {
		t.Errorf("printed %q, want %q", res.Output, want)
	}
	if len(in.Calls()) != 0 {
		t.Errorf("clicked %q", in.Calls())
	}
	if len(res.Actions) != 2 || res.Actions[0].Name != "find_text" || !strings.HasPrefix(res.Actions[0].Result, `2 found: "Save" at (910, 505)`) {
		t.Fatalf("actions %+v", res.Actions)
	}
	if got := res.Actions[1].Result; !strings.HasPrefix(got, `no match; closest text read: "Charlie" at (65, 104)`) {
		t.Errorf("not found logs %q, want the closest texts", got)
	}
	// deskpilot's own window was painted white before the text was read.
	f := reader.frames[0]
	if c := f.RGBAAt(50, 50); c != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("own window pixel read as %v", c)
	}
	if c := f.RGBAAt(150, 50); c == (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("pixel outside the own window painted")
	}
}

func TestGroundErrors(t *testing.T) {
	tree := &fakeTree{els: []a11y.Element{
		{Name: "OK", Role: "push button", Interactive: true, Bounds: image.Rect(2000, 500, 2080, 530), States: []string{"enabled"}},
		{Name: "Name", Role: "label", Bounds: image.Rect(2000, 400, 2050, 420)},
	}}
	tests := []struct {
		name string
		deps GroundDeps
		code string
		want []string
	}{
		{"no OCR", GroundDeps{}, `find_text("x")`, []string{"find_text: reading text on the screen (OCR) is not available"}},
		{"no tree", GroundDeps{}, `find_elements()`, []string{"find_elements: accessibility tree unavailable", "use find_text"}},
		{"tree unavailable", GroundDeps{Elements: &fakeTree{err: &a11y.UnavailableError{Reason: "no bus"}}},
			`click_element("OK")`, []string{"click_element: accessibility tree unavailable: no bus; use find_text"}},
		{"empty text", GroundDeps{Text: &fakeText{}}, `find_text("  ")`, []string{"find_text: text is empty"}},
		{"long text", GroundDeps{Text: &fakeText{}}, `find_text("x" * 300)`, []string{"find_text: text is 300 characters long; the limit is 256 characters"}},
		{"text type", GroundDeps{Text: &fakeText{}}, `find_text(3)`, []string{"find_text: text must be a string, got int"}},
		{"negative index", GroundDeps{Text: &fakeText{}}, `click_text("a", -1)`, []string{"index must be 0 or more"}},
		{"click text not found", GroundDeps{Text: &fakeText{words: groundWords}}, `click_text("Delta")`,
			[]string{`click_text: no text matching "Delta" on the screen; closest text read: "Charlie" at (65, 104)`}},
		{"nothing read", GroundDeps{Text: &fakeText{}}, `click_text("Delta")`, []string{"no text at all was read"}},
		{"bad role", GroundDeps{Elements: tree}, `find_elements(role="buton")`, []string{`role "buton" is not a role`, `did you mean "button"?`}},
		{"bad states", GroundDeps{Elements: tree}, `find_elements(states=3)`, []string{`states must be a list of state names such as ["checked"], got int`}},
		{"bad state item", GroundDeps{Elements: tree}, `find_elements(states=["checked", 1])`, []string{"got list"}},
		{"element not found", GroundDeps{Elements: tree}, `click_element("Cancel")`,
			[]string{`no element named "Cancel" on the screen; elements there are: push button "OK"`}},
		{"marks off", GroundDeps{}, `click_mark(1)`, []string{"set-of-marks is off (start the run with --marks)"}},
		{"no such mark", GroundDeps{Marks: func() ([]Mark, bool) { return []Mark{{N: 1, Box: image.Rect(2000, 0, 2010, 10)}}, true }},
			`click_mark(7)`, []string{"there is no mark 7 on the newest screenshot; its marks are numbered 1 to 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, in := newGround(t, "", tt.deps)
			res := e.Exec(t.Context(), tt.code)
			if res.Err == nil {
				t.Fatalf("no error; output %q", res.Output)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Err.Msg, w) {
					t.Errorf("error %q lacks %q", res.Err.Msg, w)
				}
			}
			if len(in.Calls()) != 0 {
				t.Errorf("input sent: %q", in.Calls())
			}
		})
	}
}

func TestFindElements(t *testing.T) {
	tree := &fakeTree{
		els: []a11y.Element{
			{Name: "Apple", Role: "check box", Interactive: true, Bounds: image.Rect(2000, 100, 2020, 120), States: []string{"checked", "enabled"}},
			{Name: "Banana", Role: "check box", Interactive: true, Bounds: image.Rect(2000, 140, 2020, 160), States: []string{"enabled"}},
			{Name: "City", Role: "text", Text: "Zürich", Interactive: true, Bounds: image.Rect(2100, 300, 2300, 330), States: []string{"editable", "enabled", "focused"}},
			{Name: "Mine", Role: "push button", Interactive: true, Bounds: image.Rect(1930, 10, 1960, 30)},
		},
		note: a11y.Note{Apps: 1, Skipped: []a11y.Skip{{App: "hung", PID: 42, Reason: "did not answer within 1s"}}},
	}
	own := image.Rect(1920, 0, 2000, 50)
	e, in := newGround(t, vision.CoordNorm1000, GroundDeps{Elements: tree, Exclude: func() []image.Rectangle { return []image.Rectangle{own} }})
	res := e.Exec(t.Context(), `for el in find_elements(role="checkbox", states=["!checked"]):
    print(el.name, el.role, el.x, el.y, el.w, el.h, el.states, el.text)
print([el.name for el in find_elements()])
f = find_elements("city")[0]
print(f.text)
click_element("city", role="textbox")`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := `Banana check box 47 139 10 19 ["enabled"] 
["Apple", "Banana", "City"]
Zürich
`
	if res.Output != want {
		t.Errorf("printed\n%s\nwant\n%s", res.Output, want)
	}
	if calls := in.Calls(); len(calls) != 1 || calls[0] != "click (2200, 315) left x1" {
		t.Errorf("click_element clicked %q, want the field's centre", calls)
	}
	if got := res.Actions[0].Result; !strings.Contains(got, "1 found: check box \"Banana\" at (47, 139)") || !strings.Contains(got, "skipped hung (pid 42)") {
		t.Errorf("find_elements logs %q", got)
	}
	if got := res.Actions[len(res.Actions)-1]; got.Name != "click_element" || got.Result != `clicked text "City"` {
		t.Errorf("click_element logs %+v", got)
	}
}

func TestClickMark(t *testing.T) {
	marks := []Mark{{N: 1, Role: "push button", Name: "OK", Box: image.Rect(2000, 500, 2080, 530)},
		{N: 2, Role: "word", Name: "Charlie", Box: image.Rect(1920, 0, 1930, 10)}}
	e, in := newGround(t, vision.CoordPixels, GroundDeps{Marks: func() ([]Mark, bool) { return marks, true }})
	res := e.Exec(t.Context(), "click_mark(1)\nclick_mark(2)")
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []string{"click (2041, 515) left x1", "click (1925, 5) left x1"}
	if got := in.Calls(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("clicked %q, want %q", got, want)
	}
	if r := res.Actions[0].Result; r != `clicked mark 1 (push button "OK")` {
		t.Errorf("logged %q", r)
	}
}

// PointText and SizeText write positions as find_* return them.
func TestPointText(t *testing.T) {
	for _, tc := range []struct {
		mode       vision.CoordMode
		point, box string
	}{
		{vision.CoordPixels, "480, 270", "50, 25"},
		{vision.CoordNorm1000, "500, 500", "52, 46"},
		{vision.CoordUnit, "0.5, 0.5", "0.0521, 0.0463"},
	} {
		m := vision.NewMapper(testDisplay, 960, tc.mode)
		p, err := PointText(m, vision.ScreenPoint{X: 1920 + 960, Y: 540})
		if err != nil || p != tc.point {
			t.Errorf("%s: PointText = %q, %v; want %q", tc.mode, p, err, tc.point)
		}
		if s := SizeText(m, image.Rect(0, 0, 100, 50)); s != tc.box {
			t.Errorf("%s: SizeText = %q, want %q", tc.mode, s, tc.box)
		}
	}
	if _, err := PointText(vision.NewMapper(testDisplay, 960, ""), vision.ScreenPoint{X: 5, Y: 5}); err == nil {
		t.Error("a point off the display has a position")
	}
}

// focusTree reports its field focused from the third query for focused
// elements on, as a toolkit that handles the click late does.
type focusTree struct {
	field a11y.Element
	mu    sync.Mutex
	polls int
}

func (f *focusTree) Elements(_ context.Context, q a11y.Query) ([]a11y.Element, a11y.Note, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	el := f.field
	if len(q.States) > 0 {
		if f.polls++; f.polls < 3 {
			return nil, a11y.Note{Apps: 1}, nil
		}
		el.States = append(el.States, "focused")
	}
	return []a11y.Element{el}, a11y.Note{Apps: 1}, nil
}

// click_element on a text field returns once the field has the focus, so the
// keys typed next reach it.
func TestClickElementWaitsForFocus(t *testing.T) {
	tree := &focusTree{field: a11y.Element{Name: "Your name", Role: "text", Interactive: true, Bus: ":1.5", Path: "/f",
		Bounds: image.Rect(2000, 100, 2200, 130), States: []string{"editable", "enabled", "focusable"}}}
	e, in := newGround(t, "", GroundDeps{Elements: tree})
	res := e.Exec(t.Context(), `click_element("your name")
type_text("Ada")`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	tree.mu.Lock()
	polls := tree.polls
	tree.mu.Unlock()
	if polls != 3 {
		t.Errorf("the field's focus was read %d times, want until it was focused (3)", polls)
	}
	if calls := in.Calls(); len(calls) != 2 || calls[1] != "type Ada" {
		t.Errorf("calls %q", calls)
	}
}

// hungEngine never answers until its ctx ends, as a hung application or a
// long OCR read.
type hungEngine struct{}

func (hungEngine) ReadText(ctx context.Context, _ *image.RGBA) (ScreenText, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (hungEngine) Elements(ctx context.Context, _ a11y.Query) ([]a11y.Element, a11y.Note, error) {
	<-ctx.Done()
	return nil, a11y.Note{}, ctx.Err()
}

// Stopping the block ends a grounding builtin that waits on its engine.
func TestGroundStops(t *testing.T) {
	for _, code := range []string{`find_text("OK")`, `click_text("OK")`, `find_elements()`, `click_element("OK")`} {
		t.Run(code, func(t *testing.T) {
			e, in := newGround(t, "", GroundDeps{Text: hungEngine{}, Elements: hungEngine{}})
			ctx, cancel := context.WithCancel(t.Context())
			defer time.AfterFunc(100*time.Millisecond, cancel).Stop()
			res := e.Exec(ctx, code)
			if res.Err == nil || res.Err.Kind != KindCancelled {
				t.Errorf("result %+v, want cancelled", res.Err)
			}
			if len(in.Calls()) != 0 {
				t.Errorf("input sent: %q", in.Calls())
			}
		})
	}
}

// A control comes before plain text that reads the same, and each match says
// which it is: here the tree has a button under the second "Save" read.
func TestFindTextRanksControls(t *testing.T) {
	tree := &fakeTree{els: []a11y.Element{
		{Name: "Save", Role: "push button", Bounds: image.Rect(1925, 5, 1975, 35), Interactive: true},
		{Name: "Charlie", Role: "label", Bounds: image.Rect(2010, 190, 2090, 226)},
	}}
	e, in := newGround(t, vision.CoordPixels, GroundDeps{Text: &fakeText{words: groundWords}, Elements: tree})
	res := e.Exec(t.Context(), `print([(m.x, m.y, m.kind) for m in find_text("Save")])
print([m.kind for m in find_text("Charlie")])
click_text("save")`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := "[(15, 10, \"button\"), (910, 505, \"text\")]\n[\"text\"]\n"; res.Output != want {
		t.Errorf("printed %q, want %q", res.Output, want)
	}
	if got := res.Actions[0].Result; !strings.HasPrefix(got, `2 found: "Save" (button) at (15, 10), "Save" at (910, 505)`) {
		t.Errorf("find_text logs %q", got)
	}
	if calls := in.Calls(); len(calls) != 1 || calls[0] != "click (1951, 21) left x1" {
		t.Errorf("click_text clicked %q, want the button's Save at (1951, 21)", calls)
	}
}

// Text closed all around by a frame within a button's padding is on a
// button; text whose background runs on, or that sits among other words, is
// not.
func TestButtonShaped(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 400, 200))
	draw.Draw(img, img.Rect, image.NewUniform(color.White), image.Point{}, draw.Src)
	black := image.NewUniform(color.Black)
	ink := func(r image.Rectangle) { draw.Draw(img, r, black, image.Point{}, draw.Src) }
	// A button: a 1-pixel frame 6 pixels around "text" with a stem inside.
	button := image.Rect(50, 50, 110, 66)
	frame := button.Inset(-6)
	for _, r := range []image.Rectangle{
		{frame.Min, image.Pt(frame.Max.X, frame.Min.Y+1)}, {image.Pt(frame.Min.X, frame.Max.Y-1), frame.Max},
		{frame.Min, image.Pt(frame.Min.X+1, frame.Max.Y)}, {image.Pt(frame.Max.X-1, frame.Min.Y), frame.Max},
	} {
		ink(r)
	}
	ink(image.Rect(60, 50, 62, 66))
	// Plain text, and a word with another word 8 pixels to its left.
	plain := image.Rect(200, 50, 260, 66)
	ink(image.Rect(210, 50, 212, 66))
	word := image.Rect(200, 120, 260, 136)
	ink(image.Rect(170, 120, 192, 136))
	for _, c := range []struct {
		box  image.Rectangle
		want bool
	}{{button, true}, {plain, false}, {word, false}, {image.Rect(0, 0, 30, 10), false}} {
		if got := buttonShaped(img, c.box); got != c.want {
			t.Errorf("buttonShaped(%v) = %v, want %v", c.box, got, c.want)
		}
	}
}

// drawingFrames is a window being drawn: the first frames are plain, the
// rest show a mark at (100, 200) that textOnMark reads as "Charlie".
type drawingFrames struct {
	size  image.Point
	plain int
	mu    sync.Mutex
	n     int
}

func (f *drawingFrames) Capture(context.Context) (*image.RGBA, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	img := image.NewRGBA(image.Rectangle{Max: f.size})
	if f.n > f.plain {
		img.SetRGBA(100, 200, color.RGBA{0, 0, 0, 255})
	}
	return img, nil
}

type textOnMark struct{ reads atomic.Int32 }

func (r *textOnMark) ReadText(_ context.Context, frame *image.RGBA) (ScreenText, error) {
	r.reads.Add(1)
	if frame.RGBAAt(100, 200).A == 0 {
		return fakeScreen(nil), nil
	}
	return fakeScreen(groundWords[:1]), nil
}

// A search that finds nothing on a screen still being drawn reads it again
// once it stands still; on a screen that has not changed, the first reading
// stands.
func TestFindTextReadsAgain(t *testing.T) {
	for _, c := range []struct {
		plain     int
		want      string
		wantReads int32
	}{{1, "1", 2}, {1000, "0", 1}} {
		frames := &drawingFrames{size: testDisplay.Size(), plain: c.plain}
		d := DesktopDeps{Mapper: vision.NewMapper(testDisplay, 960, vision.CoordPixels), Input: &fakeInput{}, Frames: frames}
		reader := &textOnMark{}
		e := New(Options{}, append(Desktop(d), Ground(d, GroundDeps{Text: reader})...)...)
		res := e.Exec(t.Context(), `print(len(find_text("Charlie")))`)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if strings.TrimSpace(res.Output) != c.want || reader.reads.Load() != c.wantReads {
			t.Errorf("plain for %d frames: printed %q after %d readings, want %s after %d", c.plain, res.Output, reader.reads.Load(), c.want, c.wantReads)
		}
	}
}
