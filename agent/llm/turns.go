package llm

import (
	"encoding/json"
	"fmt"
	"image"
)

// ToolCall is one call the model made to a tool the request declared: a
// vendor's computer tool (a Responses computer_call, an Anthropic tool_use, a
// Gemini function_call) or a function of the chat transport's tool_calls. It
// sits in an assistant message as a Part, so the next request can send it
// back where the vendor wants it (Anthropic and Gemini keep no state).
type ToolCall struct {
	// ID is the call's id as the vendor gave it (call_id, tool_use id,
	// function call id); "" when the vendor gave none (Gemini may not).
	ID string
	// Name is the tool or function name ("computer", "click_at", ...).
	Name string
	// Input is the call's arguments, a JSON object as the model wrote it.
	// For a Responses computer_call it is the whole output item, which holds
	// "action" (the preview) or "actions" (the GA tool).
	Input json.RawMessage
	// Checks are the vendor's safety checks on the call (Responses
	// pending_safety_checks); the person approves them before it runs.
	Checks []SafetyCheck
	// Signature is vendor state that must come back with the call
	// (Gemini's thought_signature); opaque.
	Signature []byte
}

// SafetyCheck is a vendor's warning on a tool call that the person must
// approve before the call runs, and that is acknowledged back when they do.
type SafetyCheck struct {
	ID      string // the check's id (Responses); "" for Gemini's safety_decision
	Code    string // its kind, e.g. "malicious_instructions" or "require_confirmation"
	Message string // what the vendor says, for the person
}

// ToolResult answers one ToolCall in a user message. The parts that follow
// it in the message, up to the next result, are its content (text, the
// screenshot); parts before the first result are plain user content.
type ToolResult struct {
	CallID string // the ToolCall's ID
	Name   string // the ToolCall's Name (Gemini matches responses by name)
	// Error marks a call that failed or was refused (Anthropic's is_error,
	// Gemini's "error" field).
	Error bool
	// Acknowledged are the call's safety checks the person approved; they
	// go back as acknowledged_safety_checks (Responses) or
	// safety_acknowledgement (Gemini).
	Acknowledged []SafetyCheck
}

// ComputerTool declares a vendor's computer-use tool on a request. Only the
// transport it belongs to sends it; the chat transport refuses it.
type ComputerTool struct {
	// Type is the vendor's tool type: "computer" or "computer_use_preview"
	// (Responses), "computer_20251124" or "computer_20250124" (Anthropic);
	// Gemini's has none ("computer_use").
	Type string
	// Display is the size of the screenshots the model sees, declared where
	// the tool takes one (the preview, Anthropic).
	Display image.Point
	// Environment is the tool's environment: "linux" (Responses preview),
	// "ENVIRONMENT_DESKTOP" (Gemini).
	Environment string
	// EnableZoom offers Anthropic's zoom action (computer_20251124).
	EnableZoom bool
	// Excluded are predefined functions Gemini must not call.
	Excluded []string
}

// JSONSchema asks an OpenAI-compatible server for structured output
// (response_format json_schema). A server that answers 400 naming
// response_format gets the request again without it, once for the client.
type JSONSchema struct {
	Name   string          // the schema's name
	Schema json.RawMessage // a JSON Schema object
	Strict bool
}

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

// hasTurns reports whether any message holds tool calls or results.
func hasTurns(ms []Message) bool {
	for _, m := range ms {
		for _, p := range m.Parts {
			if p.Call != nil || p.Result != nil {
				return true
			}
		}
	}
	return false
}
