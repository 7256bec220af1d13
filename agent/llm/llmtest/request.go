package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decode JPEG screenshots
	_ "image/png"  // decode PNG screenshots
	"net/http"
	"strings"

	_ "golang.org/x/image/webp" // decode WebP screenshots
)

// Request is one chat completion request as the server received it.
type Request struct {
	Model        string
	Stream       bool
	IncludeUsage bool // stream_options.include_usage was true
	Messages     []Message
	Stop         []string
	MaxTokens    int      // max_tokens, or max_completion_tokens when only that was sent
	LimitField   string   // "max_tokens", "max_completion_tokens" or "" (none sent)
	Temperature  *float64 // nil when not sent
	Header       http.Header
	Body         []byte // the raw JSON body
}

// Message is one message of a Request.
type Message struct {
	Role  string
	Parts []Part // in order; a plain string content is one text part
}

// Part is a text or image part. For an image, ImageURL is the URL as sent and Size
// the decoded dimensions of a data URL's image (DecodeErr says why it is zero).
type Part struct {
	Type      string // "text" or "image_url" (or whatever type the client sent)
	Text      string
	ImageURL  string
	Detail    string
	Size      image.Point
	Format    string // "png", "jpeg", ...
	DecodeErr string
}

// Text returns the message's text parts joined with newlines.
func (m Message) Text() string {
	var texts []string
	for _, p := range m.Parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Images returns the message's image parts.
func (m Message) Images() []Part {
	var out []Part
	for _, p := range m.Parts {
		if p.Type == "image_url" {
			out = append(out, p)
		}
	}
	return out
}

// Last returns the last message with the given role, or the zero Message.
func (r Request) Last(role string) Message {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == role {
			return r.Messages[i]
		}
	}
	return Message{}
}

// Images returns every image part of the request, in order.
func (r Request) Images() []Part {
	var out []Part
	for _, m := range r.Messages {
		out = append(out, m.Images()...)
	}
	return out
}

// wireRequest is the JSON shape of a chat completion request.
type wireRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Messages            []wireMessage   `json:"messages"`
	Stop                json.RawMessage `json:"stop"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL    string `json:"url"`
		Detail string `json:"detail"`
	} `json:"image_url"`
}

// parseRequest decodes a request body strictly enough to catch client bugs.
func parseRequest(body []byte, h http.Header) (Request, error) {
	var w wireRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&w); err != nil {
		return Request{}, fmt.Errorf("body is not JSON: %w", err)
	}
	r := Request{
		Model: w.Model, Stream: w.Stream, Temperature: w.Temperature,
		Header: h.Clone(), Body: body,
	}
	if w.StreamOptions != nil {
		r.IncludeUsage = w.StreamOptions.IncludeUsage
	}
	switch {
	case w.MaxTokens != nil:
		r.MaxTokens, r.LimitField = *w.MaxTokens, "max_tokens"
	case w.MaxCompletionTokens != nil:
		r.MaxTokens, r.LimitField = *w.MaxCompletionTokens, "max_completion_tokens"
	}
	if len(w.Stop) > 0 && string(w.Stop) != "null" {
		var one string
		if json.Unmarshal(w.Stop, &one) == nil {
			r.Stop = []string{one}
		} else if err := json.Unmarshal(w.Stop, &r.Stop); err != nil {
			return r, fmt.Errorf("stop: %w", err)
		}
	}
	if len(w.Messages) == 0 {
		return r, errors.New("messages: none")
	}
	for i, wm := range w.Messages {
		m, err := parseMessage(wm)
		if err != nil {
			return r, fmt.Errorf("messages[%d]: %w", i, err)
		}
		r.Messages = append(r.Messages, m)
	}
	return r, nil
}

func parseMessage(wm wireMessage) (Message, error) {
	m := Message{Role: wm.Role}
	switch wm.Role {
	case "system", "user", "assistant", "developer", "tool":
	default:
		return m, fmt.Errorf("role %q", wm.Role)
	}
	var s string
	if json.Unmarshal(wm.Content, &s) == nil {
		m.Parts = []Part{{Type: "text", Text: s}}
		return m, nil
	}
	var parts []wirePart
	if err := json.Unmarshal(wm.Content, &parts); err != nil {
		return m, fmt.Errorf("content is neither a string nor an array of parts: %w", err)
	}
	for _, wp := range parts {
		p := Part{Type: wp.Type, Text: wp.Text}
		if wp.Type == "image_url" {
			p.ImageURL, p.Detail = wp.ImageURL.URL, wp.ImageURL.Detail
			p.Size, p.Format, p.DecodeErr = decodeDataURL(p.ImageURL)
		}
		m.Parts = append(m.Parts, p)
	}
	return m, nil
}

// decodeDataURL reads the size of a base64 data URL's image.
func decodeDataURL(u string) (image.Point, string, string) {
	meta, data, ok := strings.Cut(u, ",")
	if !ok || !strings.HasPrefix(meta, "data:image/") || !strings.HasSuffix(meta, ";base64") {
		return image.Point{}, "", "not a base64 data:image/ URL"
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return image.Point{}, "", "base64: " + err.Error()
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return image.Point{}, "", "image: " + err.Error()
	}
	return image.Pt(cfg.Width, cfg.Height), format, ""
}
