// Package convo holds the data of a conversation with a model: messages and
// their parts (text, images, tool calls and their results), one request and
// its reply. It is plain data with no I/O, shared by the model client
// (agent/llm, which puts it on the wire) and the dialects (agent/dialect,
// which read replies and write turns); agent/llm re-exports every name.
package convo

import (
	"encoding/json"
	"image"
	"net/url"
	"strings"
	"time"
)

// The providers (agent/llm's Config.Provider): the wire format a model client
// speaks. agent/llm reaches each through the vendor's own Go SDK, with one
// retry policy, inactivity timeout, reply caps, token counting, cancellation
// and scrubbing of the API key from errors for all.
const (
	// ProviderChat is Chat Completions (POST …/chat/completions), which
	// every OpenAI-compatible server speaks: the default.
	ProviderChat = "chat"
	// ProviderResponses is OpenAI's Responses API (POST …/responses), the
	// only one with OpenAI's computer tool; conversation state stays on the
	// server (previous_response_id).
	ProviderResponses = "responses"
	// ProviderAnthropic is Anthropic's Messages API (POST …/v1/messages)
	// with its computer tool and prompt caching.
	ProviderAnthropic = "anthropic"
	// ProviderGemini is Gemini's generateContent (streamGenerateContent)
	// with its computer_use tool.
	ProviderGemini = "gemini"
)

// Providers lists the providers, the default first.
func Providers() []string {
	return []string{ProviderChat, ProviderResponses, ProviderAnthropic, ProviderGemini}
}

// ProviderFor is the provider a base URL implies when none is set: the
// vendors' own hosts get their native API (api.anthropic.com: anthropic;
// generativelanguage.googleapis.com: gemini), except when the URL names
// their OpenAI-compatible path (…/openai, …/v1 on Anthropic is its own
// Messages API); every other endpoint, api.openai.com included, speaks chat
// completions. An unparsable URL gives ProviderChat.
func ProviderFor(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return ProviderChat
	}
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "api.anthropic.com":
		return ProviderAnthropic
	case host == "generativelanguage.googleapis.com" && !strings.Contains(u.Path, "/openai"):
		return ProviderGemini
	}
	return ProviderChat
}

// Part is one piece of a message: exactly one of Text, ImageURL, Image, Call or
// Result is set. ImageURL is a data URL ("data:image/png;base64,...") or an
// http(s) URL; images are sent as image_url parts with detail "auto" (the
// Responses transport sends them at detail "original", which it never
// rescales). Call is a tool call of an assistant message, Result the answer to
// one in a user message (see ToolResult for the parts that belong to it).
type Part struct {
	Text     string
	ImageURL string
	// Image is an encoded image (PNG, JPEG or WebP) of media type ImageMIME,
	// sent as a data URL. A history holds screenshots this way, once, as
	// bytes: the base64 data URL exists only while a request is built.
	Image     []byte
	ImageMIME string
	Call      *ToolCall
	Result    *ToolResult
}

// IsImage reports whether p holds an image, by URL or by bytes.
func (p Part) IsImage() bool { return p.ImageURL != "" || p.Image != nil }

// Message is one turn of the conversation. Role is "system", "user" or "assistant";
// only user messages may hold images. Parts are sent in order.
type Message struct {
	Role  string
	Parts []Part
	// ID is the server's id of the response an assistant message came from
	// (Response.ID). The Responses transport continues from the newest one
	// with previous_response_id and sends only the messages after it.
	ID string
}

// Request is one model call.
type Request struct {
	Messages    []Message
	Stop        []string // stop sequences; none when empty
	Temperature *float64 // sampling temperature; nil leaves the server default
	MaxTokens   int      // reply limit in tokens (sent as max_tokens); 0 leaves the server default

	// Computer declares the vendor's computer-use tool (the Responses,
	// Anthropic and Gemini transports); nil declares none.
	Computer *ComputerTool
	// Schema asks a chat completions server for structured output.
	Schema *JSONSchema

	// OnRetry, when set, is called (from the goroutine running Complete) before each
	// retry of this call. When Retry.Discard is true the failed attempt had already
	// passed text to onDelta: that text is void, and a UI should clear it, because the
	// next attempt streams the reply again from the start.
	OnRetry func(Retry)
}

// Redacted returns r with every text it would send passed through f (the
// agent's secret.Redactor Text): text parts and tool calls' inputs. The
// request r is not changed. A nil f returns r. agent/llm applies it to every
// request whatever its provider.
func (r Request) Redacted(f func(string) string) Request {
	if f == nil {
		return r
	}
	msgs := make([]Message, len(r.Messages))
	for i, m := range r.Messages {
		parts := make([]Part, len(m.Parts))
		for j, p := range m.Parts {
			if p.Text != "" {
				p.Text = f(p.Text)
			}
			if p.Call != nil {
				c := *p.Call
				if in := f(string(c.Input)); in != string(c.Input) {
					c.Input = json.RawMessage(in)
					if !json.Valid(c.Input) { // a secret cut through the JSON's syntax
						c.Input = json.RawMessage(`{}`)
					}
				}
				p.Call = &c
			}
			parts[j] = p
		}
		m.Parts = parts
		msgs[i] = m
	}
	r.Messages = msgs
	return r
}

// Retry describes a failed attempt that Complete is about to repeat.
type Retry struct {
	Attempt int           // 1-based number of the attempt that failed
	Delay   time.Duration // wait before the next attempt
	Err     error         // why the attempt failed
	Discard bool          // the attempt had delivered deltas; drop the partial text
}

// Usage counts the tokens of one call as the server reported them (0 when it did not).
type Usage struct {
	Input  int // prompt tokens
	Output int // completion tokens
}

// Response is the outcome of a successful call.
type Response struct {
	Text string // the whole reply of the final attempt
	// Calls are the tool calls of the reply, in order (a vendor's computer
	// tool, or the chat transport's tool_calls).
	Calls []ToolCall
	// ID is the server's id of the response (the Responses API's, for
	// previous_response_id); "" when it gave none.
	ID string
	// Reasoning is what the model thought before answering, when the server
	// sends it apart (reasoning_content, thinking blocks). It is shown, never
	// sent back.
	Reasoning string
	Usage     Usage
	Finish    string // finish_reason: "stop", "length", ...
	Attempts  int    // HTTP attempts made, including retries and compatibility fallbacks
	// Cut says why the reply was cut short by the client ("" = it was not):
	// longer than MaxReplyBytes, or streaming for longer than MaxReplyTime.
	Cut string
}

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
