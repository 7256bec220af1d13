package wiring

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/draw"
	"image/png"
	"strings"
	"testing"
	"time"

	"deskpilot/a11y"
	"deskpilot/a11y/atspi"
	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
	"deskpilot/vision/ocr"
	"deskpilot/vision/xdisplay"
)

// desk is a private display driven as --x-display drives one.
type desk struct {
	d    *xdisplay.Display
	size image.Point
	tree *atspi.Client // the display's accessibility tree, for waiting on apps; nil without
}

// startDesk starts a display of the given size (with its own buses when
// accessible) and points XAUTHORITY at its cookie, so the wiring can open it.
func startDesk(t testing.TB, size image.Point, accessible bool) *desk {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	d, err := xdisplay.Start(ctx, xdisplay.Options{Width: size.X, Height: size.Y, Accessibility: accessible})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	t.Setenv("XAUTHORITY", d.XAuthority)
	k := &desk{d: d, size: size}
	if accessible {
		if k.tree, err = atspi.Connect(ctx, atspi.Options{XDisplay: d.Name, IgnoreEnv: true}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.tree.Close() })
	}
	return k
}

// start starts an app on the desk; it is stopped when the test ends.
func (k *desk) start(t testing.TB, name string, args ...string) *xdisplay.App {
	t.Helper()
	app, err := k.d.StartApp(t.Context(), name, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Stop() })
	return app
}

// window waits until a window whose title holds title is shown.
func (k *desk) window(t testing.TB, app *xdisplay.App, title string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if _, err := k.d.WaitWindow(ctx, title); err != nil {
		t.Fatalf("window %q: %v; output: %s", title, err, app.Output())
	}
}

// element waits until app shows an enabled element q selects and returns it
// (GTK maps a dialog before its buttons take input).
func (k *desk) element(t testing.TB, app *xdisplay.App, q a11y.Query) a11y.Element {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for {
		els, _, err := k.tree.Elements(ctx, q)
		for _, e := range els {
			if e.PID == app.Cmd.Process.Pid && e.Has("enabled") {
				return e
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no element %+v of %s: %v; output: %s", q, app.Cmd.Path, err, app.Output())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// run wires an agent for the desk from s (as deskpilot run --x-display does)
// and runs task against a model that answers with replies.
func (k *desk) run(t *testing.T, s config.Settings, reader *ocr.Reader, task string, replies ...llmtest.Reply) (agent.Finished, *llmtest.Server) {
	t.Helper()
	return k.runWith(t, s, Options{OCR: reader}, task, replies...)
}

// runWith is run with the wiring's options o.
func (k *desk) runWith(t *testing.T, s config.Settings, o Options, task string, replies ...llmtest.Reply) (agent.Finished, *llmtest.Server) {
	t.Helper()
	srv := llmtest.New(t, replies...)
	s.BaseURL, s.Model, s.APIKeyEnv, s.TraceDir, s.XDisplay = srv.URL, "scripted-vlm", config.NoKey, t.TempDir(), k.d.Name
	s.MaxSteps = max(s.MaxSteps, 6)
	s.TimeoutSec = 60
	cfg, err := config.Resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	ready, err := Open(ctx, cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()
	ready.Agent.NoTakeover = true // nobody uses this display but the agent
	return ready.Agent.Run(ctx, task, agent.Hooks{}), srv
}

// code is a scripted reply with a thought and one code block.
func code(src string) llmtest.Reply {
	return llmtest.Reply{Text: "Thought: next.\n```python\n" + src + "\n```\n"}
}

// exited waits for app to exit and returns its exit code and its output
// without toolkit warnings.
func exited(t *testing.T, app *xdisplay.App) (int, string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !app.Exited() {
		if time.Now().After(deadline) {
			t.Fatalf("%s is still running; output: %s", app.Cmd.Path, app.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	var keep []string
	for _, l := range strings.Split(app.Output(), "\n") {
		if l == "" || strings.Contains(l, "Gtk-") || strings.Contains(l, "GLib") || strings.HasPrefix(l, "(zenity:") ||
			strings.Contains(l, "WARNING") || strings.Contains(l, "dbind-") || strings.Contains(l, "Warning:") {
			continue
		}
		keep = append(keep, l)
	}
	return app.Cmd.ProcessState.ExitCode(), strings.Join(keep, "\n")
}

// newOCR is one OCR reader for a test and its subtests, closed at its end.
func newOCR(t testing.TB) *ocr.Reader {
	t.Helper()
	r, err := NewOCR()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// lastText is the text of the last user message of request i.
func lastText(t *testing.T, srv *llmtest.Server, i int) string {
	t.Helper()
	reqs := srv.Requests()
	if i >= len(reqs) {
		t.Fatalf("request %d was never made (%d requests)", i, len(reqs))
	}
	return reqs[i].Last("user").Text()
}

// screenshot decodes the last image of request i.
func screenshot(t *testing.T, srv *llmtest.Server, i int) *image.RGBA {
	t.Helper()
	imgs := srv.Requests()[i].Images()
	if len(imgs) == 0 {
		t.Fatalf("request %d has no image", i)
	}
	_, data, _ := strings.Cut(imgs[len(imgs)-1].ImageURL, ",")
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	return rgba
}
