package actions

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseCombo(t *testing.T) {
	tests := []struct {
		in   string
		want Combo
	}{
		{"enter", Combo{Key: "enter"}},
		{"Return", Combo{Key: "enter"}},
		{"ctrl+s", Combo{Mods: []string{"ctrl"}, Key: "s"}},
		{"ctrl+shift+t", Combo{Mods: []string{"ctrl", "shift"}, Key: "t"}},
		{"shift+ctrl+T", Combo{Mods: []string{"ctrl", "shift"}, Key: "t"}},
		{"super+shift+alt+ctrl+x", Combo{Mods: []string{"ctrl", "alt", "shift", "super"}, Key: "x"}},
		{"f5", Combo{Key: "f5"}},
		{"F12", Combo{Key: "f12"}},
		{"f24", Combo{Key: "f24"}},
		{"super", Combo{Key: "super"}},
		{"alt+F4", Combo{Mods: []string{"alt"}, Key: "f4"}},
		{"control+c", Combo{Mods: []string{"ctrl"}, Key: "c"}},
		{"ctl+c", Combo{Mods: []string{"ctrl"}, Key: "c"}},
		{"Control_L+c", Combo{Mods: []string{"ctrl"}, Key: "c"}},
		{"cmd+space", Combo{Mods: []string{"super"}, Key: "space"}},
		{"win+e", Combo{Mods: []string{"super"}, Key: "e"}},
		{"meta+a", Combo{Mods: []string{"super"}, Key: "a"}},
		{"option+tab", Combo{Mods: []string{"alt"}, Key: "tab"}},
		{"esc", Combo{Key: "escape"}},
		{"pgup", Combo{Key: "pageup"}},
		{"Page_Down", Combo{Key: "pagedown"}},
		{"page-up", Combo{Key: "pageup"}},
		{"del", Combo{Key: "delete"}},
		{"BackSpace", Combo{Key: "backspace"}},
		{"ctrl+alt+Delete", Combo{Mods: []string{"ctrl", "alt"}, Key: "delete"}},
		{" ctrl + s ", Combo{Mods: []string{"ctrl"}, Key: "s"}},
		{"+", Combo{Key: "plus"}},
		{"ctrl++", Combo{Mods: []string{"ctrl"}, Key: "plus"}},
		{"ctrl+plus", Combo{Mods: []string{"ctrl"}, Key: "plus"}},
		{"ctrl+-", Combo{Mods: []string{"ctrl"}, Key: "-"}},
		{"ctrl+minus", Combo{Mods: []string{"ctrl"}, Key: "-"}},
		{"ctrl+/", Combo{Mods: []string{"ctrl"}, Key: "/"}},
		{"shift+question", Combo{Mods: []string{"shift"}, Key: "?"}},
		{"shift+ctrl", Combo{Mods: []string{"shift"}, Key: "ctrl"}},
		{"ArrowUp", Combo{Key: "up"}},
		{"7", Combo{Key: "7"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCombo(tt.in)
			if err != nil {
				t.Fatalf("ParseCombo(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseCombo(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
			again, err := ParseCombo(got.String())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("ParseCombo(%q) = %#v, %v; want %#v", got.String(), again, err, got)
			}
		})
	}
}

// anySuggestion marks a case whose suggestion is not checked.
const anySuggestion = "\x00any"

func TestParseComboErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		unknown bool     // *UnknownKeyError rather than *ComboError
		suggest string   // UnknownKeyError.Suggestion; anySuggestion to skip the check
		msg     []string // substrings of the message
	}{
		{name: "empty", in: "", msg: []string{`key combo "": empty`}},
		{name: "blank", in: "   ", msg: []string{"empty", `"ctrl+s"`}},
		{name: "trailing plus", in: "ctrl+", msg: []string{`key combo "ctrl+": missing key after the last "+"`}},
		{name: "leading plus", in: "+s", msg: []string{"part 1 is empty", `"plus"`}},
		{name: "double plus inside", in: "ctrl++s", msg: []string{"part 2 is empty"}},
		{name: "only pluses", in: "++", msg: []string{"part 1 is empty"}},
		{name: "blank part", in: "ctrl+ +s", msg: []string{"part 2 is empty"}},
		{name: "duplicate", in: "ctrl+ctrl+s", msg: []string{`modifier "ctrl" appears twice`}},
		{name: "duplicate alias", in: "ctrl+Control+s", msg: []string{`modifier "ctrl" appears twice`}},
		{name: "duplicate as key", in: "shift+shift", msg: []string{`modifier "shift" appears twice`}},
		{name: "two keys", in: "a+b", msg: []string{`"a" is not a modifier`, "ctrl, alt, shift, super"}},
		{name: "typo", in: "ctrl+entr", unknown: true, suggest: "enter",
			msg: []string{`unknown key "entr" in "ctrl+entr" (did you mean "enter"?)`, "accepted keys: modifiers ctrl, alt, shift, super", "f1-f24", "pagedown"}},
		{name: "transposition", in: "escpae", unknown: true, suggest: "escape", msg: []string{`unknown key "escpae" (did you mean "escape"?)`}},
		{name: "alias typo", in: "contrl+a", unknown: true, suggest: "ctrl"},
		{name: "dash separator", in: "ctrl-s", unknown: true, suggest: "ctrl+s", msg: []string{`did you mean "ctrl+s"?`}},
		{name: "space separator", in: "Ctrl Shift T", unknown: true, suggest: "ctrl+shift+t"},
		{name: "word", in: "hello", unknown: true, suggest: ""},
		{name: "non ascii", in: "ü", unknown: true, suggest: ""},
		{name: "f25", in: "f25", unknown: true, suggest: anySuggestion},
		{name: "f0", in: "f0", unknown: true, suggest: anySuggestion},
		{name: "long", in: strings.Repeat("x", 500), unknown: true, msg: []string{"…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCombo(tt.in)
			if err == nil {
				t.Fatalf("ParseCombo(%q) = %#v, want an error", tt.in, c)
			}
			var uk *UnknownKeyError
			var ce *ComboError
			switch {
			case tt.unknown && !errors.As(err, &uk):
				t.Fatalf("ParseCombo(%q) error %T %v, want *UnknownKeyError", tt.in, err, err)
			case !tt.unknown && !errors.As(err, &ce):
				t.Fatalf("ParseCombo(%q) error %T %v, want *ComboError", tt.in, err, err)
			}
			if uk != nil && tt.suggest != anySuggestion && tt.suggest != uk.Suggestion {
				t.Errorf("suggestion = %q, want %q", uk.Suggestion, tt.suggest)
			}
			for _, m := range tt.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not contain %q", err, m)
				}
			}
		})
	}
}

func TestKeyNames(t *testing.T) {
	names := KeyNames()
	if len(names) != 4+26+10+24+21+32 {
		t.Errorf("KeyNames() has %d names", len(names))
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("KeyNames() lists %q twice", n)
		}
		seen[n] = true
		c, err := ParseCombo(n)
		if err != nil || c.Key != n || c.Mods != nil {
			t.Errorf("ParseCombo(%q) = %#v, %v; want the key itself", n, c, err)
		}
	}
	for _, want := range []string{"ctrl", "super", "a", "z", "0", "f1", "f24", "enter", "escape", "plus", "`", "?"} {
		if !seen[want] {
			t.Errorf("KeyNames() lacks %q", want)
		}
	}
	for _, a := range aliases() {
		if !seen[a[1]] {
			t.Errorf("alias %q maps to %q, which is not a key name", a[0], a[1])
		}
		if seen[a[0]] {
			t.Errorf("alias %q shadows a canonical name", a[0])
		}
	}
}

func TestComboString(t *testing.T) {
	tests := []struct {
		name string
		c    Combo
		want string
	}{
		{"zero", Combo{}, ""},
		{"key", Combo{Key: "enter"}, "enter"},
		{"mods", Combo{Mods: []string{"ctrl", "shift"}, Key: "t"}, "ctrl+shift+t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}
