package trace

import (
	"deskpilot/actions"

	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// markView is one action drawn over a frame; all lengths are image pixels.
type markView struct {
	N              int
	Kind           string // click, right, double, move, scroll, drag, point
	Err            bool
	Title          string
	X, Y, X2, Y2   float64 // the point; the end of a drag's shaft
	Head           string  // arrowhead polygon points (drag)
	LX, LY         float64 // number badge centre
	R, R2, BR      float64 // ring, inner ring and badge radius
	SW, HW         float64 // stroke width; width of the white halo under rings and shafts
	Font, Baseline float64 // badge font size and its baseline offset
}

// marks converts the actions' screen points into image pixels: subtract the display
// origin, then scale by image size over display size (1 for a full-resolution frame).
func (f *frameView) marks(acts []actions.Record, scr *Rect) {
	ox, oy, sx, sy := 0, 0, 1.0, 1.0
	if scr != nil && scr.W > 0 && scr.H > 0 {
		ox, oy = scr.X, scr.Y
		sx, sy = float64(f.W)/float64(scr.W), float64(f.H)/float64(scr.H)
	}
	r := math.Max(6, float64(max(f.W, f.H))/55)
	for i, a := range acts {
		if a.Screen == nil {
			continue
		}
		m := markView{
			N: i + 1, Kind: markKind(a), Err: a.Error != "",
			Title: a.Name + "(" + a.Args + ")",
			X:     round1(float64(a.Screen[0]-ox) * sx), Y: round1(float64(a.Screen[1]-oy) * sy),
			R: round1(r), R2: round1(r * 0.55), BR: round1(r * 0.8), SW: round1(r / 4), HW: round1(r / 2),
			Font: round1(r), Baseline: round1(r * 0.35),
		}
		if m.Err {
			m.Title += ": " + a.Error
		}
		m.LX, m.LY = round1(m.X+r*1.3), round1(m.Y-r*1.3)
		if a.To != nil {
			m.Kind = string(actions.GestureDrag)
			tx, ty := float64(a.To[0]-ox)*sx, float64(a.To[1]-oy)*sy
			m.X2, m.Y2, m.Head = arrow(m.X, m.Y, tx, ty, r)
		}
		f.Marks = append(f.Marks, m)
	}
}

// markKind is the marker drawn for an action: its gesture, or "point" for an
// action that only carries a point (locate, zoom).
func markKind(a actions.Record) string {
	if a.Gesture == "" {
		return "point"
	}
	return string(a.Gesture)
}

// arrow returns where a drag's shaft ends and its arrowhead polygon, for a head of
// length 1.6r pointing at (tx, ty).
func arrow(x, y, tx, ty, r float64) (float64, float64, string) {
	dx, dy := tx-x, ty-y
	l := math.Hypot(dx, dy)
	if l < 1 {
		return round1(tx), round1(ty), ""
	}
	ux, uy := dx/l, dy/l
	hl := math.Min(1.6*r, l)
	bx, by := tx-ux*hl, ty-uy*hl
	w := 0.7 * r
	pts := [][2]float64{{tx, ty}, {bx - uy*w, by + ux*w}, {bx + uy*w, by - ux*w}}
	var b strings.Builder
	for i, p := range pts {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(num(p[0]) + "," + num(p[1]))
	}
	return round1(bx), round1(by), b.String()
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// num formats a coordinate with at most one decimal.
func num(f float64) string { return strconv.FormatFloat(round1(f), 'f', -1, 64) }

// formatDuration prints a duration for people: 850 ms, 12.3 s, 4 min 05 s, 1 h 02 min.
func formatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0 ms"
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
}

// thousands prints n with comma separators: 1,234,567.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
