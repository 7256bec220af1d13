package actions

import (
	"fmt"
	"slices"
	"strings"
)

// Combo is a key combination: modifiers held while Key is pressed. Names are
// canonical (see KeyNames); Mods are in canonical order (ctrl, alt, shift,
// super), each at most once, and nil when there are none. A modifier alone
// ("super", "shift") is a Combo whose Key is that modifier.
type Combo struct {
	Mods []string
	Key  string
}

// String joins the names with "+": "ctrl+shift+t", "enter", "alt+f4". The
// zero Combo is "". For a Combo from ParseCombo, ParseCombo(c.String())
// returns c again.
func (c Combo) String() string {
	if len(c.Mods) == 0 {
		return c.Key
	}
	return strings.Join(c.Keys(), "+")
}

// Keys returns the modifiers followed by the key, in the order they are
// pressed. The slice is new on each call.
func (c Combo) Keys() []string {
	keys := make([]string, 0, len(c.Mods)+1)
	keys = append(keys, c.Mods...)
	return append(keys, c.Key)
}

// ComboError is a malformed key combo: empty, an empty part, a missing key,
// a non-modifier before the last key, or a repeated modifier.
type ComboError struct {
	Combo string // the text as written
	Msg   string // what is wrong, e.g. `missing key after the last "+"`
}

// Error formats the combo (shortened when long) and what is wrong with it.
func (e *ComboError) Error() string {
	return fmt.Sprintf("key combo %q: %s", clip(e.Combo), e.Msg)
}

// UnknownKeyError is a key name ParseCombo does not know. Its message lists
// the accepted names and, when one is close, suggests it.
type UnknownKeyError struct {
	Name       string // the unknown part as written
	Combo      string // the whole combo as written
	Suggestion string // the closest accepted spelling, or ""
}

// Error names the unknown key, the suggestion if any, and the accepted names.
func (e *UnknownKeyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown key %q", clip(e.Name))
	if e.Combo != e.Name {
		fmt.Fprintf(&b, " in %q", clip(e.Combo))
	}
	if e.Suggestion != "" {
		fmt.Fprintf(&b, " (did you mean %q?)", e.Suggestion)
	}
	b.WriteString("; accepted keys: modifiers " + strings.Join(strings.Fields(modifierNames), ", ") +
		"; letters a-z; digits 0-9; f1-f24; " + strings.Join(strings.Fields(namedKeyNames), ", ") +
		"; punctuation " + punctuationNames +
		`; common aliases work too (control, cmd, win, esc, return, pgup, del, ...); join keys with "+", e.g. "ctrl+shift+t"`)
	return b.String()
}

// ParseCombo parses a key combination such as "enter", "ctrl+s",
// "ctrl+shift+t", "alt+F4", "super" or "Return". Names are case-insensitive
// and aliases are accepted (control/ctl -> ctrl, cmd/win/meta -> super,
// option -> alt, esc -> escape, return -> enter, pgup -> pageup,
// del -> delete, and X keysym names such as Page_Up); "+" alone or at the
// end after another "+" ("ctrl++") is the plus key. Every part but the last
// must be a modifier. Unknown names give a *UnknownKeyError, other mistakes
// a *ComboError.
func ParseCombo(s string) (Combo, error) {
	parts, err := splitCombo(s)
	if err != nil {
		return Combo{}, err
	}
	var c Combo
	for i, p := range parts {
		name, ok := CanonicalKey(p)
		if !ok {
			return Combo{}, &UnknownKeyError{Name: strings.TrimSpace(p), Combo: s, Suggestion: suggestKey(p)}
		}
		if slices.Contains(c.Mods, name) {
			return Combo{}, &ComboError{Combo: s, Msg: fmt.Sprintf("modifier %q appears twice", name)}
		}
		if i == len(parts)-1 {
			c.Key = name
			break
		}
		if !IsModifier(name) {
			return Combo{}, &ComboError{Combo: s, Msg: fmt.Sprintf(
				"%q is not a modifier: only the last key may be a non-modifier (modifiers: ctrl, alt, shift, super)", name)}
		}
		c.Mods = append(c.Mods, name)
	}
	slices.SortFunc(c.Mods, func(a, b string) int { return modifierRank(a) - modifierRank(b) })
	return c, nil
}

// splitCombo splits s on "+" and rejects empty parts with a precise message.
func splitCombo(s string) ([]string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, &ComboError{Combo: s, Msg: `empty: write key names joined by "+", e.g. "enter" or "ctrl+s"`}
	}
	if t == "+" {
		return []string{"+"}, nil
	}
	var parts []string
	if body, ok := strings.CutSuffix(t, "++"); ok {
		parts = append(strings.Split(body, "+"), "+")
	} else {
		parts = strings.Split(t, "+")
	}
	for i, p := range parts {
		if strings.TrimSpace(p) != "" {
			continue
		}
		if i == len(parts)-1 {
			return nil, &ComboError{Combo: s, Msg: `missing key after the last "+"`}
		}
		return nil, &ComboError{Combo: s, Msg: fmt.Sprintf(
			`part %d is empty (write "plus" for the + key)`, i+1)}
	}
	return parts, nil
}
