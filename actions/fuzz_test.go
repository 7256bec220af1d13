package actions

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// FuzzParseCombo checks that ParseCombo never panics, fails only with its two
// error types, and that a parsed combo is canonical and survives String.
// Seeds live in testdata/fuzz/FuzzParseCombo.
func FuzzParseCombo(f *testing.F) {
	names := KeyNames()
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCombo(s)
		if err != nil {
			var uk *UnknownKeyError
			var ce *ComboError
			if !errors.As(err, &uk) && !errors.As(err, &ce) {
				t.Fatalf("ParseCombo(%q) error of type %T: %v", s, err, err)
			}
			if err.Error() == "" {
				t.Fatalf("ParseCombo(%q): empty error message", s)
			}
			return
		}
		if !slices.Contains(names, c.Key) {
			t.Fatalf("ParseCombo(%q).Key = %q, not a key name", s, c.Key)
		}
		for i, m := range c.Mods {
			if !IsModifier(m) || (i > 0 && modifierRank(c.Mods[i-1]) >= modifierRank(m)) || m == c.Key {
				t.Fatalf("ParseCombo(%q).Mods = %q, not canonical", s, c.Mods)
			}
		}
		again, err := ParseCombo(c.String())
		if err != nil {
			t.Fatalf("ParseCombo(%q) = %#v, but its String %q does not parse: %v", s, c, c.String(), err)
		}
		if !reflect.DeepEqual(again, c) {
			t.Fatalf("ParseCombo(%q) = %#v, but ParseCombo(%q) = %#v", s, c, c.String(), again)
		}
	})
}
