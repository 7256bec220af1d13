package dialect

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"regexp"
	"sort"
	"strings"

	"deskpilot/vision"
)

// Grounder is a model that answers "where on the screenshot is this
// element?" with one point (--grounder MODEL): the uitars-*, doubao and qwen*
// dialects, and point-only models (GTA1, Holo, UI-Venus). The planner
// describes an element; the agent sends the screenshot at Space's image size
// with GroundingPrompt's text, reads the reply with ParsePoint and maps the
// point with a vision.Mapper built from the same Space. Implementations are
// values without mutable state: safe for concurrent use.
type Grounder interface {
	// Name is the grounder's name as given to --grounder-dialect.
	Name() string
	// Space is the image the grounder is sent and its coordinates.
	Space(display image.Point, maxSide int) Space
	// GroundingPrompt returns the system message ("" = none) and the user
	// text sent with the screenshot to ask for the element's point.
	GroundingPrompt(description string, space Space) (system, user string)
	// ParsePoint reads the point from a reply, in space's coordinates as
	// written (the Mapper range-checks it). A reply with no point, or one
	// saying the element is not there, is an error.
	ParsePoint(reply string, space Space) (vision.ModelPoint, error)
}

// ErrNoPoint is a grounder reply that holds no point (errors.Is).
var ErrNoPoint = errors.New("the grounder's reply has no point")

// GroundingPrompt implements Grounder with UI-TARS's own grounding prompt,
// verbatim (prompts/grounder-*.tmpl name their source commits): UI-TARS
// 1.0's one-liner, UI-TARS-1.5's GROUNDING, Doubao's GROUNDING_DOUBAO.
func (u UITARS) GroundingPrompt(description string, _ Space) (system, user string) {
	name := "grounder-uitars-1.5.tmpl"
	switch {
	case u.name == "uitars-1.0":
		name = "grounder-uitars-1.0.tmpl"
	case u.mode == vision.CoordNorm1000:
		name = "grounder-doubao.tmpl"
	}
	return "", grounderText(name, groundingData{Description: description})
}

// groundingData is what a grounder template shows.
type groundingData struct {
	Description   string
	Width, Height int    // the image sent, pixels
	Schema        string // Holo's answer schema
}

// grounderText renders a grounder template; a template that does not
// render (a build defect the tests catch) gives the description alone.
func grounderText(name string, d groundingData) string {
	s, err := render(name, d)
	if err != nil {
		return d.Description
	}
	return s
}

// ParsePoint implements Grounder: the first action's point, or a bare point.
func (u UITARS) ParsePoint(reply string, space Space) (vision.ModelPoint, error) {
	if _, at := actionStart(reply); at >= 0 {
		if calls, err := parseCalls(reply[at:], actionSeparator); err == nil && len(calls) > 0 {
			if p, err := boxArg(calls[0], "start_box", "point", "start_point"); err == nil {
				return p, nil
			}
		}
	}
	return readPoint(reply)
}

// GroundingPrompt implements Grounder: Qwen's system prompt with the
// computer_use tool, the description as the user's request.
func (q Qwen) GroundingPrompt(description string, space Space) (system, user string) {
	sys, _ := q.SystemPrompt(Prompt{Image: space.Image})
	return sys, "Click on: " + description
}

// ParsePoint implements Grounder: the first tool call's coordinate, or a
// bare point.
func (q Qwen) ParsePoint(reply string, space Space) (vision.ModelPoint, error) {
	blocks, _ := toolCalls(reply)
	for _, b := range blocks {
		if a, err := decodeQwenCall(b); err == nil {
			if p, err := qwenPoint(a.Coordinate); err == nil && p != nil {
				return *p, nil
			}
		}
	}
	return readPoint(reply)
}

// pointGrounder is a point-only model: a prompt, an image size and a
// coordinate space; replies are read by readPoint.
type pointGrounder struct {
	name   string
	mode   vision.CoordMode
	factor int // smart_resize factor; 0 = the run's downscale (ScaledSize)
	min    int
	max    int
	system string // template of the system message ("" = none)
	user   string // template of the user text ("" = deskpilot's own point prompt)
	schema string // Holo's schema, shown by its template
}

func (g pointGrounder) Name() string { return g.name }

func (g pointGrounder) Space(display image.Point, maxSide int) Space {
	if g.factor == 0 {
		return Space{Image: scaled(display, maxSide), Mode: g.mode}
	}
	return Space{Image: smartSize(display, g.factor, g.min, g.max), Mode: g.mode}
}

func (g pointGrounder) GroundingPrompt(description string, space Space) (system, user string) {
	d := groundingData{Description: description, Width: space.Image.X, Height: space.Image.Y, Schema: g.schema}
	if g.system != "" {
		system = grounderText(g.system, d)
	}
	switch g.user {
	case "":
		user = fmt.Sprintf("Where is this element on the %dx%d screenshot: %s\n"+
			"Answer with only its center point (x, y), in pixels from the top-left corner.", space.Image.X, space.Image.Y, description)
	case "-":
		user = description
	default:
		user = grounderText(g.user, d)
	}
	return system, user
}

func (g pointGrounder) ParsePoint(reply string, _ Space) (vision.ModelPoint, error) {
	return readPoint(reply)
}

// holoSchema is Holo1.5's ClickAbsoluteAction as pydantic prints its JSON
// schema, which Holo's localization prompt embeds.
const holoSchema = `{'description': 'Click at absolute coordinates.', 'properties': {'action': {'const': 'click_absolute', 'default': 'click_absolute', 'title': 'Action', 'type': 'string'}, 'x': {'description': 'The x coordinate, number of pixels from the left edge.', 'title': 'X', 'type': 'integer'}, 'y': {'description': 'The y coordinate, number of pixels from the top edge.', 'title': 'Y', 'type': 'integer'}}, 'required': ['x', 'y'], 'title': 'ClickAbsoluteAction', 'type': 'object'}`

// holo2Schema is Holo2's ClickCoordinates, normalised to 0..1000.
const holo2Schema = `{'properties': {'x': {'description': 'The x coordinate, normalized between 0 and 1000.', 'maximum': 1000, 'minimum': 0, 'title': 'X', 'type': 'integer'}, 'y': {'description': 'The y coordinate, normalized between 0 and 1000.', 'maximum': 1000, 'minimum': 0, 'title': 'Y', 'type': 'integer'}}, 'required': ['x', 'y'], 'title': 'ClickCoordinates', 'type': 'object'}`

// pointGrounders are the point-only grounders, by name. Their prompts are
// the families' own, verbatim (prompts/grounder-*.tmpl name the source
// commits); "point" is deskpilot's for any model that answers (x, y).
func pointGrounders() []pointGrounder {
	return []pointGrounder{
		{name: "gta1", mode: vision.CoordPixelsFloor, factor: 28, min: 3136, max: 4096 * 2160, system: "grounder-gta1.tmpl", user: "-"},
		{name: "holo1.5", mode: vision.CoordPixelsFloor, factor: 28, min: 3136, max: 1003520, user: "grounder-holo.tmpl", schema: holoSchema},
		{name: "holo2", mode: vision.CoordNorm1000, factor: qwen3Factor, min: qwen3Min, max: qwen3Max, user: "grounder-holo.tmpl", schema: holo2Schema},
		{name: "ui-venus", mode: vision.CoordNorm1000, factor: qwen25Factor, min: qwen25Min, max: qwen25Max, user: "grounder-ui-venus.tmpl"},
		{name: "point", mode: vision.CoordPixels},
	}
}

// GrounderNames lists the grounders' names, sorted.
func GrounderNames() []string {
	var names []string
	for _, d := range all() {
		if _, ok := d.(Grounder); ok {
			names = append(names, d.Name())
		}
	}
	for _, g := range pointGrounders() {
		names = append(names, g.name)
	}
	sort.Strings(names)
	return names
}

// GrounderByName returns the named grounder: a dialect that grounds
// (uitars-1.5, uitars-1.0, doubao, qwen2.5, qwen3) or a point-only model
// (gta1, holo1.5, holo2, ui-venus, point). An unknown name is an error
// listing the known ones.
func GrounderByName(name string) (Grounder, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	for _, d := range all() {
		if g, ok := d.(Grounder); ok && d.Name() == key {
			return g, nil
		}
	}
	for _, g := range pointGrounders() {
		if g.name == key {
			return g, nil
		}
	}
	return nil, fmt.Errorf("unknown grounder %q; grounders: %s", name, strings.Join(GrounderNames(), ", "))
}

var (
	jsonObjRe   = regexp.MustCompile(`\{[^{}]*\}`)
	clickXYRe   = regexp.MustCompile(`(?i)\bclick\w*\s*\(\s*(?:x\s*=\s*)?([-+]?[\d.]+)\s*,\s*(?:y\s*=\s*)?([-+]?[\d.]+)`)
	taggedRe    = regexp.MustCompile(`(?s)<point>.*?</point>|<bbox>.*?</bbox>|<\|box_start\|>.*?<\|box_end\|>`)
	bracketedRe = regexp.MustCompile(`[\[(]\s*[-+]?[\d.]+(?:\s*,\s*[-+]?[\d.]+){1,3}\s*[\])]`)
)

// readPoint reads the point from a grounder's reply in the forms point-only
// models use, first match wins: a JSON object with "x" and "y" (Holo), a
// click(x=..., y=...) call, a <point>/<bbox>/<|box_start|> tag, then a
// bracketed (x, y), [x, y] or box [x1, y1, x2, y2] (centre). [-1, -1] means
// the model found no such element.
func readPoint(reply string) (vision.ModelPoint, error) {
	for _, obj := range jsonObjRe.FindAllString(reply, 8) {
		var v struct{ X, Y *float64 }
		if json.Unmarshal([]byte(obj), &v) == nil && v.X != nil && v.Y != nil {
			return checkFound(vision.ModelPoint{X: *v.X, Y: *v.Y})
		}
	}
	if m := clickXYRe.FindStringSubmatch(reply); m != nil {
		if p, err := parseBox(m[1] + "," + m[2]); err == nil {
			return checkFound(p)
		}
	}
	for _, re := range []*regexp.Regexp{taggedRe, bracketedRe} {
		if s := re.FindString(reply); s != "" {
			if p, err := parseBox(s); err == nil {
				return checkFound(p)
			}
		}
	}
	return vision.ModelPoint{}, fmt.Errorf("%w: %q; expected a point such as (x, y), [x, y] or {\"x\": ..., \"y\": ...}", ErrNoPoint, clip(reply, 80))
}

func checkFound(p vision.ModelPoint) (vision.ModelPoint, error) {
	if p.X == -1 && p.Y == -1 {
		return p, fmt.Errorf("%w: the grounder says the element is not on the screen", ErrNoPoint)
	}
	return p, nil
}
