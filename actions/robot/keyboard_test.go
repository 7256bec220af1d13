//go:build linux

package robot

import (
	"context"
	"errors"
	"image"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"deskpilot/actions"
)

// X modifier state bits as the target logs them.
const (
	shiftMask   = xproto.ModMaskShift
	lockMask    = xproto.ModMaskLock
	controlMask = xproto.ModMaskControl
	mod1Mask    = xproto.ModMask1 // alt
	mod4Mask    = xproto.ModMask4 // super
)

func TestType(t *testing.T) {
	long := make([]byte, 2000)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range long {
		long[i] = byte(' ' + rng.IntN(0x7f-' '))
	}
	tests := []struct {
		name, text, want string
	}{
		{"unicode", "Grüße, 東京 ✓", "Grüße, 東京 ✓"},
		{"ascii 2000", string(long), string(long)},
		{"lines and tabs", "line one\nline two\r\n\tend\rlast", "line one\nline two\n\tend\nlast"},
		{"latin1 and symbols", "naïve café — 100 € ± ½ «ok» ¿sí?", "naïve café — 100 € ± ½ «ok» ¿sí?"},
		{"emoji and scripts", "Привет مرحبا שלום 😀 𝄞", "Привет مرحبا שלום 😀 𝄞"},
		{"empty", "", ""},
	}
	tg := startTarget(t)
	tg.focusText()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg.clearText()
			if err := tg.r.Type(t.Context(), tt.text); err != nil {
				t.Fatal(err)
			}
			if got := tg.dump(); got != tt.want {
				t.Errorf("typed %q\narrived %q", clipText(tt.want), clipText(got))
			}
		})
	}
}

// TestTypeManyDistinct types more distinct characters outside the keymap
// than there are spare keycodes, so keycodes get reused.
func TestTypeManyDistinct(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		b.WriteRune(rune(0x4e00 + i*7)) // CJK ideographs
		if i%10 == 9 {
			b.WriteString(" ")
		}
	}
	text := b.String()
	tg := startTarget(t)
	tg.focusText()
	for i := range 2 { // the second round reuses what the first mapped
		if err := tg.r.Type(t.Context(), text); err != nil {
			t.Fatal(err)
		}
		if got, want := tg.dump(), strings.Repeat(text, i+1); got != want {
			t.Fatalf("round %d: typed %q\narrived %q", i, want, got)
		}
	}
}

func TestTypeCapsLock(t *testing.T) {
	tg := startTarget(t)
	tg.focusText()
	caps := combo(t, "capslock")
	if err := tg.r.Press(t.Context(), caps); err != nil {
		t.Fatal(err)
	}
	if serverState(t)&lockMask == 0 {
		t.Fatal("caps lock did not turn on")
	}
	if err := tg.r.Type(t.Context(), "Hello Wörld"); err != nil {
		t.Fatal(err)
	}
	if serverState(t)&lockMask == 0 {
		t.Error("caps lock is off after Type, want it restored")
	}
	if err := tg.r.Press(t.Context(), caps); err != nil {
		t.Fatal(err)
	}
	if got := tg.dump(); got != "Hello Wörld" {
		t.Errorf("typed with caps lock on: arrived %q, want %q", got, "Hello Wörld")
	}
}

func TestTypeRefusesControlCharacters(t *testing.T) {
	tg := startTarget(t)
	tg.focusText()
	for _, text := range []string{"ab\x00cd", "bell\a", "esc\x1b[1m", "\x7f", "bad \xff utf8"} {
		if err := tg.r.Type(t.Context(), text); err == nil {
			t.Errorf("Type(%q) = nil, want an error", text)
		}
	}
	if got := tg.dump(); got != "" {
		t.Errorf("refused texts still typed %q", got)
	}
}

func TestTypeCancelled(t *testing.T) {
	tg := startTarget(t)
	tg.focusText()
	ctx, cancel := context.WithCancel(t.Context())
	text := strings.Repeat("Ü", 30) // one keycode, nothing to settle
	done := make(chan error, 1)
	go func() {
		for {
			if err := tg.r.Type(ctx, text); err != nil {
				done <- err
				return
			}
		}
	}()
	tg.next("a typed character", func(e event) bool { return e.Ev == "key" && e.Char == "Ü" })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Type after cancel = %v, want context.Canceled", err)
	}
	if s := serverState(t); s&(shiftMask|controlMask) != 0 {
		t.Errorf("modifiers still down after a cancelled Type (state %#x)", s)
	}
}

func TestPress(t *testing.T) {
	tests := []struct {
		combo  string
		keysym string // as Tk names it
		mods   uint16 // must be in the state; other modifiers must not
	}{
		{"shift+a", "A", shiftMask},
		{"b", "b", 0},
		{"ctrl+shift+t", "T", controlMask | shiftMask},
		{"enter", "Return", 0},
		{"Return", "Return", 0},
		{"f5", "F5", 0},
		{"f13", "F13", 0}, // not in Xvfb's keymap: a borrowed keycode
		{"?", "question", shiftMask},
		{"ctrl+plus", "plus", controlMask | shiftMask},
		{"alt+x", "x", mod1Mask},
		{"super+x", "x", mod4Mask},
		{"escape", "Escape", 0},
		{"pagedown", "Next", 0},
		{"left", "Left", 0},
		{"ctrl+-", "minus", controlMask},
	}
	tg := startTarget(t)
	tg.focusText()
	const anyMod = shiftMask | controlMask | mod1Mask | mod4Mask
	for _, tt := range tests {
		t.Run(tt.combo, func(t *testing.T) {
			if err := tg.r.Press(t.Context(), combo(t, tt.combo)); err != nil {
				t.Fatal(err)
			}
			e := tg.next("key "+tt.keysym, func(e event) bool { return e.Ev == "key" && e.Keysym == tt.keysym })
			if uint16(e.State)&anyMod != tt.mods {
				t.Errorf("%s arrived as %v, want modifiers %#x", tt.combo, e, tt.mods)
			}
			tg.next("release of "+tt.keysym, func(e event) bool { return e.Ev == "keyup" && e.Keysym == tt.keysym })
		})
	}
	t.Run("ctrl+c", func(t *testing.T) {
		if err := tg.r.Press(t.Context(), combo(t, "ctrl+c")); err != nil {
			t.Fatal(err)
		}
		tg.next("the copy shortcut", func(e event) bool { return e.Ev == "copy" })
	})
	t.Run("ctrl+d", func(t *testing.T) {
		tg.clearText()
		if err := tg.r.Type(t.Context(), "dump me"); err != nil {
			t.Fatal(err)
		}
		if got := tg.dump(); got != "dump me" {
			t.Errorf("ctrl+d dumped %q", got)
		}
	})
	if s := serverState(t); s&anyMod != 0 {
		t.Errorf("modifiers still down after the presses (state %#x)", s)
	}
}

func TestPressAliasCombo(t *testing.T) {
	tg := startTarget(t)
	tg.focusText()
	// a hand-built Combo with aliases and modifiers out of order is normalized
	c := actions.Combo{Mods: []string{"Shift", "control"}, Key: "Page_Up"}
	if err := tg.r.Press(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	e := tg.next("Prior", func(e event) bool { return e.Ev == "key" && e.Keysym == "Prior" })
	if uint16(e.State)&(controlMask|shiftMask) != controlMask|shiftMask {
		t.Errorf("arrived as %v, want ctrl+shift", e)
	}
	if err := tg.r.Press(t.Context(), actions.Combo{Key: "nosuchkey"}); err == nil {
		t.Error("Press of an unknown key = nil, want an error")
	}
}

func TestHold(t *testing.T) {
	tg := startTarget(t)
	tg.focusText()
	t.Run("for a duration", func(t *testing.T) {
		if err := tg.r.Hold(t.Context(), combo(t, "shift"), 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		tg.next("Shift_L down", func(e event) bool { return e.Ev == "key" && e.Keysym == "Shift_L" })
		tg.next("Shift_L up", func(e event) bool { return e.Ev == "keyup" && e.Keysym == "Shift_L" })
	})
	t.Run("click while held", func(t *testing.T) {
		done := make(chan error, 1)
		go func() { done <- tg.r.Hold(t.Context(), combo(t, "ctrl"), 300*time.Millisecond) }()
		tg.next("Control_L down", func(e event) bool { return e.Ev == "key" && e.Keysym == "Control_L" })
		p := tg.center("btn_c")
		if err := tg.r.Click(t.Context(), p, actions.Left, 1); err != nil {
			t.Fatal(err)
		}
		e := tg.next("the press", func(e event) bool { return e.Ev == "press" })
		if e.W != "btn_c" || uint16(e.State)&controlMask == 0 {
			t.Errorf("click during hold arrived as %v, want a ctrl+click on btn_c", e)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		tg.next("Control_L up", func(e event) bool { return e.Ev == "keyup" && e.Keysym == "Control_L" })
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- tg.r.Hold(ctx, combo(t, "ctrl+shift"), time.Hour) }()
		tg.next("Shift_L down", func(e event) bool { return e.Ev == "key" && e.Keysym == "Shift_L" })
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Hold after cancel = %v, want context.Canceled", err)
		}
		tg.next("Shift_L up", func(e event) bool { return e.Ev == "keyup" && e.Keysym == "Shift_L" })
		tg.next("Control_L up", func(e event) bool { return e.Ev == "keyup" && e.Keysym == "Control_L" })
		if s := serverState(t); s&(shiftMask|controlMask) != 0 {
			t.Errorf("modifiers still down after a cancelled hold (state %#x)", s)
		}
	})
	t.Run("negative", func(t *testing.T) {
		if err := tg.r.Hold(t.Context(), combo(t, "a"), -time.Second); err == nil {
			t.Error("Hold for a negative duration = nil, want an error")
		}
	})
}

func TestReleaseAll(t *testing.T) {
	tg := startTarget(t)
	tg.focusText()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- tg.r.Hold(ctx, combo(t, "alt+shift"), time.Hour) }()
	tg.next("Shift_L down", func(e event) bool { return e.Ev == "key" && e.Keysym == "Shift_L" })
	if s := serverState(t); s&(shiftMask|mod1Mask) != shiftMask|mod1Mask {
		t.Fatalf("server state %#x while holding alt+shift", s)
	}
	if err := tg.r.ReleaseAll(); err != nil {
		t.Fatal(err)
	}
	tg.next("Shift_L up", func(e event) bool { return e.Ev == "keyup" && e.Keysym == "Shift_L" })
	if s := serverState(t); s&(shiftMask|mod1Mask) != 0 {
		t.Errorf("modifiers still down after ReleaseAll (state %#x)", s)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Hold = %v, want context.Canceled", err)
	}
}

// clearText empties the text box: select all, delete.
func (tg *target) clearText() {
	tg.t.Helper()
	ctx := tg.t.Context()
	for _, c := range []string{"ctrl+/", "delete"} {
		if err := tg.r.Press(ctx, combo(tg.t, c)); err != nil {
			tg.t.Fatal(err)
		}
	}
	if got := tg.dump(); got != "" {
		tg.t.Fatalf("text box not empty after clearing: %q", got)
	}
}

func clipText(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:100]) + "…" + string(r[len(r)-100:])
	}
	return s
}

// Keys and buttons a killed client left down are released by ReleaseStuck.
func TestReleaseStuck(t *testing.T) {
	dead, err := New("", image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := dead.fetchKeymap()
	if err != nil {
		t.Fatal(err)
	}
	shift, _, ok := m.find(0xffe1) // Shift_L
	if !ok {
		t.Fatal("no Shift_L key here")
	}
	xtest.FakeInput(dead.conn, keyPress, byte(shift), 0, dead.root, 0, 0, 0)
	xtest.FakeInput(dead.conn, buttonPress, 1, 0, dead.root, 0, 0, 0)
	if err := dead.sync(); err != nil {
		t.Fatal(err)
	}
	dead.conn.Close() // killed: nothing released
	time.Sleep(200 * time.Millisecond)

	r, err := New("", image.Rectangle{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	down := func() (bool, uint16) {
		km, err := xproto.QueryKeymap(r.conn).Reply()
		if err != nil {
			t.Fatal(err)
		}
		q, err := xproto.QueryPointer(r.conn, r.root).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return km.Keys[shift/8]&(1<<(shift%8)) != 0, q.Mask
	}
	if k, m := down(); !k || m&xproto.KeyButMaskButton1 == 0 {
		t.Fatalf("the killed client's key and button are not down (key %v, mask %#x): the test proves nothing", k, m)
	}
	if err := r.ReleaseStuck(); err != nil {
		t.Fatal(err)
	}
	if k, m := down(); k || m&(xproto.KeyButMaskShift|xproto.KeyButMaskButton1) != 0 {
		t.Errorf("still down after ReleaseStuck: key %v, mask %#x", k, m)
	}
}
