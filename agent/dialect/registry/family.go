package registry

import (
	"regexp"
	"strings"
)

// modelFamily is one row of the model-name table.
type modelFamily struct {
	re       *regexp.Regexp // on the normalised name (see normModel)
	dialect  string         // "" = no dialect (a grounder only)
	grounder string         // "" = the dialect itself grounds, or none
	coords   string         // coordinates its pyautogui or opencua dialect speaks; "" = the default
}

// modelFamilies is checked in order; the first match wins, so specific
// names (ui-tars-1.5, doubao) come before general ones (ui-tars).
func modelFamilies() []modelFamily {
	re := regexp.MustCompile
	return []modelFamily{
		{re: re(`doubao|seed-?1\.[56]`), dialect: "doubao"},
		{re: re(`ui-?tars-?1\.5`), dialect: "uitars-1.5"},
		{re: re(`ui-?tars`), dialect: "uitars-1.0"},
		{re: re(`opencua-?(7b|32b)`), dialect: "opencua", coords: PyAutoGUISmart},
		{re: re(`opencua`), dialect: "opencua", coords: PyAutoGUIUnit},
		{re: re(`gemini-.*computer-use`), dialect: "gemini-computer"},
		{re: re(`^computer-use-preview`), dialect: "openai-computer"},
		{re: re(`holo-?3`), dialect: "holo3"},
		{re: re(`fara`), dialect: "fara"},
		{re: re(`aguvis`), dialect: "pyautogui", coords: PyAutoGUIUnit},
		{re: re(`gta-?1`), grounder: "gta1"},
		{re: re(`holo-?1\.5|holo1(\b|-)`), grounder: "holo1.5"},
		{re: re(`holo-?2`), grounder: "holo2"},
		{re: re(`ui-?venus`), grounder: "ui-venus"},
		{re: re(`jedi`), dialect: "qwen2.5"},
		{re: re(`qwen-?2\.5-?vl|qwen2_5_vl|qwen-?vl-?(max|plus)-?2025`), dialect: "qwen2.5"},
		{re: re(`qwen-?3(\.\d+)?-?vl|qwen3_vl`), dialect: "qwen3"},
	}
}

// normModel lowercases a model name and drops an org prefix ("bytedance/",
// "Qwen/", "hf.co/...") and a quantisation or file suffix (":q4_k_m",
// "-gguf", "-awq", "-fp8", ...), keeping the family and version.
func normModel(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.Index(m, ":"); i >= 0 {
		m = m[:i]
	}
	return strings.ReplaceAll(m, " ", "-")
}

// family returns the first row matching model.
func family(model string) (modelFamily, bool) {
	m := normModel(model)
	if m == "" {
		return modelFamily{}, false
	}
	for _, f := range modelFamilies() {
		if f.re.MatchString(m) {
			return f, true
		}
	}
	return modelFamily{}, false
}

// ForModel returns the dialect a model was trained to speak, from its name
// (case-insensitive, with or without an org prefix or quantisation suffix):
// ui-tars-1.5-7b -> "uitars-1.5", UI-TARS-7B-DPO -> "uitars-1.0",
// doubao-1.5-ui-tars -> "doubao", Qwen/Qwen2.5-VL-72B-Instruct -> "qwen2.5",
// qwen3-vl-8b -> "qwen3", opencua-7b -> "opencua", aguvis -> "pyautogui"
// (see PyAutoGUICoordsForModel and OpenCUACoordsForModel), holo3.1-35b-a3b
// -> "holo3", fara-7b -> "fara", computer-use-preview -> "openai-computer",
// gemini-2.5-computer-use-preview -> "gemini-computer". "" when no family
// matches: the caller uses Default.
func ForModel(model string) string {
	f, _ := family(model)
	return f.dialect
}

// PyAutoGUICoordsForModel returns the pyautogui_coords a model name implies
// for the pyautogui dialect: Aguvis's 0..1 fractions; "" otherwise.
func PyAutoGUICoordsForModel(model string) string {
	f, _ := family(model)
	if f.dialect != "pyautogui" {
		return ""
	}
	return f.coords
}

// OpenCUACoordsForModel returns the coordinate space a model name implies for
// the opencua dialect: OpenCUA-7B/32B's smart-resized pixels, the other
// OpenCUA models' 0..1 fractions; "" for a model of no OpenCUA family.
func OpenCUACoordsForModel(model string) string {
	f, _ := family(model)
	if f.dialect != "opencua" {
		return ""
	}
	return f.coords
}

// GrounderForModel returns the grounder that reads a model's points (for
// --grounder MODEL without --grounder-dialect): a point-only family (gta1,
// holo1.5, holo2, ui-venus) or a dialect that grounds; "" when no family
// matches or the family's dialect cannot ground (the caller may use "point").
func GrounderForModel(model string) string {
	f, ok := family(model)
	if !ok {
		return ""
	}
	if f.grounder != "" {
		return f.grounder
	}
	if _, err := Grounder(f.dialect); err != nil {
		return ""
	}
	return f.dialect
}
