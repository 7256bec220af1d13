package dialect

import (
	"image"
	"math"
	"strings"
	"testing"

	"deskpilot/agent/convo"
	"deskpilot/vision"
)

// Each Claude generation gets the computer tool version Anthropic's docs
// pair it with (computer_20251124 for Opus 4.5 and later and Sonnet 4.6 and
// later, with zoom; computer_20250124 before), and the screenshot limits of
// its vision encoder (1568 px long edge and about 1.15 million pixels up to
// 4.6; 2576 px and 3.75 million pixels from 4.7 on).
func TestClaudeGenerations(t *testing.T) {
	for _, tt := range []struct {
		model, tool string
		long, px    int
	}{
		{"claude-3-7-sonnet-20250219", "computer_20250124", 1568, 1_150_000},
		{"claude-sonnet-4-20250514", "computer_20250124", 1568, 1_150_000},
		{"claude-opus-4-20250514", "computer_20250124", 1568, 1_150_000},
		{"claude-opus-4-1-20250805", "computer_20250124", 1568, 1_150_000},
		{"claude-sonnet-4-5-20250929", "computer_20250124", 1568, 1_150_000},
		{"claude-haiku-4-5", "computer_20250124", 1568, 1_150_000},
		{"claude-opus-4-5-20251101", "computer_20251124", 1568, 1_150_000},
		{"claude-opus-4-6", "computer_20251124", 1568, 1_150_000},
		{"claude-sonnet-4-6", "computer_20251124", 1568, 1_150_000},
		{"claude-opus-4-7", "computer_20251124", 2576, 3_750_000},
		{"anthropic/claude-opus-4.7", "computer_20251124", 2576, 3_750_000},
	} {
		t.Run(tt.model, func(t *testing.T) {
			d := AnthropicComputer{Model: tt.model}
			var r convo.Request
			d.Prepare(&r, Space{Image: image.Pt(10, 10)}, true)
			if r.Computer == nil || r.Computer.Type != tt.tool || r.Computer.EnableZoom != (tt.tool == "computer_20251124") {
				t.Errorf("tool %+v, want %s", r.Computer, tt.tool)
			}
			for _, display := range []image.Point{{1920, 1080}, {2560, 1440}, {1366, 768}, {3840, 2160}, {1080, 1920}} {
				img := d.Space(display, 0).Image
				if max(img.X, img.Y) > tt.long || img.X*img.Y > tt.px {
					t.Errorf("%v: %v passes %d px / %d pixels", display, img, tt.long, tt.px)
				}
				// As large as the limits allow: one more pixel on the long
				// edge (at the same aspect) would pass one of them, or it
				// is the display itself.
				if img != display {
					l := max(img.X, img.Y) + 1
					s := float64(l) / float64(max(display.X, display.Y))
					if l <= tt.long && float64(display.X)*s*float64(display.Y)*s <= float64(tt.px) {
						t.Errorf("%v: %v is smaller than the limits need", display, img)
					}
				}
				// Aspect kept within a pixel.
				if a, b := float64(img.X)/float64(img.Y), float64(display.X)/float64(display.Y); math.Abs(a-b)*float64(img.Y) > 1 {
					t.Errorf("%v: %v changes the aspect", display, img)
				}
			}
		})
	}
	// A zoom is refused to a model whose tool has none.
	_, err := AnthropicComputer{Model: "claude-sonnet-4-5"}.ParseResponse(convo.Response{Calls: []convo.ToolCall{
		tcall("computer", "t", `{"action": "zoom", "region": [0, 0, 10, 10]}`)}})
	if err == nil || !strings.Contains(err.Error(), "zoom is not offered") {
		t.Errorf("zoom on computer_20250124: %v", err)
	}
}

// A point in a scaled screenshot maps back exactly: the centre of the
// screenshot's pixel lands in the screen pixel under it, the first pixel on
// the screen's first and the last on its last, every one in order, for each
// generation's space on the displays deskpilot is tested on.
func TestClaudePointsMapBackExactly(t *testing.T) {
	for _, model := range []string{"claude-sonnet-4-5", "claude-opus-4-7"} {
		for _, display := range []image.Point{{1920, 1080}, {2560, 1440}, {1366, 768}, {3840, 2160}} {
			sp := AnthropicComputer{Model: model}.Space(display, 0)
			m := vision.Mapper{Display: image.Rectangle{Max: display}, Image: sp.Image, Mode: sp.Mode}
			for axis, n := range []int{sp.Image.X, sp.Image.Y} {
				size := []int{display.X, display.Y}[axis]
				prev := -1
				for i := 0; i < n; i++ {
					p := vision.ModelPoint{X: float64(i), Y: float64(i)}
					if axis == 0 {
						p.Y = 0
					} else {
						p.X = 0
					}
					s, err := m.ToScreen(p)
					if err != nil {
						t.Fatalf("%s %v: %v: %v", model, display, p, err)
					}
					got := []int{s.X, s.Y}[axis]
					want := int(math.Floor((float64(i) + 0.5) * float64(size) / float64(n)))
					if got != want || got <= prev && n <= size {
						t.Fatalf("%s %v axis %d: pixel %d maps to %d, want %d (after %d)", model, display, axis, i, got, want, prev)
					}
					prev = got
				}
				if prev != size-1 && n == size {
					t.Errorf("%s %v axis %d: the last pixel maps to %d, want %d", model, display, axis, prev, size-1)
				}
			}
		}
	}
}
