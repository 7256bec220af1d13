package dialect

import (
	"regexp"
	"strconv"
	"strings"
)

// OpenCUA's own agent (OSWorld's mm_agents/opencua/opencua_agent.py, as run
// for the OpenCUA paper's results) lays its history out differently from
// the whole replies other families get back:
//
//   - a past step is kept as STEP_TEMPLATE + ACTION_HISTORY_TEMPLATE, that is
//     "# Step N:\n## Action:\n{action}\n": the reply's Action section alone,
//     without its thought or code;
//   - only the last three screenshots are sent (max_image_history_length=3);
//   - a reply that does not finish (finish_reason other than "stop", or no
//     closed code block) is not run: it is retried. deskpilot tells the model
//     instead and runs nothing: a code block cut by the token limit may hold
//     half of what the model meant to do.
//
// The history text here follows that layout; the Step header comes from the
// loop through StepTurner.

// StepTurner is implemented by dialects whose history numbers the model's
// turns (OpenCUA's "# Step N:"). The loop calls StepTurn (through the
// package function) with the step's number and the turn it keeps.
type StepTurner interface {
	StepTurn(step int, turn string) string
}

// StepTurn returns turn as d keeps it in the history of step (1-based): d's
// StepTurn when it has one, else turn itself.
func StepTurn(d Dialect, step int, turn string) string {
	if st, ok := d.(StepTurner); ok {
		return st.StepTurn(step, turn)
	}
	return turn
}

// StepTurn implements StepTurner for OpenCUA's layout; other pyautogui
// models keep their turns as they are.
func (g PyAutoGUI) StepTurn(step int, turn string) string {
	if !g.opencua() {
		return turn
	}
	return "# Step " + strconv.Itoa(step) + ":\n" + turn
}

var opencuaActionRe = regexp.MustCompile(`(?ms)^##\s*Action\s*:?[ \t]*\r?\n(.*?)(?:^##|^` + "```" + `|\z)`)

// opencuaTurn is a reply as OpenCUA's history keeps it: "## Action:\n" and
// the reply's Action section; "" when it has none (the whole reply is kept
// then).
func opencuaTurn(reply string) string {
	m := opencuaActionRe.FindStringSubmatch(reply)
	if m == nil {
		return ""
	}
	action := strings.TrimSpace(m[1])
	if action == "" {
		return ""
	}
	return "## Action:\n" + action + "\n"
}

// fenceOpen reports whether reply opens a code block it never closes: it was
// cut, most likely by the token limit.
func fenceOpen(reply string) bool { return strings.Count(reply, "```")%2 == 1 }
