package llm

import (
	"encoding/json"
	"fmt"
)

// validateTurns checks the tool parts of m (index i).
func validateTurns(i int, m Message) error {
	for j, p := range m.Parts {
		n := 0
		for _, set := range []bool{p.Text != "", p.IsImage(), p.Call != nil, p.Result != nil} {
			if set {
				n++
			}
		}
		switch {
		case n > 1:
			return fmt.Errorf("message %d part %d: set one of Text, an image, Call and Result", i, j)
		case p.Call != nil && m.Role != "assistant":
			return fmt.Errorf("message %d part %d: tool calls belong in assistant messages, not %s", i, j, m.Role)
		case p.Result != nil && m.Role != "user":
			return fmt.Errorf("message %d part %d: tool results belong in user messages, not %s", i, j, m.Role)
		case p.Call != nil && len(p.Call.Input) > 0 && !json.Valid(p.Call.Input):
			return fmt.Errorf("message %d part %d: tool call input is not JSON", i, j)
		}
	}
	return nil
}

// resultGroup is one tool result with the parts that belong to it.
type resultGroup struct {
	result *ToolResult
	parts  []Part
}

// splitResults cuts a user message's parts into its plain content (before
// the first result) and its results, each with its own parts.
func splitResults(ps []Part) (plain []Part, groups []resultGroup) {
	for _, p := range ps {
		switch {
		case p.Result != nil:
			groups = append(groups, resultGroup{result: p.Result})
		case len(groups) == 0:
			plain = append(plain, p)
		default:
			g := &groups[len(groups)-1]
			g.parts = append(g.parts, p)
		}
	}
	return plain, groups
}

// calls returns the tool calls of an assistant message's parts, and its text.
func calls(ps []Part) (text []string, cs []*ToolCall) {
	for _, p := range ps {
		switch {
		case p.Call != nil:
			cs = append(cs, p.Call)
		case p.Text != "":
			text = append(text, p.Text)
		}
	}
	return text, cs
}
