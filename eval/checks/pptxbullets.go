package checks

import (
	"errors"
	"strings"
)

// bullet is one entry of OSWorld's _extract_bullets: level, bullet
// character, text and bullet colour of a paragraph, with Python's None as
// pyNone and "No Level"/"No Bullet"/"No Color" where it writes those.
type bullet struct{ lvl, char, text, color string }

const pyNone = "\x00None"

// bullets is _extract_bullets over the slide's XML as python-pptx holds it
// now: every a:p in document order (those python-pptx added included).
func (s *pslide) bullets() ([]bullet, error) {
	if s.bulletsGen != s.gen {
		s.bulletsOut, s.bulletsErr = s.readBullets()
		s.bulletsGen = s.gen
	}
	return s.bulletsOut, s.bulletsErr
}

func (s *pslide) readBullets() ([]bullet, error) {
	var out []bullet
	var err error
	var walk func(n *xnode)
	walk = func(n *xnode) {
		if n.XMLName.Space == nsDML && n.XMLName.Local == "p" {
			b, e := s.bulletOf(n)
			if e != nil && err == nil {
				err = e
			}
			out = append(out, b)
		}
		for i := range n.Nodes {
			walk(&n.Nodes[i])
		}
		if p, ok := s.addedBody[n]; ok {
			b, _ := s.bulletOf(p)
			out = append(out, b)
		}
	}
	walk(s.root)
	return out, err
}

func (s *pslide) bulletOf(p *xnode) (bullet, error) {
	b := bullet{lvl: "No Level", char: "No Bullet", color: "No Color"}
	pp := childNS(p, nsDML, "pPr")
	if pp != nil || s.addedPPr[p] {
		b.lvl = pyNone
		if v, ok := pp.attrOrEmpty("lvl"); ok {
			b.lvl = v
		}
		if bu := childNS(pp, nsDML, "buChar"); bu != nil {
			b.char = pyNone
			if v, ok := bu.attr("char"); ok {
				b.char = v
			}
		}
		if c := childNS(childNS(pp, nsDML, "buClr"), nsDML, "srgbClr"); c != nil {
			b.color = pyNone
			if v, ok := c.attr("val"); ok {
				b.color = v
			}
		}
	}
	var t strings.Builder
	for _, x := range p.all("t") {
		if x.XMLName.Space != nsDML {
			continue
		}
		if x.Text == "" {
			return b, errors.New("TypeError: sequence item: expected str instance, NoneType found (an empty a:t)")
		}
		t.WriteString(x.Text)
	}
	b.text = t.String()
	return b, nil
}
