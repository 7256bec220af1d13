//go:build linux

package desktop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/internal/xconn"
)

// Limits of pasting through the X selections.
const (
	// maxPasteBytes bounds a pasted text: it must fit one ChangeProperty
	// request (at most 256 KiB without BIG-REQUESTS) with room to spare.
	maxPasteBytes = 128 << 10
	// pasteTimeout is how long paste waits for the focused window to ask for
	// the text after the paste key.
	pasteTimeout = 3 * time.Second
	// selectionTimeout bounds each exchange with another selection owner.
	selectionTimeout = time.Second
)

// selectionOwner pastes a text through the X selections: it owns CLIPBOARD
// and PRIMARY with the text, has the paste key pressed, serves the focused
// window's request, and then gives the selections back what they held. It
// serves them itself, from an event loop on a connection of its own that
// never waits for a reply (so it can always drain its events), until another
// program takes a selection over or the desktop closes.
//
// Only text is given back: a selection that held something else (an image,
// files) is left empty after a paste. When deskpilot exits, a text it gave
// back is gone unless a clipboard manager kept it, as with any X program.
type selectionOwner struct {
	conn  *xgb.Conn
	win   xproto.Window
	atoms selectionAtoms

	mu      sync.Mutex
	content map[xproto.Atom]string // what each selection we own holds

	served chan struct{}                    // a text target was sent
	notify chan xproto.SelectionNotifyEvent // answers to our conversions
	stamps chan xproto.Timestamp            // times from our stamp property
	done   chan struct{}                    // the event loop ended
}

type selectionAtoms struct {
	clipboard, primary, targets, utf8, text, incr, prop, stamp xproto.Atom
}

// newSelectionOwner connects to display name and starts serving.
func newSelectionOwner(name string) (*selectionOwner, error) {
	c, err := xconn.Dial(name)
	if err != nil {
		return nil, fmt.Errorf("selection owner on %s: %w", name, err)
	}
	s := &selectionOwner{conn: c, content: map[xproto.Atom]string{},
		served: make(chan struct{}, 1), notify: make(chan xproto.SelectionNotifyEvent, 1),
		stamps: make(chan xproto.Timestamp, 1), done: make(chan struct{})}
	if err := s.setup(); err != nil {
		xconn.Close(c)
		return nil, fmt.Errorf("selection owner on %s: %w", name, err)
	}
	go s.loop()
	return s, nil
}

func (s *selectionOwner) setup() error {
	names := []string{"CLIPBOARD", "PRIMARY", "TARGETS", "UTF8_STRING", "TEXT", "INCR",
		"DESKPILOT_SELECTION", "DESKPILOT_STAMP"}
	cookies := make([]xproto.InternAtomCookie, len(names))
	for i, n := range names {
		cookies[i] = xproto.InternAtom(s.conn, false, uint16(len(n)), n)
	}
	got := make([]xproto.Atom, len(names))
	for i, ck := range cookies {
		r, err := ck.Reply()
		if err != nil {
			return fmt.Errorf("intern %s: %w", names[i], err)
		}
		got[i] = r.Atom
	}
	s.atoms = selectionAtoms{clipboard: got[0], primary: got[1], targets: got[2], utf8: got[3],
		text: got[4], incr: got[5], prop: got[6], stamp: got[7]}
	win, err := xproto.NewWindowId(s.conn)
	if err != nil {
		return err
	}
	screen := xproto.Setup(s.conn).DefaultScreen(s.conn)
	if err := xproto.CreateWindowChecked(s.conn, 0, win, screen.Root, -10, -10, 1, 1, 0,
		xproto.WindowClassInputOnly, 0, xproto.CwEventMask,
		[]uint32{xproto.EventMaskPropertyChange}).Check(); err != nil {
		return fmt.Errorf("create window: %w", err)
	}
	s.win = win
	return nil
}

// loop answers selection requests and hands answers to waiting calls.
func (s *selectionOwner) loop() {
	defer close(s.done)
	for {
		ev, xerr := s.conn.WaitForEvent()
		if ev == nil && xerr == nil {
			return
		}
		switch e := ev.(type) {
		case xproto.SelectionRequestEvent:
			s.serve(e)
		case xproto.SelectionClearEvent:
			s.mu.Lock()
			delete(s.content, e.Selection)
			s.mu.Unlock()
		case xproto.SelectionNotifyEvent:
			offer(s.notify, e)
		case xproto.PropertyNotifyEvent:
			if e.Window == s.win && e.Atom == s.atoms.stamp {
				offer(s.stamps, e.Time)
			}
		}
	}
}

// offer sends v unless the channel is full (nobody waits for it then).
func offer[T any](ch chan T, v T) {
	select {
	case ch <- v:
	default:
	}
}

// serve answers one request for a selection we own: TARGETS, or the text as
// UTF8_STRING, TEXT or (Latin-1 only) STRING. Anything else is refused.
func (s *selectionOwner) serve(e xproto.SelectionRequestEvent) {
	prop := e.Property
	if prop == xproto.AtomNone {
		prop = e.Target // an obsolete requestor (ICCCM 2.2)
	}
	s.mu.Lock()
	text, ok := s.content[e.Selection]
	s.mu.Unlock()
	answer := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection,
		Target: e.Target, Property: xproto.AtomNone}
	isText := false
	switch {
	case !ok:
	case e.Target == s.atoms.targets:
		list := []xproto.Atom{s.atoms.targets, s.atoms.utf8, s.atoms.text, xproto.AtomString}
		data := make([]byte, 4*len(list))
		for i, a := range list {
			xgb.Put32(data[4*i:], uint32(a))
		}
		xproto.ChangeProperty(s.conn, xproto.PropModeReplace, e.Requestor, prop, xproto.AtomAtom, 32, uint32(len(list)), data)
		answer.Property = prop
	case e.Target == s.atoms.utf8 || e.Target == s.atoms.text:
		xproto.ChangeProperty(s.conn, xproto.PropModeReplace, e.Requestor, prop, s.atoms.utf8, 8, uint32(len(text)), []byte(text))
		answer.Property, isText = prop, true
	case e.Target == xproto.AtomString:
		if l, ok := latin1(text); ok {
			xproto.ChangeProperty(s.conn, xproto.PropModeReplace, e.Requestor, prop, xproto.AtomString, 8, uint32(len(l)), l)
			answer.Property, isText = prop, true
		}
	}
	xproto.SendEvent(s.conn, false, e.Requestor, 0, string(answer.Bytes()))
	if isText {
		offer(s.served, struct{}{})
	}
}

// latin1 encodes text in ISO 8859-1, which STRING is; false when it cannot.
func latin1(text string) ([]byte, bool) {
	out := make([]byte, 0, len(text))
	for _, r := range text {
		if r > 0xff {
			return nil, false
		}
		out = append(out, byte(r))
	}
	return out, true
}

// held is what a selection held before a paste.
type held struct {
	text    string
	restore bool // text is what it held (false: it held nothing, or not text)
}

// paste puts text in CLIPBOARD and PRIMARY, calls press (which presses the
// paste key), waits until the focused window has asked for the text, and
// gives both selections back what they held.
func (s *selectionOwner) paste(ctx context.Context, text string, press func() error) error {
	if len(text) > maxPasteBytes {
		return fmt.Errorf("the text is %d bytes, more than the %d that can be pasted at once: type it in parts", len(text), maxPasteBytes)
	}
	ts, err := s.timestamp(ctx)
	if err != nil {
		return err
	}
	sels := []xproto.Atom{s.atoms.clipboard, s.atoms.primary}
	before := make([]held, len(sels))
	for i, sel := range sels {
		before[i] = s.read(ctx, sel, ts)
	}
	s.mu.Lock()
	for _, sel := range sels {
		s.content[sel] = text
	}
	s.mu.Unlock()
	defer s.giveBack(sels, before)
	for _, sel := range sels {
		xproto.SetSelectionOwner(s.conn, s.win, sel, ts)
	}
	if o, err := xproto.GetSelectionOwner(s.conn, s.atoms.clipboard).Reply(); err != nil || o.Owner != s.win {
		return errors.New("could not take over the clipboard to paste")
	}
	select { // forget a request served before this paste
	case <-s.served:
	default:
	}
	if err := press(); err != nil {
		return err
	}
	t := time.NewTimer(pasteTimeout)
	defer t.Stop()
	select {
	case <-s.served:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return errors.New("the X connection of the clipboard closed")
	case <-t.C:
		return fmt.Errorf("the focused window did not ask for the text within %v after Shift+Insert: nothing was typed (click into a text field first; a program without Shift+Insert paste cannot be typed into with non-ASCII text on this backend)", pasteTimeout)
	}
}

// giveBack restores what the selections held before a paste.
func (s *selectionOwner) giveBack(sels []xproto.Atom, before []held) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, sel := range sels {
		if before[i].restore {
			s.content[sel] = before[i].text
			continue
		}
		delete(s.content, sel)
		xproto.SetSelectionOwner(s.conn, xproto.WindowNone, sel, xproto.TimeCurrentTime)
	}
}

// read returns the text selection sel holds, asking its owner.
func (s *selectionOwner) read(ctx context.Context, sel xproto.Atom, ts xproto.Timestamp) held {
	o, err := xproto.GetSelectionOwner(s.conn, sel).Reply()
	if err != nil || o.Owner == xproto.WindowNone {
		return held{}
	}
	if o.Owner == s.win {
		s.mu.Lock()
		defer s.mu.Unlock()
		text, ok := s.content[sel]
		return held{text: text, restore: ok}
	}
	select { // a late answer to an earlier conversion
	case <-s.notify:
	default:
	}
	xproto.ConvertSelection(s.conn, s.win, sel, s.atoms.utf8, s.atoms.prop, ts)
	t := time.NewTimer(selectionTimeout)
	defer t.Stop()
	for {
		select {
		case e := <-s.notify:
			if e.Selection != sel {
				continue
			}
			if e.Property == xproto.AtomNone {
				return held{}
			}
			return s.readProperty()
		case <-ctx.Done():
			return held{}
		case <-t.C:
			return held{}
		}
	}
}

// readProperty reads and deletes the converted text on our window.
func (s *selectionOwner) readProperty() held {
	p, err := xproto.GetProperty(s.conn, true, s.win, s.atoms.prop, xproto.GetPropertyTypeAny, 0, maxPasteBytes/4).Reply()
	if err != nil || p.Type == s.atoms.incr || p.Format != 8 || p.BytesAfter > 0 || !utf8.Valid(p.Value) {
		return held{}
	}
	return held{text: string(p.Value), restore: true}
}

// timestamp returns the server's current time, from a property change on our
// window (ICCCM: never own a selection with CurrentTime).
func (s *selectionOwner) timestamp(ctx context.Context) (xproto.Timestamp, error) {
	select {
	case <-s.stamps:
	default:
	}
	xproto.ChangeProperty(s.conn, xproto.PropModeAppend, s.win, s.atoms.stamp, xproto.AtomString, 8, 0, nil)
	t := time.NewTimer(selectionTimeout)
	defer t.Stop()
	select {
	case ts := <-s.stamps:
		return ts, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-t.C:
		return 0, errors.New("the X server did not answer a property change")
	}
}

// close stops serving; what the selections held is gone with the connection.
func (s *selectionOwner) close() {
	xconn.Close(s.conn)
}
