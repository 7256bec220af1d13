package desktop

import "slices"

// shiftedBase returns the unshifted key of a shifted punctuation key of a US
// layout ("!" -> "1"); robotgo presses such a key as Shift plus that key.
func shiftedBase(key string) (string, bool) {
	const shifted, base = "~!@#$%^&*()_{}|:\"<>?", "`1234567890-[]\\;',./"
	if key == "plus" {
		return "=", true
	}
	if len(key) == 1 {
		for i := range len(shifted) {
			if shifted[i] == key[0] {
				return string(base[i]), true
			}
		}
	}
	return "", false
}

// expandShifted returns the keys robotgo actually presses for canonical keys:
// shifted punctuation becomes Shift plus its unshifted key.
func expandShifted(keys []string) []string {
	var out []string
	for _, k := range keys {
		if base, ok := shiftedBase(k); ok {
			if !slices.Contains(out, "shift") {
				out = append(out, "shift")
			}
			out = append(out, base)
			continue
		}
		out = append(out, k)
	}
	return out
}
