package script

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"deskpilot/a11y"
	"deskpilot/actions"
	"deskpilot/agent/trace"
	"deskpilot/vision"
)

// Every builtin of the catalogue that acts at a screen point, in every form
// it takes (coordinates, a description for the grounder, a point locate
// found, text, an element, a mark), is run, then a secret is typed; the
// run's actions go into a trace exported as a dataset with --redact. The
// region flattened in the next image holds the point the action recorded,
// which is the point the input was driven at. After a gesture that presses a
// button the region is the field around that point, not the whole screen.
// Nothing here names a builtin: a new one with a point is walked as it is
// declared.
func TestRedactCoversEveryPointBuiltin(t *testing.T) {
	display := image.Rect(100, 50, 1380, 770) // 1280x720, right of another monitor
	at := vision.ScreenPoint{X: 700, Y: 400}  // where every form finds its target
	field := image.Rect(at.X-40, at.Y-10, at.X+40, at.Y+10)
	frameField := field.Sub(display.Min)
	g := GroundDeps{
		Text:     &fakeText{words: []TextWord{{Text: "Password", Box: frameField, Conf: 0.9}}},
		Elements: &fakeTree{els: []a11y.Element{{Name: "Password", Role: "push button", Interactive: true, Bounds: field}}},
		Marks:    func() ([]Mark, bool) { return []Mark{{N: 1, Role: "push button", Name: "Password", Box: field}}, true },
	}
	ground := func(context.Context, string) (Grounding, error) {
		return Grounding{At: at, Point: vision.ModelPoint{X: 600, Y: 350}, Space: "1280x720 image (pixels)", Grounder: "g"}, nil
	}
	walked := 0
	for _, b := range Builtins() {
		if b.Target == "" || !b.Kind.Acts() {
			continue
		}
		for _, code := range pointCalls(t, b, vision.NewMapper(display, 1280, vision.CoordPixels), at) {
			walked++
			t.Run(code, func(t *testing.T) {
				in := &fakeInput{}
				d := DesktopDeps{Mapper: vision.NewMapper(display, 1280, vision.CoordPixels), Input: in,
					Frames: fakeFrames{display.Size()}, Ground: ground,
					Secrets: func(string) (string, bool) { return "hunter2-Xylophone", true }}
				e := New(Options{}, append(Desktop(d), Ground(d, g)...)...)
				code := code + "\n" + secretCall(t)
				res := e.Exec(t.Context(), code)
				if res.Err != nil {
					t.Fatalf("%s: %v", code, res.Err)
				}
				i := slices.IndexFunc(res.Actions, func(a actions.Record) bool { return a.Name == b.Name })
				if i < 0 || res.Actions[i].Screen == nil {
					t.Fatalf("%s recorded no point: %+v", b.Name, res.Actions)
				}
				act := res.Actions[i]
				p := image.Pt(act.Screen[0], act.Screen[1])
				if act.Gesture != b.Gesture || act.Target == "" {
					t.Errorf("recorded traits %+v, want the catalogue's gesture %q and a target", act.Traits, b.Gesture)
				}
				if calls := in.Calls(); len(calls) == 0 || !strings.Contains(calls[0], fmt.Sprintf("(%d, %d)", p.X, p.Y)) {
					t.Errorf("recorded %v, but the input was driven %q", p, calls)
				}
				rows := exportRedacted(t, display, code, res.Actions)
				if len(rows) != 2 || len(rows[0].Redacted) != 0 || len(rows[1].Redacted) != 1 {
					t.Fatalf("rows %+v", rows)
				}
				r := rows[1].Redacted[0].Rectangle()
				if img := p.Sub(display.Min); !img.In(r) {
					t.Errorf("flattened %v of the image, which misses the recorded point %v (image %v)", r, p, img)
				}
				if full := (image.Rectangle{Max: display.Size()}); b.Gesture.Presses() && r == full {
					t.Errorf("after %s the whole image was flattened, not the field at %v", b.Name, p)
				}
			})
		}
	}
	if walked < 10 {
		t.Fatalf("walked %d calls; the catalogue's pointer builtins are missing", walked)
	}
}

// pointCalls returns the calls of builtin b that aim at screen point at, one
// per way b finds its point: built from its parameters by its Target.
func pointCalls(t *testing.T, b Tool, m vision.Mapper, at vision.ScreenPoint) []string {
	t.Helper()
	mp, err := m.ToModel(at)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, p := range b.Params {
		var v string
		switch {
		case p.Default != "":
			continue
		case b.Target == actions.TargetXY && (p.Name == "x" || p.Name == "x1"):
			v = strconv.Itoa(int(mp.X))
		case b.Target == actions.TargetXY && (p.Name == "y" || p.Name == "y1"):
			v = strconv.Itoa(int(mp.Y))
		case b.Target == actions.TargetXY && p.Name == "x2":
			v = strconv.Itoa(int(mp.X) + 50)
		case b.Target == actions.TargetXY && p.Name == "y2":
			v = strconv.Itoa(int(mp.Y) + 30)
		case (b.Target == actions.TargetText || b.Target == actions.TargetElement) && p.Type == "str":
			v = `"Password"`
		case b.Target == actions.TargetMark && p.Type == "int":
			v = "1"
		default:
			t.Fatalf("%s: no value for its parameter %s (target %q): teach pointCalls this target", b.Name, p.Name, b.Target)
		}
		args = append(args, v)
	}
	calls := []string{b.Name + "(" + strings.Join(args, ", ") + ")"}
	if b.Grounded {
		desc := `"the password field"`
		if b.Gesture == actions.GestureDrag {
			calls = append(calls, b.Name+"("+desc+`, "the trash")`)
		} else {
			calls = append(calls, b.Name+"("+desc+")", b.Name+"(*"+locateBuiltin(t)+"("+desc+"))")
		}
	}
	return calls
}

// locateBuiltin is the catalogue's builtin that finds a point with the grounder
// without acting at it.
func locateBuiltin(t *testing.T) string {
	for _, b := range Builtins() {
		if b.Target == actions.TargetGrounder && !b.Kind.Acts() {
			return b.Name
		}
	}
	t.Fatal("the catalogue has no builtin that locates a described element")
	return ""
}

// secretCall is a call of the catalogue's builtin that types a stored secret.
func secretCall(t *testing.T) string {
	for _, b := range Builtins() {
		if b.Types == actions.TypesSecret {
			return b.Name + `("password")`
		}
	}
	t.Fatal("the catalogue has no builtin that types a secret")
	return ""
}

// exportRedacted records a two-step run whose first step ran code (with
// acts) and exports it as a dataset with --redact; it returns the rows.
func exportRedacted(t *testing.T, display image.Rectangle, code string, acts []actions.Record) []trace.DatasetRow {
	t.Helper()
	start := trace.Event{Task: "log in", Model: "m", CoordMode: "pixels", Screen: trace.RectOf(display), Image: trace.SizeOf(display.Size())}
	w, err := trace.Create(t.TempDir(), start)
	if err != nil {
		t.Fatal(err)
	}
	frame := func(step int) string {
		img, _ := fakeFrames{display.Size()}.Capture(t.Context())
		p, err := w.Frame(step, img)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	events := []trace.Event{
		{Type: trace.TypeObservation, Step: 0, Frame: frame(0)},
		{Type: trace.TypeCode, Step: 1, Code: code},
	}
	for i := range acts {
		events = append(events, trace.Event{Type: trace.TypeAction, Step: 1, Action: &acts[i]})
	}
	events = append(events,
		trace.Event{Type: trace.TypeObservation, Step: 1, Frame: frame(1)},
		trace.Event{Type: trace.TypeCode, Step: 2, Code: "print(1)"},
		trace.Event{Type: trace.TypeObservation, Step: 2, Frame: frame(2)})
	for _, e := range events {
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
	out := t.TempDir()
	if _, err := trace.ExportDataset(out, []*trace.Trace{tr}, trace.DatasetOptions{Redact: true}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, trace.DatasetMetadata))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []trace.DatasetRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r trace.DatasetRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}
