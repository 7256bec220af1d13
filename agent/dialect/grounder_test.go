package dialect

import (
	"errors"
	"image"
	"regexp"
	"slices"
	"strings"
	"testing"

	"deskpilot/vision"
)

func TestGrounders(t *testing.T) {
	cases := []struct {
		grounder, reply string
		display         image.Point
		want            vision.ModelPoint
		screen          vision.ScreenPoint
	}{
		{"uitars-1.5", "Action: click(start_box='(197,525)')", fullHD, vision.ModelPoint{X: 197, Y: 525}, vision.ScreenPoint{X: 195, Y: 519}},
		{"uitars-1.5", "(197,525)", fullHD, vision.ModelPoint{X: 197, Y: 525}, vision.ScreenPoint{X: 195, Y: 519}},
		{"uitars-1.0", "click(start_box='<|box_start|>(235,512)<|box_end|>')", fullHD, vision.ModelPoint{X: 235, Y: 512}, vision.ScreenPoint{X: 451, Y: 553}},
		{"doubao", "Action: click(point='<point>200 300</point>')", fullHD, vision.ModelPoint{X: 200, Y: 300}, vision.ScreenPoint{X: 384, Y: 324}},
		{"qwen2.5", toolCall(`{"action": "left_click", "coordinate": [960, 540]}`), fullHD, vision.ModelPoint{X: 960, Y: 540}, vision.ScreenPoint{X: 954, Y: 534}},
		{"qwen3", toolCall(`{"action": "left_click", "coordinate": [499.5, 499.5]}`), fullHD, vision.ModelPoint{X: 499.5, Y: 499.5}, vision.ScreenPoint{X: 960, Y: 540}},
		// GTA1 README: the answer is "(x,y)" in pixels of the smart-resized image.
		{"gta1", "(966,546)", fullHD, vision.ModelPoint{X: 966, Y: 546}, vision.ScreenPoint{X: 960, Y: 540}},
		// Holo1.5: {"action": "click_absolute", "x": 947, "y": 338}.
		{"holo1.5", `{"action": "click_absolute", "x": 947, "y": 338}`, fullHD, vision.ModelPoint{X: 947, Y: 338}, vision.ScreenPoint{X: 1381, Y: 501}}, // image 1316x728 (Holo cap)
		// Holo2: {"x":552,"y":404} on 0..1000.
		{"holo2", `{"x":552,"y":404}`, fullHD, vision.ModelPoint{X: 552, Y: 404}, vision.ScreenPoint{X: 1059, Y: 436}},
		// UI-Venus: [x,y] on 0..1000, or a box (its centre).
		{"ui-venus", "[500,500]", fullHD, vision.ModelPoint{X: 500, Y: 500}, vision.ScreenPoint{X: 960, Y: 540}},
		{"ui-venus", "[100,100,300,300]", fullHD, vision.ModelPoint{X: 200, Y: 200}, vision.ScreenPoint{X: 384, Y: 216}},
		{"point", "The button is at (683, 384).", fullHD, vision.ModelPoint{X: 683, Y: 384}, vision.ScreenPoint{X: 960, Y: 540}},
		{"point", "pyautogui.click(x=683, y=384)", fullHD, vision.ModelPoint{X: 683, Y: 384}, vision.ScreenPoint{X: 960, Y: 540}},
	}
	for _, c := range cases {
		t.Run(c.grounder+" "+c.reply, func(t *testing.T) {
			g, err := GrounderByName(c.grounder)
			if err != nil {
				t.Fatal(err)
			}
			sp := g.Space(c.display, 0)
			sys, user := g.GroundingPrompt("the OK button", sp)
			if !strings.Contains(sys+user, "the OK button") {
				t.Errorf("prompt does not hold the description: %q / %q", sys, user)
			}
			p, err := g.ParsePoint(c.reply, sp)
			if err != nil || p != c.want {
				t.Fatalf("ParsePoint(%q) = %v, %v; want %v", c.reply, p, err, c.want)
			}
			m := vision.Mapper{Display: image.Rectangle{Max: c.display}, Image: sp.Image, Mode: sp.Mode}
			if s, err := m.ToScreen(p); err != nil || s != c.screen {
				t.Errorf("ToScreen(%v) = %v, %v; want %v", p, s, err, c.screen)
			}
		})
	}
}

func TestGrounderNoPoint(t *testing.T) {
	for _, c := range []struct{ grounder, reply string }{
		{"uitars-1.5", "I cannot find it."},
		{"qwen2.5", "There is no such button."},
		{"ui-venus", "[-1,-1]"},
		{"holo1.5", `{"action": "click_absolute"}`},
		{"point", ""},
	} {
		t.Run(c.grounder, func(t *testing.T) {
			g, _ := GrounderByName(c.grounder)
			if _, err := g.ParsePoint(c.reply, g.Space(fullHD, 0)); !errors.Is(err, ErrNoPoint) {
				t.Errorf("ParsePoint(%q) error = %v; want ErrNoPoint", c.reply, err)
			}
		})
	}
}

func TestGrounderNames(t *testing.T) {
	want := []string{"doubao", "gta1", "holo1.5", "holo2", "point", "qwen2.5", "qwen3", "ui-venus", "uitars-1.0", "uitars-1.5"}
	if got := GrounderNames(); !slices.Equal(got, want) {
		t.Errorf("GrounderNames() = %q, want %q", got, want)
	}
	if _, err := GrounderByName("pyautogui"); err == nil || !strings.Contains(err.Error(), "gta1") {
		t.Errorf("GrounderByName(pyautogui) error = %v; want one listing the grounders", err)
	}
	g, _ := GrounderByName("gta1")
	if sys, _ := g.GroundingPrompt("x", g.Space(fullHD, 0)); !strings.Contains(sys, "height 1092 and width 1932") {
		t.Errorf("GTA1 system prompt lacks the resized resolution: %q", sys)
	}
}

// The grounders' prompts are their families' own, verbatim, and each
// template names the commit it was taken from.
func TestGrounderPromptsVerbatim(t *testing.T) {
	commit := regexp.MustCompile(`@[0-9a-f]{40}`)
	entries, err := promptFS.ReadDir("prompts")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "grounder-") {
			continue
		}
		n++
		data, _ := promptFS.ReadFile("prompts/" + e.Name())
		first, _, _ := strings.Cut(string(data), "\n")
		if !strings.HasPrefix(first, "{{- /* Verbatim") || !commit.MatchString(first) {
			t.Errorf("%s does not name its source commit: %q", e.Name(), first)
		}
	}
	if n != 6 {
		t.Errorf("%d grounder templates, want 6", n)
	}
	g, _ := GrounderByName("gta1")
	sys, user := g.GroundingPrompt("the OK button", Space{Image: image.Pt(1932, 1092)})
	if want := "You are an expert UI element locator. Given a GUI image and a user's element description, provide the coordinates of the specified element as a single (x,y) point. The image resolution is height 1092 and width 1932. For elements with area, return the center point.\n\nOutput the coordinate pair exactly:\n(x,y)"; sys != want || user != "the OK button" {
		t.Errorf("gta1 = %q, %q", sys, user)
	}
	g, _ = GrounderByName("uitars-1.5")
	if _, user := g.GroundingPrompt("the OK button", Space{}); user != "You are a GUI agent. You are given a task and your action history, with screenshots. You need to perform the next action to complete the task. \n\n## Output Format\n\nAction: ...\n\n\n## Action Space\nclick(start_box='<|box_start|>(x1,y1)<|box_end|>')\n\n## User Instruction\nthe OK button" {
		t.Errorf("uitars-1.5 = %q", user)
	}
	g, _ = GrounderByName("uitars-1.0")
	if _, user := g.GroundingPrompt("the OK button", Space{}); user != "Output only the coordinate of one point in your response. What element matches the following task: the OK button" {
		t.Errorf("uitars-1.0 = %q", user)
	}
	g, _ = GrounderByName("holo2")
	if _, user := g.GroundingPrompt("the OK button", Space{}); !strings.HasPrefix(user, "Localize an element on the GUI image according to the provided target and output a click position.\n * You must output a valid JSON following the format: {'properties': {'x':") || !strings.HasSuffix(user, "\n Your target is:\nthe OK button") {
		t.Errorf("holo2 = %q", user)
	}
}
