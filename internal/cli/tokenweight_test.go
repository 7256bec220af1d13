package cli

import (
	"image"
	"math"
	"testing"

	"deskpilot/agent/llm/llmtest"
)

// What a provider's prompt cache bills is tokens, not the base64 bytes of a
// request body: an image costs tokens by its pixel size, text about one
// token per four bytes. These weights turn the long-run benchmark's prefix
// share into the share of tokens a cache can serve.

// imageTokens is the input tokens a vendor bills for an image of a size.
type imageTokens func(image.Point) float64

// openAIImageTokens is OpenAI's high-detail rule for its tile models
// (GPT-4o, documented in its vision guide, "Calculating costs"): the image
// is scaled to fit in 2048x2048, then so that its short side is at most 768;
// each 512-pixel tile that covers it costs 170 tokens, plus 85 for the
// image. A 1366x768 screenshot is 3x2 tiles: 1105 tokens. (The GPT-4.1
// family counts 32-pixel patches instead: 1032 for 1366x768.)
func openAIImageTokens(sz image.Point) float64 {
	w, h := float64(sz.X), float64(sz.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	if f := 2048 / max(w, h); f < 1 {
		w, h = w*f, h*f
	}
	if f := 768 / min(w, h); f < 1 {
		w, h = w*f, h*f
	}
	tiles := math.Ceil(w/512) * math.Ceil(h/512)
	return 85 + 170*tiles
}

// anthropicImageTokens is Anthropic's estimate for an image the API does not
// resize (long edge at most 1568 pixels and about 1.15 megapixels for the
// models before 4.7): width*height/750, rounded up as its examples are. A
// 1366x768 screenshot is within those limits: 1399 tokens.
func anthropicImageTokens(sz image.Point) float64 {
	if sz.X <= 0 || sz.Y <= 0 {
		return 0
	}
	return math.Ceil(float64(sz.X*sz.Y) / 750)
}

// textTokens estimates a text's tokens at four bytes a token, the rule of
// thumb OpenAI and Google give for English; code and JSON run close to it.
// It is an estimate: no tokenizer is run.
func textTokens(n int) float64 { return float64(n) / 4 }

// partTokensBy is a part's input tokens with images weighted by img.
func partTokensBy(p llmtest.Part, img imageTokens) float64 {
	if p.Type == "image_url" {
		return img(p.Size)
	}
	return textTokens(len(p.Text))
}

// tokensBy is the input tokens of the messages' parts, images by img.
func tokensBy(msgs []llmtest.Message, img imageTokens) float64 {
	var t float64
	for _, m := range msgs {
		for _, p := range m.Parts {
			t += partTokensBy(p, img)
		}
	}
	return t
}

// sharedTokensBy is the tokens of the parts cur repeats from prev, in order
// from the start, up to the first difference (a text part counts up to its
// first differing byte), images by img.
func sharedTokensBy(prev, cur []llmtest.Message, img imageTokens) float64 {
	var t float64
	for i := range min(len(prev), len(cur)) {
		a, b := prev[i], cur[i]
		if a.Role != b.Role {
			return t
		}
		for j := range min(len(a.Parts), len(b.Parts)) {
			pa, pb := a.Parts[j], b.Parts[j]
			if pa.Type != pb.Type || pa.Text != pb.Text || pa.ImageURL != pb.ImageURL {
				if pa.Type == "text" && pb.Type == "text" {
					t += textTokens(commonPrefix([]byte(pa.Text), []byte(pb.Text)))
				}
				return t
			}
			t += partTokensBy(pa, img)
		}
		if len(a.Parts) != len(b.Parts) {
			return t
		}
	}
	return t
}

// tokenShares is, for each request after the first, the share of the
// previous request's tokens it repeats as its own prefix, images by img.
func tokenShares(reqs []llmtest.Request, img imageTokens) []float64 {
	var shares []float64
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1].Messages, reqs[i].Messages
		if total := tokensBy(prev, img); total > 0 {
			shares = append(shares, sharedTokensBy(prev, cur, img)/total)
		}
	}
	return shares
}

// TestImageTokens checks the weights against the vendors' worked examples.
func TestImageTokens(t *testing.T) {
	for _, c := range []struct {
		name string
		f    imageTokens
		size image.Point
		want float64
	}{
		// OpenAI's vision guide: 1024x1024 -> 768x768, 4 tiles, 765.
		{"openai 1024x1024", openAIImageTokens, image.Pt(1024, 1024), 765},
		// 2048x4096 -> 1024x2048 -> 768x1536, 6 tiles, 1105.
		{"openai 2048x4096", openAIImageTokens, image.Pt(2048, 4096), 1105},
		{"openai 1366x768", openAIImageTokens, image.Pt(1366, 768), 1105},
		{"openai 500x500", openAIImageTokens, image.Pt(500, 500), 255},
		{"openai empty", openAIImageTokens, image.Point{}, 0},
		// Anthropic's vision guide: ~54, ~1334, ~1590.
		{"anthropic 200x200", anthropicImageTokens, image.Pt(200, 200), 54},
		{"anthropic 1000x1000", anthropicImageTokens, image.Pt(1000, 1000), 1334},
		{"anthropic 1092x1092", anthropicImageTokens, image.Pt(1092, 1092), 1590},
		{"anthropic 1366x768", anthropicImageTokens, image.Pt(1366, 768), 1399},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.f(c.size); got != c.want {
				t.Errorf("tokens(%v) = %v, want %v", c.size, got, c.want)
			}
		})
	}
}

// TestTokenShares checks the token-weighted share on a request that drops
// its oldest screenshot: the cache serves the text before it, and nothing
// after.
func TestTokenShares(t *testing.T) {
	img := func(url string) llmtest.Part {
		return llmtest.Part{Type: "image_url", ImageURL: url, Size: image.Pt(1366, 768)}
	}
	text := func(s string) llmtest.Part { return llmtest.Part{Type: "text", Text: s} }
	sys := llmtest.Message{Role: "system", Parts: []llmtest.Part{text(string(make([]byte, 4000)))}}
	turn := func(url string) llmtest.Message {
		return llmtest.Message{Role: "user", Parts: []llmtest.Part{text("look"), img(url)}}
	}
	a := llmtest.Request{Messages: []llmtest.Message{sys, turn("a"), turn("b")}}
	b := llmtest.Request{Messages: []llmtest.Message{sys, turn("a"), turn("b"), turn("c")}}
	c := llmtest.Request{Messages: []llmtest.Message{sys, {Role: "user", Parts: []llmtest.Part{text("look"), text("[old]")}}, turn("b"), turn("c"), turn("d")}}
	got := tokenShares([]llmtest.Request{a, b, c}, openAIImageTokens)
	if len(got) != 2 {
		t.Fatalf("shares = %v, want 2", got)
	}
	if got[0] != 1 {
		t.Errorf("extending request shares %v, want 1", got[0])
	}
	// The system prompt (1000) and "look" (1) of 1000 + 3*1 + 3*1105.
	if want := 1001.0 / (1003 + 3*1105); math.Abs(got[1]-want) > 1e-9 {
		t.Errorf("request that drops a screenshot shares %v, want %v", got[1], want)
	}
}

// commonPrefix is the length of the bytes a and b begin with alike.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
