package app

import (
	"context"
	"fmt"
	"image"
	"time"

	"fyne.io/fyne/v2"
)

// recentActions is how many of the agent's last pointer actions the strip
// keeps clear of.
const recentActions = 4

// actionRadius is the half-size, in px, of the square around an action's
// point the strip keeps clear of.
const actionRadius = 48

// setCompact switches between the full window and the strip; on X11 the strip
// goes to a corner and stays above other windows (see placer).
func (u *UI) setCompact(on bool) { u.compactThen(on, nil) }

// compactThen is setCompact that calls then, on the Fyne goroutine, once the strip
// is in place: at once when there is nothing to wait for, later when the window
// manager moves the window.
func (u *UI) compactThen(on bool, then func()) {
	if then == nil {
		then = func() {}
	}
	if on == u.compact {
		then()
		return
	}
	u.compact = on
	if on {
		u.bigSize = u.win.Canvas().Size()
		if p := u.firstPrompt(); p != nil && p.dlg != nil {
			d := p.dlg
			p.dlg = nil // the dialog's callback then ignores the Hide
			d.Hide()
			u.st.setPrompt(p)
		}
		u.st.refresh()
		u.setContent(u.st.content)
		size := u.stripSize()
		u.win.Resize(size)
		if !u.place.toStrip(u.win, size, u.keepOut(), true, func(placement) { u.do(then) }) {
			then()
		}
		return
	}
	defer then()
	u.st.setPrompt(nil)
	size := u.bigSize
	if size.Width < 400 || size.Height < 300 {
		size = fyne.NewSize(fullWidth, fullHeight)
	}
	// Resize first: setting the bigger content first makes the driver queue a grow
	// to the content's minimum size, which would land after (and undo) the resize.
	u.win.Resize(size)
	u.setContent(u.tabs)
	u.place.toFull(u.win)
	switch p := u.firstPrompt(); {
	case p != nil:
		p.dlg = u.promptDialog(p)
	case u.run == nil && u.tabs.Selected() == u.runTab:
		u.win.Canvas().Focus(u.rv.task) // ready for the next task
	case u.run != nil:
		u.win.Canvas().Unfocus() // so Esc reaches the window: back to the strip
	}
	u.rv.scrollToEnd()
}

// firstPrompt is the prompt on the screen, or nil.
func (u *UI) firstPrompt() *prompt {
	if len(u.prompts) == 0 {
		return nil
	}
	return u.prompts[0]
}

// stripSize is the size the strip's content needs.
func (u *UI) stripSize() fyne.Size {
	min := u.st.content.MinSize()
	return fyne.NewSize(max(stripWidth, min.Width), min.Height)
}

// fitStrip resizes the strip to its content (a prompt or a note came or went)
// and puts it back in its corner. The toolkit keeps the window's old minimum
// size until it has drawn the smaller content, so a shrink is tried again a
// moment later.
func (u *UI) fitStrip() {
	if !u.compact {
		return
	}
	size := u.stripSize()
	if size == u.win.Canvas().Size() {
		return
	}
	u.win.Resize(size)
	u.place.toStrip(u.win, size, u.keepOut(), true, nil)
	if size.Height < u.win.Canvas().Size().Height && !u.refitting {
		u.refitting = true
		time.AfterFunc(refitDelay, func() {
			u.do(func() {
				u.refitting = false
				u.fitStrip()
			})
		})
	}
}

// refitDelay is when a strip that did not shrink is resized again: after the
// toolkit has drawn a frame of the smaller content.
const refitDelay = 250 * time.Millisecond

// keepOut is what the strip should leave free, as far as the UI knows: the
// points of the agent's last actions. The placer adds the pointer and the
// window the agent works in.
func (u *UI) keepOut() []keepOut {
	var out []keepOut
	for _, p := range u.recent {
		out = append(out, keepOut{r: around(p, actionRadius), weight: weightAction})
	}
	return out
}

// noteAction remembers where an action of the agent happened.
func (u *UI) noteAction(pts ...image.Point) {
	u.recent = append(u.recent, pts...)
	if n := len(u.recent); n > recentActions {
		u.recent = append(u.recent[:0], u.recent[n-recentActions:]...)
	}
}

// keepClear moves the strip to another corner when it covers the pointer, the
// agent's last actions or the window it works in, and tells the person.
func (u *UI) keepClear() {
	if !u.compact || u.run == nil {
		return
	}
	u.place.toStrip(u.win, u.stripSize(), u.keepOut(), false, func(pl placement) {
		u.do(func() { u.movedNote(pl, "") })
	})
}

// movedNote tells the person that the strip moved, and why.
func (u *UI) movedNote(pl placement, why string) {
	if !pl.moved || pl.first || pl.from == pl.corner || !u.compact {
		return
	}
	if why == "" {
		why = "out of the agent's way"
	}
	u.st.showNote(fmt.Sprintf("Moved to the %s corner %s.", pl.corner, why))
}

// makeRoom is the MakeRoom hook: the agent is about to act at p (root
// coordinates) inside the strip. The strip moves to a corner clear of p; it
// returns once it has moved, reporting whether it did. Safe from any goroutine.
func (u *UI) makeRoom(ctx context.Context, p image.Point) bool {
	moved := make(chan bool, 1)
	u.do(func() {
		if !u.compact {
			moved <- false
			return
		}
		keep := append(u.keepOut(), keepOut{r: around(p, actionRadius), weight: weightTarget})
		ok := u.place.toStrip(u.win, u.stripSize(), keep, true, func(pl placement) {
			moved <- pl.moved
			u.do(func() { u.movedNote(pl, fmt.Sprintf("so the agent can act at (%d, %d)", p.X, p.Y)) })
		})
		if !ok {
			moved <- false
		}
	})
	select {
	case ok := <-moved:
		return ok
	case <-ctx.Done():
		return false
	}
}
