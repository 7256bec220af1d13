//go:build linux

package dialect

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/actions/robot"
	"deskpilot/agent/script"
	"deskpilot/internal/testapps"
	"deskpilot/vision"
	"deskpilot/vision/xdisplay"
)

// TestDialectsClickRealWidgets runs each compiled dialect's reply on a
// private Xvfb display at the two screen sizes the issue names, through the
// real executor, desktop builtins and XTest robot: the reply clicks the form
// app's Save button at coordinates computed from the widget's real position
// in the family's own space, then gives the family's finish. The form's
// saved file shows the click landed on the button.
//
// The reply does not type: keys sent at once after a click that moves the
// keyboard focus can reach Tk before its focus change (the robot's own tests
// wait for the click to arrive first), which would test Tk, not the dialect.
func TestDialectsClickRealWidgets(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	for _, size := range []image.Point{fullHD, wxga} {
		t.Run(size.String(), func(t *testing.T) {
			d, r := robotOnDisplay(t, size)
			form := testapps.StartForm(t, d)
			focusForm(t, d, r, form)
			for _, name := range []string{"uitars-1.5", "uitars-1.0", "doubao", "qwen2.5", "qwen3"} {
				t.Run(name, func(t *testing.T) {
					if err := os.Remove(form.Out); err != nil && !errors.Is(err, fs.ErrNotExist) {
						t.Fatal(err)
					}
					field, err := form.Widget("save")
					if err != nil {
						t.Fatal(err)
					}
					dl, _ := ByName(name)
					sp := dl.Space(size, 0)
					x, y := familyPoint(name, field, size, sp.Image)
					reply := familyReply(name, x, y)
					res, err := dl.Parse(reply)
					if err != nil {
						t.Fatalf("Parse(%q): %v", reply, err)
					}
					m := vision.Mapper{Display: image.Rectangle{Max: size}, Image: sp.Image, Mode: sp.Mode}
					ex := script.New(script.Options{}, script.Desktop(script.DesktopDeps{Mapper: m, Input: r})...)
					out := ex.Exec(t.Context(), res.Code)
					if out.Err != nil {
						t.Fatalf("program failed: %v\n%s", out.Err, res.Code)
					}
					if out.Final == nil || out.Final.Value != "saved" {
						t.Errorf("final answer = %+v, want the family's finish with %q", out.Final, "saved")
					}
					if err := saved(t, form); err != nil {
						t.Errorf("the click missed the Save button %v (model point %s,%s in %s): %v", field, x, y, sp.Mode, err)
					}
				})
			}
		})
	}
}

// focusForm clicks the form's status label and waits until the window
// manager has given the form the keyboard focus, so the reply's own click
// decides which field gets the text (a click the window manager has not
// turned into focus yet would swallow the typing that follows at once).
func focusForm(t *testing.T, d *xdisplay.Display, r *robot.Robot, form *testapps.Form) {
	t.Helper()
	status, err := form.Widget("status")
	if err != nil {
		t.Fatal(err)
	}
	c := status.Min.Add(status.Size().Div(2))
	if err := r.Click(t.Context(), actions.Point{X: c.X, Y: c.Y}, actions.Left, 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // bounds a hang; not a timing assertion
	defer cancel()
	for {
		out, _ := d.Command(ctx, "xdotool", "getwindowfocus", "getwindowname").Output()
		if strings.Contains(string(out), testapps.FormTitle) {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the form never got the keyboard focus (focused: %q)", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// saved waits until the form app has saved (the robot returns once the X
// server has the click; the app handles it after).
func saved(t *testing.T, form *testapps.Form) error {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // bounds a hang; not a timing assertion
	defer cancel()
	for {
		_, _, err := form.Saved()
		if err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// familyPoint writes the centre of widget r as the family's documentation
// says to read it: pixels of the smart-resized image (UI-TARS-1.5,
// Qwen2.5-VL), a 0..1000 grid (UI-TARS 1.0, doubao) or a 0..999 grid
// (Qwen3-VL), rounded to integers as the models write them.
func familyPoint(name string, r image.Rectangle, screen, img image.Point) (x, y string) {
	cx, cy := float64(r.Min.X+r.Max.X)/2, float64(r.Min.Y+r.Max.Y)/2
	sx, sy := 1000/float64(screen.X), 1000/float64(screen.Y)
	switch name {
	case "uitars-1.5", "qwen2.5":
		sx, sy = float64(img.X)/float64(screen.X), float64(img.Y)/float64(screen.Y)
	case "qwen3":
		sx, sy = 999/float64(screen.X), 999/float64(screen.Y)
	}
	return fmt.Sprint(math.Round(cx * sx)), fmt.Sprint(math.Round(cy * sy))
}

// familyReply is a reply in the family's grammar: click (x, y), then
// finish with "saved".
func familyReply(name, x, y string) string {
	switch name {
	case "uitars-1.5", "uitars-1.0":
		return fmt.Sprintf("Thought: save the form.\nAction: click(start_box='(%s,%s)')\n\nfinished(content='saved')", x, y)
	case "doubao":
		return fmt.Sprintf("Thought: save the form.\nAction: click(point='<point>%s %s</point>')\n\nfinished(content='saved')", x, y)
	}
	return "Action: save the form.\n" + toolCall(fmt.Sprintf(`{"action": "left_click", "coordinate": [%s, %s]}`, x, y)) + "\n" +
		toolCall(`{"action": "answer", "text": "saved"}`)
}

// robotOnDisplay starts a private display of size for t, points XAUTHORITY
// at it, and opens the XTest robot there; both close with t.
func robotOnDisplay(t *testing.T, size image.Point) (*xdisplay.Display, *robot.Robot) {
	t.Helper()
	d, err := xdisplay.Start(t.Context(), xdisplay.Options{Width: size.X, Height: size.Y})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	t.Setenv("XAUTHORITY", d.XAuthority)
	r, err := robot.New(d.Name, image.Rectangle{Max: size})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return d, r
}
