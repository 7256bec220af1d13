package script

import (
	"fmt"
	"image"
	"math"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// findText is find_text(text, exact=False).
func (g *ground) findText(c *Call, a *Args) (starlark.Value, error) {
	text, err := query(a, "text")
	exact := a.Bool("exact")
	if err == nil {
		err = a.Err()
	}
	if err != nil {
		return nil, err
	}
	start := c.Now()
	t, frame, err := g.readScreen(c)
	if err != nil {
		logQuery(c, start, "", err)
		return nil, err
	}
	found, places := g.placeMatches(frame, t.Find(text, exact))
	if len(found) == 0 {
		t2, frame2, ok, err := g.readAgain(c, frame)
		if err != nil {
			logQuery(c, start, "", err)
			return nil, err
		}
		if ok {
			t, frame = t2, frame2
			found, places = g.placeMatches(frame, t.Find(text, exact))
		}
	}
	kinds := g.rankMatches(c, frame, found, places)
	list := make([]starlark.Value, len(found))
	for i, m := range found {
		list[i] = g.matchValue(m, places[i], kinds[i])
	}
	result := "no match; " + g.closest(t, frame, text)
	if len(found) > 0 {
		result = fmt.Sprintf("%d found: %s", len(found), g.describeMatches(found, places, kinds, 3))
	}
	logQuery(c, start, result, nil)
	return starlark.NewList(list), nil
}

// clickText is click_text(text, index=0).
func (g *ground) clickText(c *Call, a *Args) error {
	text, err := query(a, "text")
	index := a.Int("index")
	if err == nil {
		err = a.Err()
	}
	if err != nil {
		return err
	}
	if index < 0 {
		return fmt.Errorf("index must be 0 or more (0 is the best match), got %d", index)
	}
	start := c.Now()
	t, frame, err := g.readScreen(c)
	if err != nil {
		logQuery(c, start, "", err)
		return err
	}
	found, places := g.placeMatches(frame, t.Find(text, false))
	if len(found) == 0 {
		t2, frame2, ok, err := g.readAgain(c, frame)
		if err != nil {
			logQuery(c, start, "", err)
			return err
		}
		if ok {
			t, frame = t2, frame2
			found, places = g.placeMatches(frame, t.Find(text, false))
		}
	}
	kinds := g.rankMatches(c, frame, found, places)
	switch {
	case len(found) == 0:
		return fmt.Errorf("no text matching %q on the screen; %s", text, g.closest(t, frame, text))
	case index >= len(found):
		return fmt.Errorf("index %d is past the last match: %q is on the screen %d time(s), index 0 to %d: %s",
			index, text, len(found), len(found)-1, g.describeMatches(found, places, kinds, closestShown))
	}
	m := found[index]
	return g.clickAt(c, places[index], fmt.Sprintf("clicked %s (score %.2f)", quoted(m.Text, 60), m.Score))
}

// placeMatches returns the matches that lie on the display, with their places.
func (g *ground) placeMatches(frame *image.RGBA, ms []TextMatch) ([]TextMatch, []place) {
	var out []TextMatch
	var places []place
	for _, m := range ms {
		p, err := g.placeOf(g.rootRect(frame, m.Box))
		if err != nil {
			continue
		}
		out, places = append(out, m), append(places, p)
	}
	return out, places
}

// matchValue is one match as find_text returns it.
func (g *ground) matchValue(m TextMatch, p place, kind string) starlark.Value {
	return starlarkstruct.FromStringDict(starlark.String("match"), starlark.StringDict{
		"text":  starlark.String(m.Text),
		"x":     g.coord(p.model.X),
		"y":     g.coord(p.model.Y),
		"w":     g.coord(p.w),
		"h":     g.coord(p.h),
		"score": starlark.Float(math.Round(m.Score*100) / 100),
		"kind":  starlark.String(kind),
	})
}

// describeMatches renders up to n matches for a message: `"Save" at (10, 20)`,
// with the kind when the text is on a control: `"Save" (button) at (10, 20)`.
// kinds may be nil.
func (g *ground) describeMatches(ms []TextMatch, places []place, kinds []string, n int) string {
	parts := make([]string, 0, min(n, len(ms))+1)
	for i, m := range ms {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(ms)-n))
			break
		}
		what := quoted(m.Text, 60)
		if kinds != nil && kinds[i] != kindText {
			what += " (" + kinds[i] + ")"
		}
		parts = append(parts, what+" at "+g.at(places[i]))
	}
	return strings.Join(parts, ", ")
}

// closest says what was read that comes closest to text.
func (g *ground) closest(t ScreenText, frame *image.RGBA, text string) string {
	near, places := g.placeMatches(frame, t.Closest(text, closestShown))
	if len(near) == 0 {
		if len(t.Words()) == 0 {
			return "no text at all was read on the screen"
		}
		return "nothing read on the screen comes close"
	}
	parts := make([]string, len(near))
	for i, m := range near {
		parts[i] = fmt.Sprintf("%s at %s", quoted(m.Text, 60), g.at(places[i]))
	}
	return "closest text read: " + strings.Join(parts, ", ")
}
