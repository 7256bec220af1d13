package script

import "strings"

// Size limits of the builtins' arguments (Param.MaxLen). A longer argument is
// refused in the code's own process, before it is copied anywhere, with an
// error naming the limit: so whatever the code passes, a tool call costs the
// agent's process at most about the largest limit here.
const (
	// MaxTypeText is the most characters one type_text call takes; within
	// a block it is also bounded by the time left (TypeRate).
	MaxTypeText = 100_000
	// MaxAnswer is the most characters final_answer takes.
	MaxAnswer = 100_000
	// MaxURL is the longest address open_url, visit_page and archived_url take.
	MaxURL = 8192
	// MaxPath is the longest file path inspect_file takes.
	MaxPath = 4096
	// MaxQuestion is the longest question ask_user and inspect_file take.
	MaxQuestion = 4000
	// numberLen bounds a number's repr: every number a builtin takes fits in
	// far fewer digits.
	numberLen = 32
)

// argLimits are the limits of the parameters that take text or values, by
// "builtin.parameter"; parameters that take only numbers or booleans get
// numberLen. The catalogue test checks that every parameter has one.
func argLimits() map[string]int {
	return map[string]int{
		"click.button": 16, "scroll.direction": 16,
		"click.modifiers": 64, "double_click.modifiers": 64, "right_click.modifiers": 64,
		"move.modifiers": 64, "drag.modifiers": 64, "scroll.modifiers": 64,
		"type_text.text": MaxTypeText, "type_secret.name": 64,
		"press.keys": 100, "hold.keys": 100,
		"locate.description":  MaxDescription,
		"ask_user.question":   MaxQuestion,
		"launch.app":          MaxLaunchLine,
		"open_url.url":        MaxURL,
		"final_answer.answer": MaxAnswer,
		"web_search.query":    1000,
		"visit_page.url":      MaxURL,
		"find_on_page.text":   1000,
		"archived_url.url":    MaxURL, "archived_url.date": 32,
		"inspect_file.path": MaxPath, "inspect_file.question": MaxQuestion,
		"find_text.text": maxQueryRunes, "click_text.text": maxQueryRunes,
		"find_elements.name": maxQueryRunes, "find_elements.role": 64,
		"find_elements.states": maxStates * 40,
		"click_element.name":   maxQueryRunes, "click_element.role": 64,
	}
}

// MaxLaunchLine is the longest command line launch takes.
const MaxLaunchLine = 8192

// withLimits sets every parameter's MaxLen in ts (argLimits).
func withLimits(ts []Tool) []Tool {
	lim := argLimits()
	for i := range ts {
		if ts[i].Params == nil {
			continue
		}
		ps := make([]Param, len(ts[i].Params))
		for j, p := range ts[i].Params {
			if p.MaxLen == 0 {
				p.MaxLen = lim[ts[i].Name+"."+p.Name]
			}
			if p.MaxLen == 0 && numeric(p.Type) {
				p.MaxLen = numberLen
			}
			ps[j] = p
		}
		ts[i].Params = ps
	}
	return ts
}

// numeric reports whether a parameter of type typ takes only numbers,
// booleans or None.
func numeric(typ string) bool {
	for _, t := range strings.Split(typ, "|") {
		switch strings.TrimSpace(t) {
		case "int", "float", "bool", "None":
		default:
			return false
		}
	}
	return typ != ""
}
