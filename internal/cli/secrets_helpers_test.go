package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/draw"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"deskpilot/a11y"
	"deskpilot/a11y/atspi"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/wiring"
	"deskpilot/vision/ocr"
	"deskpilot/vision/xdisplay"
)

// canary is the secret the leak tests type: any run of 6 of its characters
// (or of it reversed) found in an output is a leak.
const canary = "Zq8HVmT3xWk6RpL2"

// fragments are the 6-character runs of s and of s reversed.
func fragments(s string) []string {
	rs := []rune(s)
	rev := make([]rune, len(rs))
	for i, r := range rs {
		rev[len(rs)-1-i] = r
	}
	var out []string
	for _, v := range [][]rune{rs, rev} {
		for i := 0; i+6 <= len(v); i++ {
			out = append(out, string(v[i:i+6]))
		}
	}
	return out
}

// leaked returns the fragments of canary in text, compared without case (OCR
// reads case loosely).
func leaked(text string) []string {
	low := strings.ToLower(text)
	var out []string
	for _, f := range fragments(canary) {
		if strings.Contains(low, strings.ToLower(f)) {
			out = append(out, f)
		}
	}
	return out
}

// noLeak fails the test when text holds a fragment of the canary.
func noLeak(t *testing.T, where, text string) {
	t.Helper()
	if f := leaked(text); len(f) > 0 {
		i := strings.Index(strings.ToLower(text), strings.ToLower(f[0]))
		t.Errorf("%s holds %q of the secret: …%s…", where, f[0], text[max(0, i-80):min(len(text), i+80)])
	}
}

// accessibleDisplay starts a private display with its own accessibility bus
// and points XAUTHORITY at it; --x-display drives it.
func accessibleDisplay(t *testing.T) (*xdisplay.Display, *atspi.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	d, err := xdisplay.Start(ctx, xdisplay.Options{Width: 1280, Height: 800, Accessibility: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	t.Setenv("XAUTHORITY", d.XAuthority)
	tree, err := atspi.Connect(ctx, atspi.Options{XDisplay: d.Name, IgnoreEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tree.Close() })
	return d, tree
}

// startApp starts name on d; it is stopped when the test ends.
func startApp(t *testing.T, d *xdisplay.Display, name string, args ...string) *xdisplay.App {
	t.Helper()
	app, err := d.StartApp(t.Context(), name, args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Stop() })
	return app
}

// waitElement waits until app shows an enabled element q selects.
func waitElement(t *testing.T, tree *atspi.Client, app *xdisplay.App, q a11y.Query) a11y.Element {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for {
		els, _, err := tree.Elements(ctx, q)
		for _, e := range els {
			if e.PID == app.Cmd.Process.Pid && e.Has("enabled") {
				return e
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no element %+v: %v; output: %s", q, err, app.Output())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// newReader is an OCR reader for the test.
func newReader(t *testing.T) *ocr.Reader {
	t.Helper()
	r, err := wiring.NewOCR()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// ocrText reads the text of an encoded image.
func ocrText(t *testing.T, r *ocr.Reader, data []byte) string {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return ""
	}
	rgba := image.NewRGBA(img.Bounds())
	draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
	txt, err := r.Read(t.Context(), rgba)
	if err != nil {
		t.Fatalf("ocr: %v", err)
	}
	return txt.String()
}

// checkRequests fails when a request to the model holds the canary: in its
// text, or in what OCR reads on its images.
func checkRequests(t *testing.T, r *ocr.Reader, srv *llmtest.Server) {
	t.Helper()
	for i, req := range srv.Requests() {
		noLeak(t, "model request "+itoa(i), string(req.Body))
		for j, img := range req.Images() {
			_, b64, ok := strings.Cut(img.ImageURL, ";base64,")
			if !ok {
				continue
			}
			data, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatal(err)
			}
			noLeak(t, "the OCR of image "+itoa(j)+" of model request "+itoa(i), ocrText(t, r, data))
		}
	}
}

// checkFiles fails when a file under dir holds the canary: in its bytes, or,
// for an image, in what OCR reads on it. It returns the number of images read.
func checkFiles(t *testing.T, r *ocr.Reader, dir string) int {
	t.Helper()
	images := 0
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		noLeak(t, path, string(data))
		switch strings.ToLower(filepath.Ext(path)) {
		case ".png", ".jpg", ".jpeg", ".webp":
			images++
			noLeak(t, "the OCR of "+path, ocrText(t, r, data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return images
}

func itoa(n int) string { return strconv.Itoa(n) }

// pngFrame decodes a PNG file.
func pngFrame(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}
