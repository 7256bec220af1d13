// Package registry names the reply dialects and grounders agent/dialect
// implements, the options they take, and which of them a model's name implies
// (family.go). It is plain data with no parser and no Starlark, so settings
// (internal/config) check and choose a dialect without linking the code that
// runs one. agent/dialect's tests check that it implements exactly these.
package registry

import (
	"fmt"
	"slices"
	"strings"
)

// Default is the dialect of a run that names none.
const Default = "code"

// The pyautogui dialect's coordinate spaces (config pyautogui_coords).
const (
	PyAutoGUIPixels = "pixels" // pixels of the screenshot (the default)
	PyAutoGUISmart  = "smart"  // pixels of the smart-resized screenshot (OpenCUA-7B/32B)
	PyAutoGUIUnit   = "unit"   // fractions 0..1 of the screen (Aguvis, OpenCUA-Qwen2, OpenCUA-A3B)
)

// dialect is one reply dialect: its name, whether it can also ground (find
// a described element for a planner), and the provider (agent/convo's name of
// a wire format) it speaks through.
type dialect struct {
	name     string
	grounds  bool
	provider string // "" = any provider that carries its requests
}

func dialects() []dialect {
	return []dialect{
		{name: Default},
		{name: "uitars-1.5", grounds: true},
		{name: "uitars-1.0", grounds: true},
		{name: "doubao", grounds: true},
		{name: "qwen2.5", grounds: true},
		{name: "qwen3", grounds: true},
		{name: "pyautogui"},
		{name: "openai-computer", provider: "responses"},
		{name: "anthropic-computer", provider: "anthropic"},
		{name: "gemini-computer", provider: "gemini"},
		{name: "holo3", provider: "chat"},
		{name: "opencua"},
		{name: "fara"},
	}
}

// Provider returns the provider the named dialect speaks through ("responses"
// for openai-computer, "anthropic", "gemini", "chat" for holo3's JSON schema);
// "" when any provider will do or the name is no dialect. name is as Dialect
// returns it.
func Provider(name string) string {
	for _, d := range dialects() {
		if d.name == name {
			return d.provider
		}
	}
	return ""
}

// pointGrounders are the grounders that are no dialect: models that only
// answer a point.
func pointGrounders() []string { return []string{"gta1", "holo1.5", "holo2", "ui-venus", "point"} }

// Dialects lists the dialects' names, Default first, the rest sorted.
func Dialects() []string {
	var rest []string
	for _, d := range dialects() {
		if d.name != Default {
			rest = append(rest, d.name)
		}
	}
	slices.Sort(rest)
	return append([]string{Default}, rest...)
}

// Grounders lists the grounders' names, sorted: the dialects that ground and
// the point-only models.
func Grounders() []string {
	names := pointGrounders()
	for _, d := range dialects() {
		if d.grounds {
			names = append(names, d.name)
		}
	}
	slices.Sort(names)
	return names
}

// Dialect returns the dialect called name as its registry spells it (case and
// surrounding spaces ignored; "" is Default). An unknown name is an error
// listing the known ones.
func Dialect(name string) (string, error) {
	if name == "" {
		return Default, nil
	}
	key := strings.ToLower(strings.TrimSpace(name))
	if slices.Contains(Dialects(), key) {
		return key, nil
	}
	return "", fmt.Errorf("unknown dialect %q; dialects: %s", name, strings.Join(Dialects(), ", "))
}

// Grounder returns the grounder called name as its registry spells it (case
// and surrounding spaces ignored). An unknown name is an error listing the
// known ones.
func Grounder(name string) (string, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if slices.Contains(Grounders(), key) {
		return key, nil
	}
	return "", fmt.Errorf("unknown grounder %q; grounders: %s", name, strings.Join(Grounders(), ", "))
}

// CheckPyAutoGUICoords checks a pyautogui_coords value; "" is the default,
// PyAutoGUIPixels.
func CheckPyAutoGUICoords(c string) error {
	switch c {
	case "", PyAutoGUIPixels, PyAutoGUISmart, PyAutoGUIUnit:
		return nil
	}
	return fmt.Errorf("pyautogui_coords %q: want %q, %q or %q", c, PyAutoGUIPixels, PyAutoGUISmart, PyAutoGUIUnit)
}
