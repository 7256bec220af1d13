package script

import (
	"context"
	"image"
	"image/color"
	"math"
	"slices"
	"time"

	"deskpilot/a11y"
	"deskpilot/vision"
)

// What find_text says a match is, and how it ranks them: a control a person
// operates (a button, a menu item, a link, a field) comes before plain text
// reading the same, so "Charlie" the button is found before the "Charlie" of
// the label "Pick Charlie". A control is known from the accessibility tree
// when the app has one, else from the button's shape on the screen: text
// framed closely on all four sides.
const (
	kindText   = "text"
	kindButton = "button"
	// kindTreeWait bounds the look at the tree for find_text's kinds; a tree
	// that answers later leaves the kinds to the shapes.
	kindTreeWait = 500 * time.Millisecond
	// Button shapes: how far from the text a frame may lie (pixels), and the
	// colour distance that tells a frame from the face.
	padSide, padEnd = 32, 20
	edgeDelta       = 40
)

// rankMatches orders found (and places with it) best first with controls
// before plain text of about the same score, and returns each match's kind:
// "text", "button", or the accessible role of the control it lies on.
func (g *ground) rankMatches(c *Call, frame *image.RGBA, found []TextMatch, places []place) []string {
	kinds := make([]string, len(found))
	roles := g.controlRoles(c, frame, found)
	for i, m := range found {
		switch {
		case roles[i] != "":
			kinds[i] = roles[i]
		case buttonShaped(frame, m.Box):
			kinds[i] = kindButton
		default:
			kinds[i] = kindText
		}
	}
	order := make([]int, len(found))
	for i := range order {
		order[i] = i
	}
	bucket := func(s float64) float64 { return math.Round(s * 10) }
	slices.SortStableFunc(order, func(a, b int) int {
		if sa, sb := bucket(found[a].Score), bucket(found[b].Score); sa != sb {
			if sa > sb {
				return -1
			}
			return 1
		}
		ca, cb := kinds[a] != kindText, kinds[b] != kindText
		switch {
		case ca && !cb:
			return -1
		case cb && !ca:
			return 1
		}
		return 0
	})
	fs, ps, ks := slices.Clone(found), slices.Clone(places), slices.Clone(kinds)
	for i, j := range order {
		found[i], places[i], kinds[i] = fs[j], ps[j], ks[j]
	}
	return kinds
}

// controlRoles returns, per match, the role of the interactive accessible
// element whose bounds hold the match's centre, "" where none does or the
// tree cannot be read in time.
func (g *ground) controlRoles(c *Call, frame *image.RGBA, found []TextMatch) []string {
	roles := make([]string, len(found))
	if g.Elements == nil || len(found) == 0 {
		return roles
	}
	var within image.Rectangle
	for _, m := range found {
		within = within.Union(g.rootRect(frame, m.Box))
	}
	defer c.Untimed()()
	ctx, cancel := context.WithTimeout(c.Ctx, kindTreeWait)
	defer cancel()
	els, _, err := g.Elements.Elements(ctx, a11y.Query{Interactive: true, Within: within})
	if err != nil {
		return roles
	}
	own := g.excluded()
	for i, m := range found {
		r := g.rootRect(frame, m.Box)
		p := image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2)
		best := image.Rectangle{}
		for _, e := range els {
			if !e.Interactive || !p.In(e.Bounds) || inAny(e.Center(), own) {
				continue
			}
			// The smallest control holding the text is the one it names.
			if best.Empty() || area(e.Bounds) < area(best) {
				best, roles[i] = e.Bounds, controlKind(e.Role)
			}
		}
	}
	return roles
}

// controlKind is the kind find_text gives text on a control of role.
func controlKind(role string) string {
	switch role {
	case "push button", "toggle button", "button":
		return kindButton
	}
	return role
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// buttonShaped reports whether text at box (frame pixels) lies on a button:
// the face the text is written on is closed all around within a button's
// padding, by a frame of another colour (a border, a relief's light or dark
// edge, an oval's outline). Plain text's background runs on past the padding,
// between the words beside it and around them.
func buttonShaped(frame *image.RGBA, box image.Rectangle) bool {
	if box.Empty() || !box.In(frame.Rect) {
		return false
	}
	face, ok := faceColour(frame, box)
	if !ok {
		return false
	}
	limit := image.Rect(box.Min.X-padSide, box.Min.Y-padEnd, box.Max.X+padSide, box.Max.Y+padEnd)
	if !limit.In(frame.Rect) {
		return false // at the screen's edge: nothing closes it there
	}
	// A flood fill of the face from the ring around the text, four ways, over
	// the limit's pixels; reaching the limit's edge means the face is open.
	w := limit.Dx()
	seen := make([]bool, w*limit.Dy())
	var queue []image.Point
	push := func(p image.Point) {
		i := (p.Y-limit.Min.Y)*w + p.X - limit.Min.X
		if seen[i] || vision.ColourDistance(frame.RGBAAt(p.X, p.Y), face) >= edgeDelta {
			return
		}
		seen[i] = true
		queue = append(queue, p)
	}
	ring := box.Inset(-2)
	for x := ring.Min.X; x < ring.Max.X; x++ {
		push(image.Pt(x, ring.Min.Y))
		push(image.Pt(x, ring.Max.Y-1))
	}
	for y := ring.Min.Y; y < ring.Max.Y; y++ {
		push(image.Pt(ring.Min.X, y))
		push(image.Pt(ring.Max.X-1, y))
	}
	for len(queue) > 0 {
		p := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if p.X == limit.Min.X || p.Y == limit.Min.Y || p.X == limit.Max.X-1 || p.Y == limit.Max.Y-1 {
			return false
		}
		push(image.Pt(p.X-1, p.Y))
		push(image.Pt(p.X+1, p.Y))
		push(image.Pt(p.X, p.Y-1))
		push(image.Pt(p.X, p.Y+1))
	}
	return true
}

// faceColour is the most common colour of the ring two pixels outside box:
// what the text is written on.
func faceColour(frame *image.RGBA, box image.Rectangle) (color.RGBA, bool) {
	ring := box.Inset(-2).Intersect(frame.Rect)
	counts := map[color.RGBA]int{}
	add := func(x, y int) { counts[frame.RGBAAt(x, y)]++ }
	for x := ring.Min.X; x < ring.Max.X; x++ {
		add(x, ring.Min.Y)
		add(x, ring.Max.Y-1)
	}
	for y := ring.Min.Y; y < ring.Max.Y; y++ {
		add(ring.Min.X, y)
		add(ring.Max.X-1, y)
	}
	var best color.RGBA
	n, total := 0, 0
	for c, k := range counts {
		total += k
		if k > n {
			best, n = c, k
		}
	}
	return best, total > 0 && 2*n >= total
}
