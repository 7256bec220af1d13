package dialect

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"deskpilot/actions"
	"deskpilot/vision"
)

// op is what one model action does, in the terms of deskpilot's builtins.
type op int

const (
	opClick       op = iota // click(at)
	opDoubleClick           // double_click(at)
	opTripleClick           // double_click(at) then click(at)
	opRightClick            // right_click(at)
	opMiddleClick           // click(at, button="middle")
	opMove                  // move(at)
	opDrag                  // drag(at, to)
	opScroll                // scroll(at, direction, amount)
	opType                  // type_text(text)
	opKey                   // press(combo)
	opKeyDown               // hold a key until opKeyUp (see heldKeys)
	opKeyUp                 // release a key held by opKeyDown
	opWait                  // wait(seconds)
	opFinish                // final_answer(text)
	opAsk                   // print(ask_user(text))
	opMouseDown             // press the left button at at: paired with opMouseUp into a drag, else mouse_down(at)
	opMouseUp               // release it at at: drag(down point, at), or mouse_up(at) when it went down in an earlier reply
	opZoom                  // zoom(at, to): the region between two corners, full resolution
	opCursor                // print the pointer position
	opHold                  // hold(combo, secs)
	opNote                  // print(text): what the model wants remembered
	opVisit                 // print(visit_page(text))
	opSearch                // print(web_search(text))
)

// step is one action of a reply. A nil at means "where the mouse is".
type step struct {
	op     op
	at, to *vision.ModelPoint
	text   string  // opType, opFinish, opAsk
	combo  string  // opKey, opKeyDown, opKeyUp: canonical combo or key
	dir    string  // opScroll: up, down, left, right
	amount int     // opScroll: wheel clicks, 1..maxScroll
	secs   float64 // opWait, opHold
	mods   string  // pointer ops: modifiers held during the action, canonical, "+"-joined ("" = none)
}

// maxScroll is the most wheel clicks one scroll builtin call takes.
const maxScroll = 50

// hereVar holds the pointer position when an action has no point.
const hereVar = "here"

// builtins lists every function a compiled program may call: the agent's
// builtins plus Starlark's print and fail.
func builtins() []string {
	return []string{"click", "double_click", "right_click", "move", "drag", "scroll", "type_text",
		"press", "hold", "wait", "final_answer", "ask_user", "cursor_position", "print", "fail",
		"zoom", "visit_page", "web_search", "mouse_down", "mouse_up"}
}

// compile turns steps into the Starlark program that carries them out. The
// program tracks where the pointer is within the reply, so "click where the
// mouse is" after a move uses that point; at the start of a reply it asks
// cursor_position().
func compile(steps []step) (string, error) {
	c := &compiler{}
	for _, s := range steps {
		if err := c.step(s); err != nil {
			return "", err
		}
		if s.op == opFinish {
			break // final_answer ends the block; later actions never run
		}
	}
	if c.down != nil && c.downMods != "" {
		return "", fmt.Errorf("holding %s while the mouse button stays down for the next reply is not supported: release the button in this reply", c.downMods)
	}
	c.flushDown()
	c.flush()
	if c.p.String() == "" {
		return "", fmt.Errorf("the actions do nothing (empty text, or a scroll of 0)")
	}
	return c.p.String(), nil
}

type compiler struct {
	p    program
	pos  *vision.ModelPoint // the pointer's position after the steps so far; nil = unknown
	here bool               // the program has read cursor_position() into hereVar
	held heldKeys
	down []any // where the left button went down (opMouseDown), as call arguments; nil = up
	// downMods are the modifiers held when it went down; downAt is the
	// model point where (nil = where the pointer was), downMoved whether
	// moves followed it.
	downMods  string
	downAt    *vision.ModelPoint
	downMoved bool
}

// flushDown ends a reply whose left button is still down: it is pressed with
// mouse_down and stays down for the next reply (its left_mouse_up), the
// moves after it as one move (a drag in progress).
func (c *compiler) flushDown() {
	if c.down == nil {
		return
	}
	c.p.call("mouse_down", c.down...)
	if c.downMoved && c.pos != nil {
		c.p.call("move", c.pos.X, c.pos.Y)
	}
	c.down = nil
}

// withMods appends the modifiers argument to a pointer builtin's arguments.
func withMods(args []any, mods string) []any {
	if mods == "" {
		return args
	}
	return append(args, kw{"modifiers", mods})
}

// modifiers joins the step's modifiers with the keys held by opKeyDown,
// which are then used (not tapped at the end).
func (c *compiler) modifiers(s step) (string, error) {
	keys := append([]string(nil), c.held.keys...)
	if s.mods != "" {
		keys = append(keys, strings.Split(s.mods, "+")...)
	}
	if len(keys) == 0 {
		return "", nil
	}
	var mods []string
	for _, k := range keys {
		if !actions.IsModifier(k) {
			return "", fmt.Errorf("holding %s during a mouse action is not supported: only ctrl, alt, shift and super can be held; release it first",
				strings.Join(keys, "+"))
		}
		if !slices.Contains(mods, k) {
			mods = append(mods, k)
		}
	}
	if c.held.any() {
		c.held.used = true
	}
	m, err := actions.ParseCombo(strings.Join(mods, "+"))
	if err != nil {
		return "", err
	}
	return m.String(), nil
}

// point returns the arguments naming s.at, or the pointer's position.
func (c *compiler) point(at *vision.ModelPoint) []any {
	if at == nil {
		at = c.pos
	}
	if at != nil {
		return []any{at.X, at.Y}
	}
	if !c.here {
		c.p.line(hereVar + " = cursor_position()")
		c.p.line("if " + hereVar + " == None:")
		c.p.line(`    fail("the mouse pointer is not on this screen; give the action a point")`)
		c.here = true
	}
	return []any{expr(hereVar + "[0]"), expr(hereVar + "[1]")}
}

func (c *compiler) moved(at *vision.ModelPoint) {
	if at != nil {
		p := *at
		c.pos = &p
	}
}

func (c *compiler) step(s step) error {
	if err := c.checkHeld(s); err != nil {
		return err
	}
	if c.down != nil && s.op != opMove && s.op != opMouseUp && s.op != opWait {
		return fmt.Errorf("only moves may come between pressing the mouse button and releasing it")
	}
	if c.down != nil && s.op == opMove {
		c.moved(s.at) // the drag goes on: only its end point counts
		c.downMoved = true
		return nil
	}
	if c.down != nil && s.op == opWait {
		return nil
	}
	mods := ""
	switch s.op {
	case opClick, opDoubleClick, opRightClick, opMiddleClick, opTripleClick, opMove, opDrag, opScroll, opMouseDown, opMouseUp:
		m, err := c.modifiers(s)
		if err != nil {
			return err
		}
		mods = m
	}
	switch s.op {
	case opClick, opDoubleClick, opRightClick, opMiddleClick, opTripleClick, opMove:
		args := c.point(s.at)
		switch s.op {
		case opClick:
			c.p.call("click", withMods(args, mods)...)
		case opDoubleClick:
			c.p.call("double_click", withMods(args, mods)...)
		case opTripleClick:
			// No builtin clicks three times; a click right after a double
			// click at the same point counts as the third click in X
			// toolkits (within the double-click time).
			c.p.call("double_click", withMods(args, mods)...)
			c.p.call("click", withMods(args, mods)...)
		case opRightClick:
			c.p.call("right_click", withMods(args, mods)...)
		case opMiddleClick:
			c.p.call("click", withMods(append(args, kw{"button", "middle"}), mods)...)
		case opMove:
			c.p.call("move", withMods(args, mods)...)
		}
		c.moved(s.at)
	case opDrag:
		from := c.point(s.at)
		c.p.call("drag", withMods(append(from, s.to.X, s.to.Y), mods)...)
		c.moved(s.to)
	case opScroll:
		args := c.point(s.at)
		c.p.call("scroll", withMods(append(args, kw{"direction", s.dir}, kw{"amount", s.amount}), mods)...)
		c.moved(s.at)
	case opType:
		c.p.call("type_text", s.text)
	case opKey:
		c.press(s.combo)
	case opKeyDown:
		c.held.down(s.combo)
	case opKeyUp:
		if k := c.held.up(s.combo); k != "" {
			c.p.call("press", k)
		}
	case opWait:
		if c.held.any() {
			c.p.call("hold", c.held.combo(""), s.secs)
			c.held.used = true
			break
		}
		c.p.call("wait", s.secs)
	case opMouseDown:
		if c.down != nil {
			return fmt.Errorf("the mouse button is already down")
		}
		c.down, c.downMods, c.downAt, c.downMoved = c.point(s.at), mods, s.at, false
		c.moved(s.at)
	case opMouseUp:
		to := c.point(s.at)
		if c.down == nil {
			// Pressed in an earlier reply: the input still holds it.
			if mods != "" {
				return fmt.Errorf("holding %s while releasing a button pressed in an earlier reply is not supported", mods)
			}
			c.p.call("mouse_up", to...)
			c.moved(s.at)
			break
		}
		m := c.downMods
		if m == "" {
			m = mods
		}
		if s.at == nil && !c.downMoved || s.at != nil && c.downAt != nil && *s.at == *c.downAt && !c.downMoved {
			c.p.call("click", withMods(c.down, m)...) // down and up in place
		} else {
			c.p.call("drag", withMods(append(c.down, to...), m)...)
		}
		c.down = nil
		c.moved(s.at)
	case opZoom:
		c.p.call("zoom", s.at.X, s.at.Y, s.to.X, s.to.Y)
	case opCursor:
		c.p.call("print", "The mouse pointer is at", expr("cursor_position()"))
	case opHold:
		c.p.call("hold", s.combo, s.secs)
	case opNote:
		c.p.call("print", "Noted: "+s.text)
	case opVisit:
		c.p.call("print", expr("visit_page("+quote(s.text)+")"))
	case opSearch:
		c.p.call("print", expr("web_search("+quote(s.text)+")"))
	case opFinish:
		c.flush()
		c.p.call("final_answer", s.text)
	case opAsk:
		c.flush()
		c.p.call("print", "The person answered:", expr("ask_user("+quote(s.text)+")"))
	}
	return nil
}

// press presses a combo together with any modifiers held by opKeyDown.
func (c *compiler) press(k string) {
	if c.held.any() {
		k = c.held.combo(k)
		c.held.used = true
	}
	c.p.call("press", k)
}

// checkHeld refuses what the builtins cannot do while a key is held down.
func (c *compiler) checkHeld(s step) error {
	if !c.held.any() {
		return nil
	}
	switch s.op {
	case opKey, opKeyDown, opKeyUp, opWait, opFinish, opAsk, opCursor, opNote:
		return nil
	case opClick, opDoubleClick, opRightClick, opMiddleClick, opTripleClick, opMove, opDrag, opScroll, opMouseDown, opMouseUp:
		return nil // held modifiers are held during the action (modifiers)
	}
	return fmt.Errorf("holding %s while typing is not supported; release it first, or use a key combination such as hotkey(key='ctrl a')",
		strings.Join(c.held.keys, "+"))
}

// flush taps keys still held at the end (a press(key='x') alone is a tap).
func (c *compiler) flush() {
	if c.held.any() && !c.held.used {
		c.p.call("press", c.held.combo(""))
	}
	c.held = heldKeys{}
}

// heldKeys approximates key-down/key-up pairs with the builtins, which
// press and release within one call: keys held down combine with the keys
// pressed while they are held ("ctrl" held + "c" = press("ctrl+c")); a wait
// while held is hold(keys, seconds); a key released before anything used it
// is a tap. Every key is released by the end of the step.
type heldKeys struct {
	keys []string // canonical names, in the order pressed
	used bool     // some action combined with the held keys
}

func (h *heldKeys) any() bool { return len(h.keys) > 0 }

func (h *heldKeys) down(k string) {
	if !slices.Contains(h.keys, k) {
		h.keys = append(h.keys, k)
	}
}

// up releases k; it returns the combo to tap when nothing used the held
// keys, else "".
func (h *heldKeys) up(k string) string {
	i := slices.Index(h.keys, k)
	if i < 0 {
		return "" // never held here: the builtins released it already
	}
	tap := ""
	if !h.used {
		tap = h.combo("")
	}
	h.keys = slices.Delete(h.keys, i, i+1)
	if len(h.keys) == 0 || tap != "" {
		*h = heldKeys{}
	}
	return tap
}

// combo joins the held keys with k ("" = the held keys alone) in canonical
// order; a combination the builtins cannot press falls back to k alone.
func (h *heldKeys) combo(k string) string {
	keys := append([]string(nil), h.keys...)
	if k != "" {
		keys = append(keys, strings.Split(k, "+")...)
	}
	c, err := combo(keys)
	if err != nil {
		return k
	}
	return c
}

// scrollClicks converts a scroll distance in pixels (Qwen's computer_use
// tool) to wheel clicks: one click per 50 pixels, at least one. A wheel click
// moves about three lines of text, 50-60 pixels in GTK and browsers.
func scrollClicks(pixels float64) (int, error) {
	n := int(math.Round(math.Abs(pixels) / 50))
	n = max(n, 1)
	if n > maxScroll || math.IsNaN(pixels) || math.IsInf(pixels, 0) {
		return 0, fmt.Errorf("scroll of %g pixels is too far for one action: scroll at most %d pixels, then look again", pixels, maxScroll*50)
	}
	return n, nil
}
