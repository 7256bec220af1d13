package llm

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
)

// PingPrompt is the instruction Ping sends with its image.
const PingPrompt = "This is a connection test. Reply with the single word: ok"

// Ping checks that the endpoint answers and that the model takes images: it sends
// one user message with a 2x2 PNG and PingPrompt, asking for at most 16 tokens, in
// the configured mode (streaming or not). It makes one attempt (plus the
// compatibility fallbacks), so a rate limit or a dead server is reported at once.
// `deskpilot doctor` and the app's Test connection button use it; the returned
// Response shows what the model said and the tokens it cost.
func (c *Client) Ping(ctx context.Context) (Response, error) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	img.Set(1, 0, color.RGBA{G: 255, A: 255})
	img.Set(0, 1, color.RGBA{B: 255, A: 255})
	img.Set(1, 1, color.RGBA{R: 255, G: 255, B: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return Response{}, fmt.Errorf("llm: ping image: %w", err)
	}
	r := Request{
		Messages: []Message{{Role: "user", Parts: []Part{
			{ImageURL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())},
			{Text: PingPrompt},
		}}},
		MaxTokens: 16,
	}
	return c.complete(ctx, r, nil, 0)
}
