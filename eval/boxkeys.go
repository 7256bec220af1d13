//go:build linux

package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"deskpilot/a11y"
	"deskpilot/eval/checks"
	"deskpilot/internal/xconn"
)

// The keyboard shortcut of OSWorld's Ubuntu snapshot that tasks press:
// Ctrl+Alt+T opens GNOME Terminal (GNOME's media-keys daemon does it there;
// os/13584542 opens a terminal so in its postconfig). openbox's own key
// bindings would start the program as openbox's child, outside the task's
// box, with the harness's home: so the box grabs the key on the display's
// root window over the display's own X connection and starts the terminal in
// the box, as the shortcut daemon does on the snapshot's desktop.
//
// The tasks type into the terminal half a second after the keys
// (os/13584542's postconfig: hotkey, 0.5 s, `stty size`, 0.5 s, Enter), which
// the snapshot's terminal is up for; here its first window takes about a
// second (the server's cold start is 0.3 s of it, and a server started ahead
// exits after 10 s without a window). So the grab freezes the keyboard (a
// synchronous grab): what is typed after the shortcut waits in the X server
// until the new terminal window is the active one and its shell is ready (at
// most terminalWait), and then reaches it, as it would on a desktop where
// the terminal opens at once. Ready is when one more of GNOME Terminal's
// terminals shows text (its shell's prompt) over AT-SPI than before the
// press: keys that reach the window before its shell runs are lost. (While
// the grab holds the keyboard, GTK shows no window of it active nor any
// terminal focused, so the focused terminal is not what is waited for.)

// Keysyms of the shortcut.
const (
	keysymT       = 0x74   // XK_t
	keysymAltL    = 0xffe9 // XK_Alt_L
	keysymNumLock = 0xff7f // XK_Num_Lock
)

// startShortcuts grabs Ctrl+Alt+T on the box's display when GNOME Terminal
// is installed; each press starts gnome-terminal in the box. A display where
// the grab cannot be made (another client holds it) is logged and left
// without the shortcut. The grab ends with the box.
func (b *box) startShortcuts() {
	if !boxHas("gnome-terminal") {
		return
	}
	c, err := b.grabTerminalKey()
	if err != nil {
		b.log.printf("shortcuts: Ctrl+Alt+T (GNOME Terminal) is not available: %v\n", err)
		return
	}
	b.mu.Lock()
	if b.ended {
		b.mu.Unlock()
		closeX(c)
		return
	}
	b.keys = c
	b.mu.Unlock()
	b.log.printf("shortcuts: Ctrl+Alt+T opens GNOME Terminal\n")
	go func() {
		for {
			ev, err := c.WaitForEvent()
			if ev == nil && err == nil {
				return // closed
			}
			if _, ok := ev.(xproto.KeyPressEvent); ok {
				b.openTerminal(c)
			}
		}
	}()
}

// grabTerminalKey connects to the display and grabs T with Control and the
// modifier Alt_L is on, also with Caps Lock and Num Lock on.
func (b *box) grabTerminalKey() (*xgb.Conn, error) {
	c, err := xconn.DialAuth(b.d.Name, b.d.XAuthority)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", b.d.Name, err)
	}
	setup := xproto.Setup(c)
	root := setup.DefaultScreen(c).Root
	first, count := setup.MinKeycode, byte(setup.MaxKeycode-setup.MinKeycode+1)
	km, err := xproto.GetKeyboardMapping(c, first, count).Reply()
	if err != nil {
		closeX(c)
		return nil, fmt.Errorf("keyboard mapping: %w", err)
	}
	codes := func(sym xproto.Keysym) []xproto.Keycode {
		var out []xproto.Keycode
		per := int(km.KeysymsPerKeycode)
		for i := 0; per > 0 && i*per < len(km.Keysyms); i++ {
			for _, s := range km.Keysyms[i*per : min(len(km.Keysyms), (i+1)*per)] {
				if s == sym {
					out = append(out, xproto.Keycode(int(first)+i))
					break
				}
			}
		}
		return out
	}
	mm, err := xproto.GetModifierMapping(c).Reply()
	if err != nil {
		closeX(c)
		return nil, fmt.Errorf("modifier mapping: %w", err)
	}
	modOf := func(sym xproto.Keysym) uint16 {
		keys := codes(sym)
		per := int(mm.KeycodesPerModifier)
		for m := 0; m < 8; m++ {
			for _, k := range mm.Keycodes[m*per : (m+1)*per] {
				for _, want := range keys {
					if k == want && k != 0 {
						return 1 << m
					}
				}
			}
		}
		return 0
	}
	alt, numLock := modOf(keysymAltL), modOf(keysymNumLock)
	ts := codes(keysymT)
	if alt == 0 || len(ts) == 0 {
		closeX(c)
		return nil, errors.New("the keyboard map has no Alt_L modifier or no T key")
	}
	for _, extra := range []uint16{0, xproto.ModMaskLock, numLock, xproto.ModMaskLock | numLock} {
		err := xproto.GrabKeyChecked(c, false, root, xproto.ModMaskControl|alt|extra, ts[0],
			xproto.GrabModeAsync, xproto.GrabModeSync).Check()
		if err != nil {
			closeX(c)
			return nil, fmt.Errorf("grab Ctrl+Alt+T: %w", err)
		}
	}
	return c, nil
}

// terminalWait bounds how long the keyboard stays frozen for a new terminal.
const terminalWait = 10 * time.Second

// openTerminal starts gnome-terminal in the box while the keyboard is frozen
// by the shortcut's grab, waits until a new GNOME Terminal window is the
// active one (or terminalWait passed, or the box closed), then lets the
// keyboard go: the keys typed meanwhile reach that window.
func (b *box) openTerminal(c *xgb.Conn) {
	defer xproto.AllowEvents(c, xproto.AllowAsyncKeyboard, xproto.TimeCurrentTime)
	root := xproto.Setup(c).DefaultScreen(c).Root
	ctx, cancel := context.WithTimeout(context.Background(), terminalWait)
	defer cancel()
	before := terminalWindows(c, root)
	var r checks.A11yReader
	ready := 0
	if b.d.SessionBus != "" {
		if a, err := b.checkEnv("").Accessibility(ctx); err == nil {
			r = a
			defer r.Close()
			ready = shells(ctx, r)
		}
	}
	if _, err := b.launchProc([]string{"gnome-terminal"}); err != nil {
		b.log.printf("shortcuts: Ctrl+Alt+T: %v\n", err)
		return
	}
	for ; ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
		active, err := windowProp32(c, root, "_NET_ACTIVE_WINDOW")
		if err != nil {
			return // the connection closed with the box
		}
		if len(active) == 1 && !slices.Contains(before, active[0]) && slices.Contains(terminalWindows(c, root), active[0]) {
			break
		}
	}
	if r != nil {
		for ; ctx.Err() == nil; time.Sleep(50 * time.Millisecond) {
			if shells(ctx, r) > ready {
				return
			}
		}
	}
	if ctx.Err() != nil {
		b.log.printf("shortcuts: Ctrl+Alt+T: no new GNOME Terminal window was active and ready within %s\n", terminalWait)
	}
}

// shells counts GNOME Terminal's terminals that show text: their shell has
// started and printed its prompt. (While the shortcut's grab holds the
// keyboard no window of it is active, so the focused terminal
// vm_terminal_output reads is not known yet.)
func shells(ctx context.Context, r checks.A11yReader) int {
	els, _, err := r.Elements(ctx, a11y.Query{Role: "terminal"})
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range els {
		if e.App != "gnome-terminal-server" {
			continue
		}
		if text, err := r.Text(ctx, e); err == nil && strings.TrimSpace(text) != "" {
			n++
		}
	}
	return n
}

// terminalWindows lists the client windows of GNOME Terminal (WM_CLASS
// gnome-terminal-server).
func terminalWindows(c *xgb.Conn, root xproto.Window) []uint32 {
	ids, _ := windowProp32(c, root, "_NET_CLIENT_LIST")
	var out []uint32
	for _, id := range ids {
		if cls, err := stringProp(c, xproto.Window(id), "WM_CLASS"); err == nil && strings.Contains(strings.ToLower(cls), "gnome-terminal") {
			out = append(out, id)
		}
	}
	return out
}
