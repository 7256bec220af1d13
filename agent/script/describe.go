package script

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.starlark.net/starlark"

	"deskpilot/actions"
	"deskpilot/vision"
)

// Grounding is where a grounding model found the element a description
// names (DesktopDeps.Ground).
type Grounding struct {
	At       vision.ScreenPoint // the point on the screen, root coordinates
	Point    vision.ModelPoint  // the point as the grounder answered it, in its own space
	Space    string             // the grounder's space, e.g. "1932x1092 image (pixels-floor)"
	Grounder string             // the grounder's model name
	Reply    string             // the grounder's reply, cut to a few hundred bytes; may be set with an error
}

// ErrNoGrounder is a description given where no grounder is configured.
var ErrNoGrounder = errors.New("no grounder is configured to find an element from its description")

// noGrounder explains how to act without, or how to configure, a grounder.
func noGrounder(tool string, desc starlark.String) error {
	return fmt.Errorf("%s: got the description %s instead of coordinates, but %w; give x and y in the screenshot's coordinates, "+
		"or configure a grounding model (deskpilot run --grounder MODEL, or model under [grounder] in config.toml)", tool, shortRepr(desc), ErrNoGrounder)
}

// pointerTool binds a pointer builtin that may take a description instead of
// coordinates: its grounded entry when a grounder is configured, else the
// plain one, which refuses a description with noGrounder before binding
// (binding would only say a coordinate is missing).
func (d *desktop) pointerTool(name string, body func(c *Call, a *Args) error) Tool {
	t := d.tool(name, body)
	if d.Ground != nil {
		fn := t.Fn
		t = groundedBuiltin(t)
		t.Fn = fn
		return t
	}
	plain := t.Fn
	t.Fn = func(c *Call, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if desc, ok := described(t.Params, args, kwargs, t.Gesture == actions.GestureDrag); ok {
			return nil, noGrounder(name, desc)
		}
		return plain(c, args, kwargs)
	}
	return t
}

// described returns the description a call gives instead of coordinates:
// a string as the first argument with the second left out, or, for drag
// (pair), a string as the second too.
func described(params []Param, args starlark.Tuple, kwargs []starlark.Tuple, pair bool) (starlark.String, bool) {
	var first, second starlark.Value
	if len(args) > 0 {
		first = args[0]
	}
	if len(args) > 1 {
		second = args[1]
	}
	for _, kv := range kwargs {
		switch k, _ := starlark.AsString(kv[0]); k {
		case params[0].Name:
			first = kv[1]
		case params[1].Name:
			second = kv[1]
		}
	}
	s, ok := first.(starlark.String)
	_, to := second.(starlark.String)
	return s, ok && (second == nil || pair && to)
}

// target reads where a pointer builtin acts: (xn, yn) in the model's
// coordinates, or, when xn is a description (a grounder configured), the
// element the grounder finds, yn left out. grounded says where the grounder
// found it, for the action's result.
func (d *desktop) target(c *Call, a *Args, xn, yn string) (mp vision.ModelPoint, sp vision.ScreenPoint, grounded string, err error) {
	desc, ok := a.Value(xn).(starlark.String)
	if !ok || d.Ground == nil || !c.tool.Grounded {
		if d.Ground != nil && c.tool.Grounded && a.IsNone(yn) {
			return mp, sp, "", fmt.Errorf("%s is missing: give %s and %s as numbers, or describe the element, e.g. %s(\"the Save button\")", yn, xn, yn, c.Name)
		}
		mp, sp, err = d.point(a, xn, yn)
		return mp, sp, "", err
	}
	if !a.IsNone(yn) {
		return mp, sp, "", fmt.Errorf("give either a description alone, e.g. %s(\"the Save button\"), or %s and %s as numbers", c.Name, xn, yn)
	}
	return d.groundPoint(c, string(desc))
}

// groundPoint finds a described element and returns its point in the model's
// space and on the screen.
func (d *desktop) groundPoint(c *Call, desc string) (vision.ModelPoint, vision.ScreenPoint, string, error) {
	sp, err := d.locate(c, desc)
	if err != nil {
		return vision.ModelPoint{}, sp, "", err
	}
	mp, err := d.Mapper.ToModel(sp)
	if err != nil {
		return mp, sp, "", fmt.Errorf("the grounder found %q off the screen: %w", desc, err)
	}
	return mp, sp, fmt.Sprintf("grounded %q at %s", desc, d.pair(mp)), nil
}

// dragEnds reads a drag's two ends: four coordinates, or, with a grounder,
// two descriptions (x1 where it starts, y1 where it ends).
func (d *desktop) dragEnds(c *Call, a *Args) (m1 vision.ModelPoint, s1, s2 vision.ScreenPoint, grounded string, err error) {
	from, ok := a.Value("x1").(starlark.String)
	if !ok || d.Ground == nil {
		if m1, s1, err = d.point(a, "x1", "y1"); err != nil {
			return
		}
		_, s2, err = d.point(a, "x2", "y2")
		return
	}
	to, ok := a.Value("y1").(starlark.String)
	if !ok || !a.IsNone("x2") || !a.IsNone("y2") {
		err = errors.New(`give either two descriptions, e.g. drag("the report.pdf icon", "the Trash icon"), or x1, y1, x2 and y2 as numbers`)
		return
	}
	m1, s1, g1, err := d.groundPoint(c, string(from))
	if err != nil {
		return
	}
	_, s2, g2, err := d.groundPoint(c, string(to))
	return m1, s1, s2, g1 + ", " + g2, err
}

// locateTool is locate(description) -> (x, y).
func (d *desktop) locateTool() Tool {
	return Builtin(locateName, func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		a, err := c.Bind()
		if err != nil {
			return nil, err
		}
		desc := a.String("description")
		if err := a.Err(); err != nil {
			return nil, err
		}
		mp, _, _, err := d.groundPoint(c, desc)
		if err != nil {
			return nil, err
		}
		return d.pair(mp), nil
	})
}

// locate asks the grounder where the described element is, untimed, and logs
// the call as a "locate" action: the description, the grounder's reply, the
// point in the grounder's own space (Model) and on the screen (Screen).
func (d *desktop) locate(c *Call, desc string) (vision.ScreenPoint, error) {
	desc = strings.TrimSpace(desc)
	switch {
	case desc == "":
		return vision.ScreenPoint{}, errors.New(`the description is empty; describe the element, e.g. "the Save button"`)
	case len(desc) > MaxDescription:
		return vision.ScreenPoint{}, fmt.Errorf("the description is %d bytes long; describe the element in at most %d", len(desc), MaxDescription)
	}
	act := actions.Record{Name: locateName, Args: strconv.Quote(desc), Start: c.Now()}
	resume := c.Untimed()
	g, err := d.Ground(c.Ctx, desc)
	resume()
	act.Duration = c.Now().Sub(act.Start)
	if err != nil {
		act.Result, act.Error = "failed", err.Error()
		if g.Reply != "" {
			act.Result = fmt.Sprintf("failed: %s answered %q", g.Grounder, g.Reply)
		}
		c.Log(act)
		return vision.ScreenPoint{}, err
	}
	act.Model, act.Screen = &[2]float64{g.Point.X, g.Point.Y}, &[2]int{g.At.X, g.At.Y}
	act.Result = fmt.Sprintf("%s answered %q: (%g, %g) in its %s", g.Grounder, g.Reply, g.Point.X, g.Point.Y, g.Space)
	c.Log(act)
	return g.At, nil
}
