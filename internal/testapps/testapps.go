//go:build linux

// Package testapps runs the small target apps that end-to-end tests drive on a
// private display (vision/xdisplay) and reads back what they did. It is test
// support: only _test.go files import it.
//
// The form app (formapp.py, Tk) has a name field, a notes box and a Save button;
// Save writes the fields as JSON to its output file. It reports its widgets'
// rectangles in root coordinates, rewritten whenever the window moves, so a scripted
// model can compute where to click from what the app says, not from guesses.
package testapps

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"
	"time"

	"deskpilot/vision/xdisplay"
)

//go:embed formapp.py
var formScript []byte

// FormTitle is the form window's title.
const FormTitle = "deskpilot test form"

// Form is a running form app. Its methods are safe for concurrent use (a scripted
// model computes clicks on the fake server's goroutine).
type Form struct {
	// Out is the JSON file Save writes: {"name": ..., "notes": ...}.
	Out string

	layoutPath string
}

// StartForm starts the form app on d and waits until the window manager has placed
// it (its layout stays the same for 400 ms). The app stops when the test ends.
func StartForm(t testing.TB, d *xdisplay.Display) *Form {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "formapp.py")
	if err := os.WriteFile(script, formScript, 0o600); err != nil {
		t.Fatal(err)
	}
	f := &Form{Out: filepath.Join(dir, "out.json"), layoutPath: filepath.Join(dir, "layout.json")}
	app, err := d.StartApp(t.Context(), "/usr/bin/python3", script, f.Out, f.layoutPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Stop() })
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := d.WaitWindow(ctx, FormTitle); err != nil {
		t.Fatalf("form window: %v (%s)", err, app.Output())
	}
	var last string
	for stable := 0; stable < 4; {
		if ctx.Err() != nil || app.Exited() {
			t.Fatalf("form app did not settle: %s", app.Output())
		}
		time.Sleep(100 * time.Millisecond)
		data, err := os.ReadFile(f.layoutPath)
		if err != nil {
			continue
		}
		if string(data) == last {
			stable++
		} else {
			last, stable = string(data), 0
		}
	}
	return f
}

// Widget returns the rectangle (root coordinates) of widget "name", "notes", "save"
// or "status", as the app reports it now.
func (f *Form) Widget(name string) (image.Rectangle, error) {
	data, err := os.ReadFile(f.layoutPath)
	if err != nil {
		return image.Rectangle{}, fmt.Errorf("form layout: %w", err)
	}
	var raw map[string]struct{ X, Y, W, H int }
	if err := json.Unmarshal(data, &raw); err != nil {
		return image.Rectangle{}, fmt.Errorf("form layout: %w", err)
	}
	w, ok := raw[name]
	if !ok {
		return image.Rectangle{}, fmt.Errorf("form has no widget %q", name)
	}
	return image.Rect(w.X, w.Y, w.X+w.W, w.Y+w.H), nil
}

// Click returns where a model should click to hit the centre of widget name, as
// "x, y" in its coordinate space: pixels of an image of size img showing a screen of
// size screen (mode "pixels"), or 0..1000 on both axes (mode "norm1000").
func (f *Form) Click(name string, img, screen image.Point, mode string) (string, error) {
	r, err := f.Widget(name)
	if err != nil {
		return "", err
	}
	x, y := float64(r.Min.X)+float64(r.Dx())/2, float64(r.Min.Y)+float64(r.Dy())/2
	if mode == "norm1000" {
		return fmt.Sprintf("%d, %d", int(x*1000/float64(screen.X)), int(y*1000/float64(screen.Y))), nil
	}
	return fmt.Sprintf("%d, %d", int(x*float64(img.X)/float64(screen.X)), int(y*float64(img.Y)/float64(screen.Y))), nil
}

// Saved returns what the form saved; an error when Save was never pressed.
//
// The app writes the file when it handles the click on Save, which a loaded
// machine may delay past the end of the run that clicked: Saved waits up to
// five seconds for it.
func (f *Form) Saved() (name, notes string, err error) {
	var data []byte
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		data, err = os.ReadFile(f.Out)
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return "", "", fmt.Errorf("the form was not saved: %w", err)
	}
	var v struct{ Name, Notes string }
	if err := json.Unmarshal(data, &v); err != nil {
		return "", "", fmt.Errorf("form output: %w", err)
	}
	return v.Name, v.Notes, nil
}
