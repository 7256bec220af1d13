package inspect

import (
	"math"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// turn is how far most of a page's text is turned from upright, in quarter
// turns counterclockwise: a landscape page whose text runs up the sheet
// (the page's /Rotate shows it upright) is 1, text running down is 3. The
// layout works on lines that run left to right, so a page's boxes are turned
// back before it: turned text otherwise reads as a column of words.
type turn int

// maxTurnSamples is how many characters of a page are asked for their
// angle; the first uprightSamples of them upright settle it.
const (
	maxTurnSamples = 33
	uprightSamples = 8
)

// pageTurn samples characters spread over a page's text and returns the
// quarter turn most of them share, by their angle and by where the next
// character of their word is; when the two disagree the page is taken as
// upright (a text matrix that mirrors the page's y axis, as some producers
// write, gives upright text an angle of a half turn).
func pageTurn(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, runes []rune) turn {
	var byAngle [4]int
	var sampled []int // the characters asked, followed by one of their word
	step := max(1, len(runes)/maxTurnSamples)
	for i := 0; i < len(runes); i += step {
		if isBreak(runes[i]) || runes[i] < ' ' {
			continue
		}
		if byAngle[0] == uprightSamples && byAngle[1]+byAngle[2]+byAngle[3] == 0 {
			return 0 // the common case, settled in a few calls
		}
		a, err := inst.FPDFText_GetCharAngle(&requests.FPDFText_GetCharAngle{TextPage: tp, Index: i})
		if err != nil {
			continue
		}
		// PDFium measures the angle clockwise, in [0, 2π).
		ccw := math.Mod(2*math.Pi-float64(a.CharAngle), 2*math.Pi)
		byAngle[int(math.Round(ccw/(math.Pi/2)))%4]++
		if i+1 < len(runes) && !isBreak(runes[i+1]) && runes[i+1] >= ' ' {
			sampled = append(sampled, i)
		}
	}
	q := most(byAngle)
	if q == 0 {
		return 0
	}
	var byStep [4]int
	for _, i := range sampled {
		if s, ok := stepTurn(inst, tp, i); ok {
			byStep[s]++
		}
	}
	if most(byStep) != q {
		return 0
	}
	return q
}

// stepTurn is the quarter turn of the step from character i's box to the
// next one's: right is upright, up the page a quarter turn.
func stepTurn(inst pdfium.Pdfium, tp references.FPDF_TEXTPAGE, i int) (turn, bool) {
	var cx, cy [2]float64
	for k := range 2 {
		b, err := inst.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i + k})
		if err != nil {
			return 0, false
		}
		cx[k], cy[k] = float64(b.Rect.Left+b.Rect.Right)/2, float64(b.Rect.Top+b.Rect.Bottom)/2
	}
	dx, dy := cx[1]-cx[0], cy[1]-cy[0]
	switch {
	case dx == 0 && dy == 0:
		return 0, false
	case math.Abs(dx) >= math.Abs(dy) && dx > 0:
		return 0, true
	case math.Abs(dx) >= math.Abs(dy):
		return 2, true
	case dy > 0:
		return 1, true
	}
	return 3, true
}

// most is the quarter turn with the most votes, upright on a tie.
func most(votes [4]int) turn {
	best := 0
	for q := 1; q < 4; q++ {
		if votes[q] > votes[best] {
			best = q
		}
	}
	return turn(best)
}

// point turns a point of the page back by q.
func (q turn) point(x, y float64) (float64, float64) {
	switch q {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}

// box turns a rectangle (left, top, right, bottom) back by q.
func (q turn) box(l, t, r, b float64) (float64, float64, float64, float64) {
	x1, y1 := q.point(l, t)
	x2, y2 := q.point(r, b)
	return min(x1, x2), max(y1, y2), max(x1, x2), min(y1, y2)
}
