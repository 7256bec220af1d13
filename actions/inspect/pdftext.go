package inspect

import (
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// The library's own Content walker appends a spurious glyph after every TJ
// and ignores word spacing, so glyph positions are computed here from the
// content stream, following the text operators of PDF 32000-1 §9.4.

// matrix is a PDF transformation [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func translate(x, y float64) matrix { return matrix{1, 0, 0, 1, x, y} }

// textState is the part of the graphics state that places text.
type textState struct {
	ctm, tm, tlm                            matrix
	font                                    *pdfFont
	size, charSp, wordSp, scale, lead, rise float64
}

// pdfFont caches what text placement needs from a font dictionary.
type pdfFont struct {
	enc    pdf.TextEncoding
	first  int
	widths []float64
}

func (f *pdfFont) width(code int) float64 {
	if i := code - f.first; i >= 0 && i < len(f.widths) && f.widths[i] > 0 {
		return f.widths[i]
	}
	return 500 // unknown (e.g. composite fonts): half an em
}

// maxGStack bounds q nesting; maxGlyphs bounds the glyphs kept per page.
const (
	maxGStack = 64
	maxGlyphs = 1 << 20
)

// glyphWalker follows a page's content stream and records each glyph shown.
type glyphWalker struct {
	page   pdf.Page
	fonts  map[string]*pdfFont
	st     textState
	stack  []textState
	glyphs []pdf.Text
}

func (w *glyphWalker) font(name string) *pdfFont {
	if f, ok := w.fonts[name]; ok {
		return f
	}
	pf := w.page.Font(name)
	f := &pdfFont{enc: pf.Encoder(), first: pf.FirstChar(), widths: pf.Widths()}
	w.fonts[name] = f
	return f
}

// op runs one content-stream operator.
func (w *glyphWalker) op(stk *pdf.Stack, op string) {
	n := stk.Len()
	args := make([]pdf.Value, n)
	for i := n - 1; i >= 0; i-- {
		args[i] = stk.Pop()
	}
	num := func(i int) float64 { return args[i].Float64() }
	st := &w.st
	switch {
	case op == "q" && len(w.stack) < maxGStack:
		w.stack = append(w.stack, *st)
	case op == "Q" && len(w.stack) > 0:
		*st = w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
	case op == "cm" && n == 6:
		st.ctm = matrix{num(0), num(1), num(2), num(3), num(4), num(5)}.mul(st.ctm)
	case op == "BT":
		st.tm, st.tlm = identity, identity
	case op == "Tc" && n == 1:
		st.charSp = num(0)
	case op == "Tw" && n == 1:
		st.wordSp = num(0)
	case op == "Tz" && n == 1:
		st.scale = num(0) / 100
	case op == "TL" && n == 1:
		st.lead = num(0)
	case op == "Ts" && n == 1:
		st.rise = num(0)
	case op == "Tf" && n == 2:
		st.font, st.size = w.font(args[0].Name()), num(1)
	case op == "Td" && n == 2:
		w.moveLine(num(0), num(1))
	case op == "TD" && n == 2:
		st.lead = -num(1)
		w.moveLine(num(0), num(1))
	case op == "Tm" && n == 6:
		st.tm = matrix{num(0), num(1), num(2), num(3), num(4), num(5)}
		st.tlm = st.tm
	case op == "T*":
		w.moveLine(0, -st.lead)
	case op == "Tj" && n == 1:
		w.show(args[0].RawString())
	case op == "'" && n == 1:
		w.moveLine(0, -st.lead)
		w.show(args[0].RawString())
	case op == `"` && n == 3:
		st.wordSp, st.charSp = num(0), num(1)
		w.moveLine(0, -st.lead)
		w.show(args[2].RawString())
	case op == "TJ" && n == 1:
		arr := args[0]
		for i := 0; i < arr.Len(); i++ {
			if x := arr.Index(i); x.Kind() == pdf.String {
				w.show(x.RawString())
			} else {
				st.tm = translate(-x.Float64()/1000*st.size*st.scale, 0).mul(st.tm)
			}
		}
	}
}

func (w *glyphWalker) moveLine(x, y float64) {
	w.st.tlm = translate(x, y).mul(w.st.tlm)
	w.st.tm = w.st.tlm
}

// show places the glyphs of one string and advances the text matrix.
func (w *glyphWalker) show(raw string) {
	st := &w.st
	if st.font == nil || raw == "" {
		return
	}
	text := ""
	if st.font.enc != nil {
		text = st.font.enc.Decode(raw)
	}
	runes := []rune(text)
	codeLen := 1
	if len(runes) > 0 && len(raw) == 2*len(runes) {
		codeLen = 2
	}
	for i := 0; i+codeLen <= len(raw); i += codeLen {
		code := int(raw[i])
		if codeLen == 2 {
			code = code<<8 | int(raw[i+1])
		}
		w0 := st.font.width(code)
		trm := matrix{st.size * st.scale, 0, 0, st.size, 0, st.rise}.mul(st.tm).mul(st.ctm)
		if k := i / codeLen; k < len(runes) && len(w.glyphs) < maxGlyphs && runes[k] != utf8.RuneError {
			w.glyphs = append(w.glyphs, pdf.Text{
				FontSize: abs(trm[3]),
				X:        trm[4],
				Y:        trm[5],
				W:        w0 / 1000 * abs(trm[0]),
				S:        string(runes[k]),
			})
		}
		tx := w0/1000*st.size + st.charSp
		if codeLen == 1 && code == ' ' {
			tx += st.wordSp
		}
		st.tm = translate(tx*st.scale, 0).mul(st.tm)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
