package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"regexp"
	"strings"

	"deskpilot/agent/convo"
	"deskpilot/vision"
)

// AnthropicComputer is Anthropic's computer tool over the Messages API
// ("anthropic-computer"): computer_20251124 (Claude Opus 4.5 and later,
// Sonnet 4.6 and later: adds zoom, offered with enable_zoom) or
// computer_20250124 (earlier models), chosen by the model's name. The
// model answers with tool_use blocks of the "computer" tool, run in order;
// each gets a tool_result, the last with the screenshot. Actions: key
// (xdotool names, "+"-joined), type, mouse_move, left_click, right_click,
// middle_click, double_click, triple_click (each with an optional
// coordinate, else where the mouse is), left_click_drag (start_coordinate
// to coordinate, or from the pointer), left_mouse_down and left_mouse_up
// (paired within a reply into a drag), scroll (scroll_direction,
// scroll_amount wheel clicks), hold_key (text, duration seconds, at most
// 100), wait (duration), screenshot, cursor_position and zoom (region [x0,
// y0, x1, y1], attached at full resolution). The text of a click, move,
// drag or scroll names modifier keys held down during it ("shift",
// "ctrl+shift"); left_mouse_down without its left_mouse_up in the same
// reply leaves the button down for the next one (the run releases it when
// it ends). The bash and editor tools are not offered.
//
// Points are pixels of the declared display, which is the screenshot's
// size: the screenshot is scaled so the API never rescales it again — at
// most 1568 px on the long edge and 1.15 million pixels up to Claude 4.6,
// at most 2576 px and 3.75 million pixels from Opus 4.7 on — and points map
// back through vision.Mapper, pixel centre to pixel centre.
type AnthropicComputer struct {
	// Model is the model's name: it picks the tool version and the image
	// limits.
	Model string
}

// Name implements Dialect.
func (AnthropicComputer) Name() string { return "anthropic-computer" }

// Provider implements ToolDialect.
func (AnthropicComputer) Provider() string { return convo.ProviderAnthropic }

// claudeVersion reads "opus-4-7", "sonnet-4.6", "claude-5" style names as
// (major, minor); 0, 0 when the name has no version.
func claudeVersion(model string) (major, minor int) {
	m := regexp.MustCompile(`(?:opus|sonnet|haiku|claude|mythos|fable)[-_ ]?(\d)(?:[-._](\d)(?:\D|$))?`).FindStringSubmatch(strings.ToLower(model))
	if m == nil {
		return 0, 0
	}
	major = int(m[1][0] - '0')
	if m[2] != "" {
		minor = int(m[2][0] - '0')
	}
	return major, minor
}

// atLeast reports whether the model is version maj.min or later.
func (d AnthropicComputer) atLeast(maj, min int) bool {
	a, b := claudeVersion(d.Model)
	return a > maj || a == maj && b >= min
}

// tool is the computer tool version the model takes.
func (d AnthropicComputer) tool() string {
	m := strings.ToLower(d.Model)
	if strings.Contains(m, "opus") && d.atLeast(4, 5) || d.atLeast(4, 6) {
		return "computer_20251124"
	}
	return "computer_20250124"
}

// Space implements Dialect: the largest screenshot the model generation
// takes without the API rescaling it.
func (d AnthropicComputer) Space(display image.Point, _ int) Space {
	long, px := 1568, 1_150_000
	if d.atLeast(4, 7) {
		long, px = 2576, 3_750_000
	}
	return Space{Image: limitSize(display, long, px), Mode: vision.CoordPixels}
}

// Stop implements Dialect: none.
func (AnthropicComputer) Stop() []string { return nil }

// SystemPrompt implements Dialect.
func (AnthropicComputer) SystemPrompt(p Prompt) (string, error) {
	return vendorPrompt(p, finishText), nil
}

// History implements Historian: text first, then the screenshot (Anthropic
// advises instructions before images); three screenshots kept, older ones a
// note, so the prefix the cache holds stays byte for byte the same between
// chunk boundaries.
func (AnthropicComputer) History() History { return History{KeepImages: 3} }

// FirstTurn implements Historian.
func (AnthropicComputer) FirstTurn(task string) string {
	return "This is the screen now. Carry out the task: " + task
}

// Observation implements Historian.
func (AnthropicComputer) Observation(o Outcome) string { return terseObservation(o) }

// Prepare implements ToolDialect.
func (d AnthropicComputer) Prepare(r *convo.Request, sp Space, _ bool) {
	t := d.tool()
	r.Computer = &convo.ComputerTool{Type: t, Display: sp.Image, EnableZoom: t == "computer_20251124"}
}

// Parse implements Dialect: a reply's text alone is the answer.
func (d AnthropicComputer) Parse(reply string) (Reply, error) { return vendorFinal(d.Name(), reply) }

// anthropicInput is a computer tool_use input.
type anthropicInput struct {
	Action     string          `json:"action"`
	Coordinate json.RawMessage `json:"coordinate"`
	Start      json.RawMessage `json:"start_coordinate"`
	Text       *string         `json:"text"`
	Direction  string          `json:"scroll_direction"`
	Amount     *float64        `json:"scroll_amount"`
	Duration   *float64        `json:"duration"`
	Key        string          `json:"key"`
	Region     []float64       `json:"region"`
}

const anthropicActions = "key, type, mouse_move, left_click, right_click, middle_click, double_click, triple_click, " +
	"left_click_drag, left_mouse_down, left_mouse_up, scroll, hold_key, wait, screenshot, cursor_position, zoom"

// ParseResponse implements ToolDialect.
func (d AnthropicComputer) ParseResponse(res convo.Response) (Reply, error) {
	if len(res.Calls) == 0 {
		return vendorFinal(d.Name(), res.Text)
	}
	r := Reply{Thought: firstText(strings.TrimSpace(res.Text), strings.TrimSpace(res.Reasoning)), Calls: res.Calls}
	var steps []step
	for i, c := range res.Calls {
		if c.Name != "computer" {
			return r, toolError(d.Name(), fmt.Sprintf("unknown tool %q: the only tool is computer", clip(c.Name, 30)), anthropicActions)
		}
		var in anthropicInput
		if err := strictJSON(string(c.Input), &in); err != nil {
			return r, toolError(d.Name(), fmt.Sprintf("tool call %d: input is not a JSON object: %v", i+1, err), anthropicActions)
		}
		s, err := d.step(in)
		if err != nil {
			return r, toolError(d.Name(), fmt.Sprintf("tool call %d (%s): %v", i+1, clip(in.Action, 30), err), anthropicActions)
		}
		steps = append(steps, s...)
	}
	if err := compileCalls(&r, d.Name(), steps, anthropicActions); err != nil {
		return r, err
	}
	return r, nil
}

// step maps one action onto steps.
func (d AnthropicComputer) step(in anthropicInput) ([]step, error) {
	at, err := xy(in.Coordinate)
	if err != nil {
		return nil, err
	}
	if in.Key != "" && in.Action != "key" {
		return nil, fmt.Errorf("holding %s during %s is not supported here: use the key action with a combination instead", clip(in.Key, 20), in.Action)
	}
	switch in.Action {
	case "left_click", "right_click", "middle_click", "double_click", "triple_click", "mouse_move":
		mods, err := anthropicMods(in)
		if err != nil {
			return nil, err
		}
		o := map[string]op{"left_click": opClick, "right_click": opRightClick, "middle_click": opMiddleClick,
			"double_click": opDoubleClick, "triple_click": opTripleClick, "mouse_move": opMove}[in.Action]
		if in.Action == "mouse_move" && at == nil {
			return nil, errors.New("mouse_move needs a coordinate")
		}
		return []step{{op: o, at: at, mods: mods}}, nil
	case "left_click_drag":
		if at == nil {
			return nil, errors.New("left_click_drag needs the coordinate to drag to")
		}
		from, err := xy(in.Start)
		if err != nil {
			return nil, err
		}
		mods, err := anthropicMods(in)
		if err != nil {
			return nil, err
		}
		return []step{{op: opDrag, at: from, to: at, mods: mods}}, nil
	case "left_mouse_down", "left_mouse_up":
		mods, err := anthropicMods(in)
		if err != nil {
			return nil, err
		}
		o := opMouseDown
		if in.Action == "left_mouse_up" {
			o = opMouseUp
		}
		return []step{{op: o, at: at, mods: mods}}, nil
	case "key", "hold_key":
		if in.Text == nil || *in.Text == "" {
			return nil, fmt.Errorf("%s needs text: the key or combination, e.g. ctrl+s", in.Action)
		}
		k, err := combo(splitKeys(*in.Text))
		if err != nil {
			return nil, err
		}
		if in.Action == "key" {
			return []step{{op: opKey, combo: k}}, nil
		}
		secs, err := duration(in.Duration)
		if err != nil {
			return nil, err
		}
		return []step{{op: opHold, combo: k, secs: secs}}, nil
	case "type":
		if in.Text == nil {
			return nil, errors.New("type needs text")
		}
		return []step{{op: opType, text: *in.Text}}, nil
	case "scroll":
		return anthropicScroll(in, at)
	case "wait":
		secs, err := duration(in.Duration)
		if err != nil {
			return nil, err
		}
		return []step{{op: opWait, secs: secs}}, nil
	case "screenshot":
		return nil, nil
	case "cursor_position":
		return []step{{op: opCursor}}, nil
	case "zoom":
		if d.tool() != "computer_20251124" {
			return nil, errors.New("zoom is not offered to this model")
		}
		if len(in.Region) != 4 {
			return nil, errors.New("zoom needs region [x0, y0, x1, y1]")
		}
		p0, err := finitePoint(in.Region[0], in.Region[1])
		if err != nil {
			return nil, err
		}
		p1, err := finitePoint(in.Region[2], in.Region[3])
		if err != nil {
			return nil, err
		}
		if p1.X <= p0.X || p1.Y <= p0.Y {
			return nil, errors.New("zoom region must have x1 > x0 and y1 > y0")
		}
		return []step{{op: opZoom, at: p0, to: p1}}, nil
	case "":
		return nil, errNoAction
	}
	return nil, fmt.Errorf("unknown action %q", clip(in.Action, 30))
}

// anthropicMods reads the modifiers a click or scroll holds (its text).
func anthropicMods(in anthropicInput) (string, error) {
	if in.Text == nil {
		return "", nil
	}
	return heldModifiers(splitKeys(*in.Text))
}

func anthropicScroll(in anthropicInput, at *vision.ModelPoint) ([]step, error) {
	mods, err := anthropicMods(in)
	if err != nil {
		return nil, err
	}
	switch in.Direction {
	case "up", "down", "left", "right":
	default:
		return nil, fmt.Errorf("scroll_direction %q: want up, down, left or right", clip(in.Direction, 20))
	}
	n := 3
	if in.Amount != nil {
		if *in.Amount < 0 || *in.Amount != float64(int(*in.Amount)) || *in.Amount > maxScroll {
			return nil, fmt.Errorf("scroll_amount %g: want a whole number of wheel clicks, 0 to %d", *in.Amount, maxScroll)
		}
		n = int(*in.Amount)
	}
	if n == 0 {
		return nil, nil
	}
	return []step{{op: opScroll, at: at, dir: in.Direction, amount: n, mods: mods}}, nil
}

// duration reads a hold_key or wait duration in seconds (0 to 100).
func duration(d *float64) (float64, error) {
	if d == nil {
		return 1, nil
	}
	if *d < 0 || *d > 100 || *d != *d {
		return 0, fmt.Errorf("duration %g: want 0 to 100 seconds", *d)
	}
	return *d, nil
}

// Results implements ToolDialect.
func (d AnthropicComputer) Results(reply Reply, o Outcome, acks []convo.SafetyCheck, images []convo.Part) []convo.Part {
	return vendorResults(reply.Calls, o, acks, images, reply.Refused)
}
