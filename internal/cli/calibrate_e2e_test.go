package cli

import (
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"deskpilot/agent/dialect"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/calibrate"
	"deskpilot/vision/xdisplay"
)

var labelRe = regexp.MustCompile(`labelled "([A-Z])"`)

// askedTarget is the target a request asks for, on a monitor of size.
func askedTarget(t *testing.T, text string, monitor image.Point) calibrate.Target {
	t.Helper()
	m := labelRe.FindStringSubmatch(text)
	if m == nil {
		t.Errorf("the request names no target: %.300s", text)
		return calibrate.Target{}
	}
	for _, tg := range calibrate.Layout(image.Rectangle{Max: monitor}) {
		if tg.Label == m[1] {
			return tg
		}
	}
	t.Errorf("no target %q", m[1])
	return calibrate.Target{}
}

// convention writes a target's centre as a fake model of a convention
// would, for the sent image size.
type convention struct {
	name string
	at   func(c image.Point, screen, sent image.Point) (float64, float64)
}

func conventions() []convention {
	f := func(v int, num, den int) float64 { return math.Round(float64(v)*float64(num)/float64(den)*10) / 10 }
	smart := func(s image.Point) image.Point {
		h, w, _ := dialect.SmartResize(s.Y, s.X, 28, 4*28*28, 16384*28*28)
		return image.Pt(w, h)
	}
	return []convention{
		{"pixels", func(c, s, img image.Point) (float64, float64) { return f(c.X, img.X, s.X), f(c.Y, img.Y, s.Y) }},
		{"norm1000", func(c, s, _ image.Point) (float64, float64) { return f(c.X, 1000, s.X), f(c.Y, 1000, s.Y) }},
		{"norm999", func(c, s, _ image.Point) (float64, float64) { return f(c.X, 999, s.X), f(c.Y, 999, s.Y) }},
		{"unit", func(c, s, _ image.Point) (float64, float64) {
			return math.Round(float64(c.X)/float64(s.X)*1e4) / 1e4, math.Round(float64(c.Y)/float64(s.Y)*1e4) / 1e4
		}},
		{"smart28", func(c, s, _ image.Point) (float64, float64) {
			z := smart(s)
			return f(c.X, z.X, s.X), f(c.Y, z.Y, s.Y)
		}},
		{"screen", func(c, _, _ image.Point) (float64, float64) { return float64(c.X), float64(c.Y) }},
		{"swapped", func(c, s, img image.Point) (float64, float64) { return f(c.Y, img.Y, s.Y), f(c.X, img.X, s.X) }},
		{"wrong", func(c, s, img image.Point) (float64, float64) {
			return float64((c.X*7919 + 311) % img.X), float64((c.Y*104729 + 97) % img.Y)
		}},
	}
}

// TestCalibrate runs `deskpilot doctor --calibrate` against fake models
// answering in the code dialect in each convention, on a private display:
// the right convention is named first every time with the settings that
// read it, a wrong one and a swapped one fail the check (exit 1), and
// --write puts the settings in the config file.
func TestCalibrate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	size := fullHD
	d := calibrationDisplay(t, size)
	want := map[string]struct{ fit, settings string }{
		"pixels":   {"pixels of the sent image", "the configured settings read the model this way"},
		"norm1000": {"0–1000", `coord_mode = "norm1000"`},
		"norm999":  {"0–999", `dialect = "qwen3"`},
		"unit":     {"0–1", `dialect = "pyautogui", pyautogui_coords = "unit"`},
		"smart28":  {"smart-resize pixels (factor 28)", `dialect = "qwen2.5"`},
		"screen":   {"screen pixels", `image_max_side = 1920`},
		"swapped":  {"pixels of the sent image, x/y swapped", "the model swaps x and y"},
	}
	for _, c := range conventions() {
		t.Run(c.name, func(t *testing.T) {
			isolate(t)
			srv := llmtest.New(t)
			for range 9 {
				srv.Add(llmtest.Reply{Func: func(req llmtest.Request) string {
					imgs := req.Last("user").Images()
					if len(imgs) != 1 {
						t.Errorf("a calibration request has %d screenshots, want 1", len(imgs))
						return "no"
					}
					tg := askedTarget(t, req.Last("user").Text()+req.Messages[0].Text(), size)
					x, y := c.at(tg.Center, size, imgs[0].Size)
					return fmt.Sprintf("Thought: the target is there.\n```python\nclick(%g, %g)\n```", x, y)
				}})
			}
			args := []string{"doctor", "--calibrate", "--base-url", srv.URL, "--model", "calibration-fake", "--x-display", d.Name}
			if c.name == "norm1000" {
				args = append(args, "--write")
			}
			out, code := cli(t, "", args...)
			w, fits := want[c.name]
			switch {
			case c.name == "wrong" || c.name == "swapped":
				if code != exitFailed {
					t.Errorf("exit %d, want %d:\n%s", code, exitFailed, out)
				}
			case code != 0:
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if c.name == "wrong" {
				if !strings.Contains(out, "no convention lands") {
					t.Errorf("the report does not say nothing lands:\n%s", out)
				}
				return
			}
			if !fits || !strings.Contains(out, "fits: "+w.fit) {
				t.Errorf("the report does not name %q first:\n%s", w.fit, out)
			}
			if !strings.Contains(out, w.settings) {
				t.Errorf("the report does not give the settings %q:\n%s", w.settings, out)
			}
			if srv.Pending() != 0 {
				t.Errorf("%d targets were not asked for", srv.Pending())
			}
			if c.name == "norm1000" {
				data, err := os.ReadFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "deskpilot", "config.toml"))
				if err != nil || !strings.Contains(string(data), `coord_mode = "norm1000"`) {
					t.Errorf("--write did not write the setting: %v\n%s", err, data)
				}
			}
		})
	}
}

// TestCalibrateInTheModelsDialect: the model is asked in its own dialect
// and transport — Qwen3-VL's tool call on its 0..999 grid over chat, and
// Anthropic's computer tool over the Messages API — and its own convention
// fits with the configured settings.
func TestCalibrateInTheModelsDialect(t *testing.T) {
	if testing.Short() {
		t.Skip("starts X displays")
	}
	d := calibrationDisplay(t, wxga)
	t.Run("qwen3", func(t *testing.T) {
		isolate(t)
		srv := llmtest.New(t)
		for range 9 {
			srv.Add(llmtest.Reply{Func: func(req llmtest.Request) string {
				tg := askedTarget(t, req.Last("user").Text()+req.Messages[0].Text(), wxga)
				x, y := math.Round(float64(tg.Center.X)*999/float64(wxga.X)), math.Round(float64(tg.Center.Y)*999/float64(wxga.Y))
				return fmt.Sprintf("Action: click the target.\n<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_click\", \"coordinate\": [%g, %g]}}\n</tool_call>", x, y)
			}})
		}
		out, code := cli(t, "", "doctor", "--calibrate", "--base-url", srv.URL, "--model", "Qwen/Qwen3-VL-8B-Instruct", "--x-display", d.Name)
		if code != 0 || !regexp.MustCompile(`fits: [^\n]*0–999`).MatchString(out) || !strings.Contains(out, "the configured settings read the model this way") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
	t.Run("anthropic-computer", func(t *testing.T) {
		isolate(t)
		srv := llmtest.NewVendor(t, llmtest.Anthropic)
		for range 9 {
			srv.Add(llmtest.Turn{Func: func(req llmtest.VendorRequest) llmtest.Turn {
				tg := askedTarget(t, req.RequestText(), wxga)
				return llmtest.Turn{Calls: []llmtest.Call{{Name: "computer", Input: fmt.Sprintf(`{"action": "left_click", "coordinate": [%d, %d]}`, tg.Center.X, tg.Center.Y)}}}
			}})
		}
		t.Setenv("DESKPILOT_TEST_KEY", "k")
		out, code := cli(t, "", "doctor", "--calibrate", "--base-url", srv.URL, "--model", "claude-sonnet-4-5", "--dialect", "anthropic-computer",
			"--api-key-env", "DESKPILOT_TEST_KEY", "--x-display", d.Name)
		if code != 0 || !strings.Contains(out, "the configured settings read the model this way") || !strings.Contains(out, "provider anthropic") {
			t.Errorf("exit %d:\n%s", code, out)
		}
	})
}

// calibrationDisplay starts a private X display of size.
func calibrationDisplay(t *testing.T, size image.Point) *xdisplay.Display {
	t.Helper()
	d, err := xdisplay.Start(t.Context(), xdisplay.Options{Width: size.X, Height: size.Y})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	t.Setenv("XAUTHORITY", d.XAuthority)
	return d
}
