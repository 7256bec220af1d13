package dialect

import (
	"fmt"
	"slices"
	"strings"

	"deskpilot/actions"
)

// familyKeys maps key names the families write that deskpilot's own aliases
// (actions.CanonicalKey) do not know: pyautogui's left/right modifier names
// and numpad keys, and the characters pyautogui accepts as key names.
func familyKeys() map[string]string {
	return map[string]string{
		"ctrlleft": "ctrl", "ctrlright": "ctrl", "controlleft": "ctrl", "controlright": "ctrl",
		"shiftleft": "shift", "shiftright": "shift",
		"altleft": "alt", "altright": "alt", "optionleft": "alt", "optionright": "alt", "altgr": "alt",
		"winleft": "super", "winright": "super", "commandleft": "super", "commandright": "super",
		"superleft": "super", "superright": "super", "metaleft": "super", "metaright": "super",
		"num0": "0", "num1": "1", "num2": "2", "num3": "3", "num4": "4",
		"num5": "5", "num6": "6", "num7": "7", "num8": "8", "num9": "9",
		"add": "plus", "subtract": "-", "multiply": "*", "divide": "/", "decimal": ".",
		"prntscrn": "printscreen", "prtscrn": "printscreen",
		"\n": "enter", "\r": "enter", "\t": "tab", " ": "space",
	}
}

// keyName returns deskpilot's canonical name for one key as a model family
// writes it ("Return", "ctrlleft", "arrowleft", "Page_Down", " "). An unknown
// name is an *actions.UnknownKeyError listing the accepted ones.
func keyName(name string) (string, error) {
	if k, ok := familyKeys()[strings.ToLower(name)]; ok {
		return k, nil
	}
	if k, ok := familyKeys()[strings.ToLower(strings.TrimSpace(name))]; ok {
		return k, nil
	}
	if k, ok := actions.CanonicalKey(name); ok {
		return k, nil
	}
	// ParseCombo builds the error with its suggestion and the accepted names.
	_, err := actions.ParseCombo(name)
	if err == nil {
		err = fmt.Errorf("unknown key %q", name)
	}
	return "", err
}

// combo joins keys pressed together ("ctrl", "shift", "t") into deskpilot's
// canonical combo ("ctrl+shift+t"): modifiers first, in canonical order, and
// at most one other key.
func combo(keys []string) (string, error) {
	if len(keys) == 0 {
		return "", fmt.Errorf("no key given")
	}
	var mods []string
	other := ""
	for _, k := range keys {
		name, err := keyName(k)
		if err != nil {
			return "", err
		}
		switch {
		case actions.IsModifier(name):
			mods = append(mods, name)
		case other != "":
			return "", fmt.Errorf("keys %q press %q and %q together: give modifiers and one other key per combination, or press them one after another",
				strings.Join(keys, " "), other, name)
		default:
			other = name
		}
	}
	parts := mods
	if other != "" {
		parts = append(parts, other)
	}
	c, err := actions.ParseCombo(strings.Join(parts, "+"))
	if err != nil {
		return "", err
	}
	return c.String(), nil
}

// splitKeys splits a key combination as UI-TARS writes it ("ctrl c", space
// separated) or as others do ("ctrl+c"); a lone "+" is the plus key.
func splitKeys(s string) []string {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if s != "" && strings.TrimSpace(s) == "" {
			return []string{"space"}
		}
		return nil
	}
	if len(fields) > 1 {
		var out []string
		for i, f := range fields {
			if f == "+" && i != len(fields)-1 {
				continue // a separator written with spaces: "ctrl + c"
			}
			out = append(out, f)
		}
		return out
	}
	f := fields[0]
	if f == "+" {
		return []string{"+"}
	}
	if body, ok := strings.CutSuffix(f, "++"); ok {
		return append(strings.Split(body, "+"), "+")
	}
	return strings.Split(f, "+")
}

// heldModifiers reads the keys a family holds during a mouse action
// (OpenAI's keys, Anthropic's text on a click) as the builtins' modifiers
// argument: canonical, "+"-joined; "" for none. A key that is not a modifier
// is an error: only ctrl, alt, shift and super can be held there.
func heldModifiers(keys []string) (string, error) {
	var mods []string
	for _, k := range keys {
		if strings.TrimSpace(k) == "" {
			continue
		}
		name, err := keyName(k)
		if err != nil {
			return "", err
		}
		if !actions.IsModifier(name) {
			return "", fmt.Errorf("%q cannot be held during a mouse action: only ctrl, alt, shift and super can; press other keys in a key action", clip(k, 20))
		}
		if !slices.Contains(mods, name) {
			mods = append(mods, name)
		}
	}
	if len(mods) == 0 {
		return "", nil
	}
	c, err := actions.ParseCombo(strings.Join(mods, "+"))
	if err != nil {
		return "", err
	}
	return c.String(), nil
}
