package secret

import "strings"

// Stream redacts a text that arrives in pieces (a model's reply as it
// streams): a secret split between two pieces is still found, because what
// could be the start of one is held back until the next piece shows it is
// not, or until Flush. What Push and Flush return, joined, is Text of the
// whole. Not safe for concurrent use.
type Stream struct {
	r    *Redactor
	buf  string // everything pushed since the last Reset
	sent int    // bytes of buf already returned (as themselves or a placeholder)
}

// NewStream returns a Stream that redacts with r.
func NewStream(r *Redactor) *Stream { return &Stream{r: r} }

// Push adds a piece and returns the text that can be shown now.
func (s *Stream) Push(piece string) string {
	s.buf += piece
	return s.emit(false)
}

// Flush returns what is held back; the text is complete.
func (s *Stream) Flush() string { return s.emit(true) }

// Reset forgets the text so far (a reply that starts over).
func (s *Stream) Reset() { s.buf, s.sent = "", 0 }

// emit returns the redacted text of buf from sent up to what is safe to show.
func (s *Stream) emit(all bool) string {
	if s.r.Empty() {
		out := s.buf[s.sent:]
		s.sent = len(s.buf)
		return out
	}
	s.r.mu.RLock()
	defer s.r.mu.RUnlock()
	sp := s.r.spans(s.buf)
	safe := len(s.buf)
	if !all {
		// A fragment or a short value may start in the last bytes and go on
		// in the next piece; a short one needs the byte after it too.
		hold := FragmentLen - 1
		for _, v := range s.r.short {
			hold = max(hold, len(v.v))
		}
		safe = max(s.sent, len(s.buf)-hold)
		for _, x := range sp {
			if x.start < safe && x.end >= safe {
				safe = max(s.sent, x.start) // a match that may go on: hold it whole
			}
		}
	}
	var b strings.Builder
	at := s.sent
	for _, x := range sp {
		if x.end <= at || x.start >= safe {
			continue
		}
		b.WriteString(s.buf[at:max(at, x.start)])
		b.WriteString(s.r.placeholder(x.entry))
		at = x.end
	}
	if at < safe {
		b.WriteString(s.buf[at:safe])
		at = safe
	}
	s.sent = at
	return b.String()
}
