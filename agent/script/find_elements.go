package script

import (
	"context"
	"fmt"
	"image"
	"strings"
	"time"

	"deskpilot/a11y"
	"deskpilot/actions"
	"deskpilot/internal/wait"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Waiting for a clicked text field to take the keyboard focus (click_element).
const (
	// focusWait bounds the wait: GTK moves the focus when it handles the
	// click, which a loaded machine delays; keys sent before it land in the
	// widget that had the focus.
	focusWait = 2 * time.Second
	// focusPoll is the time between two reads of the field's state.
	focusPoll = 40 * time.Millisecond
	// maxStates bounds the states find_elements takes.
	maxStates = 32
	// hintElements is how many elements a "not found" lists.
	hintElements = 12
)

// elementsNow reads the visible elements, leaving out those in the excluded
// areas (deskpilot's own windows). The wait does not count toward the
// block's time limit.
func (g *ground) elementsNow(c *Call) ([]a11y.Element, a11y.Note, error) {
	if g.Elements == nil {
		return nil, a11y.Note{}, errNoTree
	}
	if err := g.settle(c); err != nil {
		return nil, a11y.Note{}, err
	}
	defer c.Untimed()()
	els, note, err := g.Elements.Elements(c.Ctx, a11y.Query{})
	if err != nil {
		if c.Ctx.Err() != nil {
			return nil, note, c.stopped()
		}
		return nil, note, err
	}
	own := g.excluded()
	out := els[:0:0]
	for _, e := range els {
		if !inAny(e.Center(), own) {
			out = append(out, e)
		}
	}
	return out, note, nil
}

// inAny reports whether p lies in one of rs.
func inAny(p image.Point, rs []image.Rectangle) bool {
	for _, r := range rs {
		if p.In(r) {
			return true
		}
	}
	return false
}

// elementQuery reads find_elements' arguments.
func elementQuery(a *Args) (a11y.Query, error) {
	var q a11y.Query
	q.Name, _ = a.OptString("name")
	q.Role, _ = a.OptString("role")
	if err := a.Err(); err != nil {
		return q, err
	}
	if r := []rune(q.Name); len(r) > maxQueryRunes {
		return q, fmt.Errorf("name is %d characters long; at most %d", len(r), maxQueryRunes)
	}
	states, err := statesArg(a.Value("states"))
	if err != nil {
		return q, err
	}
	q.States = states
	_, err = a11y.Match(nil, q) // a bad role or state, before the tree is read
	return q, err
}

// statesArg converts the states argument: None, a state name, or a list or
// tuple of them.
func statesArg(v starlark.Value) ([]string, error) {
	bad := fmt.Errorf(`states must be a list of state names such as ["checked"], got %s`, typeName(v))
	var items []starlark.Value
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.String:
		return []string{string(v)}, nil
	case *starlark.List:
		for i := range v.Len() {
			items = append(items, v.Index(i))
		}
	case starlark.Tuple:
		items = v
	default:
		return nil, bad
	}
	if len(items) > maxStates {
		return nil, fmt.Errorf("states lists %d states; at most %d", len(items), maxStates)
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, ok := it.(starlark.String)
		if !ok {
			return nil, bad
		}
		out = append(out, string(s))
	}
	return out, nil
}

// findElements is find_elements(name=None, role=None, states=None).
func (g *ground) findElements(c *Call, a *Args) (starlark.Value, error) {
	q, err := elementQuery(a)
	if err != nil {
		return nil, err
	}
	start := c.Now()
	els, note, err := g.elementsNow(c)
	if err == nil {
		els, err = a11y.Match(els, q)
	}
	if err != nil {
		logQuery(c, start, "", err)
		return nil, err
	}
	var list []starlark.Value
	var shown []string
	for _, e := range els {
		if len(list) == MaxElements {
			break
		}
		p, err := g.placeOf(e.Bounds)
		if err != nil {
			continue
		}
		list = append(list, g.elementValue(e, p))
		if len(shown) < 3 {
			shown = append(shown, e.Role+" "+quoted(e.Name, 60)+" at "+g.at(p))
		}
	}
	result := fmt.Sprintf("%d found", len(list))
	if len(shown) > 0 {
		result += ": " + strings.Join(shown, ", ")
	}
	if len(els) > len(list) {
		result += fmt.Sprintf("; %d match, only the first %d were returned: narrow the query", len(els), len(list))
	}
	if n := note.String(); n != "" {
		result += "; " + strings.ReplaceAll(n, "\n", "; ")
	}
	logQuery(c, start, result, nil)
	return starlark.NewList(list), nil
}

// elementValue is one element as find_elements returns it.
func (g *ground) elementValue(e a11y.Element, p place) starlark.Value {
	states := make([]starlark.Value, len(e.States))
	for i, s := range e.States {
		states[i] = starlark.String(s)
	}
	return starlarkstruct.FromStringDict(starlark.String("element"), starlark.StringDict{
		"name":   starlark.String(e.Name),
		"role":   starlark.String(e.Role),
		"x":      g.coord(p.model.X),
		"y":      g.coord(p.model.Y),
		"w":      g.coord(p.w),
		"h":      g.coord(p.h),
		"states": starlark.NewList(states),
		"text":   starlark.String(e.Text),
	})
}

// clickElement is click_element(name, role=None).
func (g *ground) clickElement(c *Call, a *Args) error {
	name, err := query(a, "name")
	if err != nil {
		return err
	}
	role, _ := a.OptString("role")
	if err := a.Err(); err != nil {
		return err
	}
	q := a11y.Query{Name: name, Role: role}
	if _, err := a11y.Match(nil, q); err != nil {
		return err
	}
	els, note, err := g.elementsNow(c)
	if err != nil {
		return err
	}
	found, err := a11y.Match(els, q)
	if err != nil {
		return err
	}
	if len(found) == 0 {
		what := fmt.Sprintf("%q", name)
		if role != "" {
			what += fmt.Sprintf(" with role %q", role)
		}
		return fmt.Errorf("no element named %s on the screen; %s", what, elementHint(els, note))
	}
	e := found[0]
	p, err := g.placeOf(e.Bounds)
	if err != nil {
		return err
	}
	act := actions.Record{Model: &[2]float64{p.model.X, p.model.Y}, Screen: &[2]int{p.screen.X, p.screen.Y},
		Result: fmt.Sprintf("clicked %s %s", e.Role, quoted(e.Name, 60))}
	return g.act(c, act, Guarded{At: &p.screen}, func(ctx context.Context) error {
		if err := g.Input.Click(ctx, actions.Point(p.screen), actions.Left, 1); err != nil {
			return err
		}
		if e.Has("editable") && !e.Has("focused") {
			g.waitFocus(c, e)
		}
		return nil
	})
}

// elementHint says which elements there are, for a click_element that found
// none: the interactive ones first, else what the walk noted.
func elementHint(els []a11y.Element, note a11y.Note) string {
	var names []string
	for _, e := range els {
		if e.Interactive && len(names) < hintElements {
			names = append(names, e.Role+" "+quoted(e.Name, 40))
		}
	}
	if len(names) == 0 {
		if n := note.String(); n != "" {
			return strings.ReplaceAll(n, "\n", "; ")
		}
		return "there are no interactive elements; find_text finds controls by their visible text"
	}
	return "elements there are: " + strings.Join(names, ", ") + " (find_elements() lists them all)"
}

// waitFocus waits, at most focusWait, until the element e has the keyboard
// focus (or is gone), so that keys typed next reach it. Not finding it
// focused is no error: the click happened.
func (g *ground) waitFocus(c *Call, e a11y.Element) {
	defer c.Untimed()()
	ctx, cancel := context.WithTimeout(c.Ctx, focusWait)
	defer cancel()
	for {
		els, _, err := g.Elements.Elements(ctx, a11y.Query{States: []string{"focused"}})
		if err != nil {
			return
		}
		for _, x := range els {
			if x.ID() == e.ID() {
				return
			}
		}
		if wait.Sleep(ctx, focusPoll) != nil {
			return
		}
	}
}

// clickMark is click_mark(n).
func (g *ground) clickMark(c *Call, a *Args) error {
	n := a.Int("n")
	if err := a.Err(); err != nil {
		return err
	}
	var marks []Mark
	on := false
	if g.Marks != nil {
		marks, on = g.Marks()
	}
	if !on {
		return fmt.Errorf("the screenshots carry no marks: set-of-marks is off (start the run with --marks); " +
			"use click_text or click_element instead")
	}
	for _, m := range marks {
		if m.N == n {
			p, err := g.placeOf(m.Box)
			if err != nil {
				return err
			}
			return g.clickAt(c, p, fmt.Sprintf("clicked mark %d (%s %s)", n, m.Role, quoted(m.Name, 60)))
		}
	}
	if len(marks) == 0 {
		return fmt.Errorf("there is no mark %d: the newest screenshot has no marks (nothing to click was found on it)", n)
	}
	return fmt.Errorf("there is no mark %d on the newest screenshot; its marks are numbered 1 to %d", n, len(marks))
}
