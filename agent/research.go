package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"deskpilot/actions/inspect"
	"deskpilot/agent/llm"
)

// fileQuestionPrompt is the system message of a question about a file.
const fileQuestionPrompt = `You answer a question about a file for an agent that cannot read the file itself.
Answer from the file's content only. Quote exact names, numbers and dates as they appear.
If the content does not answer the question, say so and say what it does contain.
Be brief: the answer, then at most a few sentences of supporting detail.`

// InspectAsk returns the model callback of the file inspector
// (inspect.Options.Ask): it sends the file's text, its images (as data URLs)
// and the question to m in one request and returns the reply text. The
// reply is limited to cfg's MaxTokens and sampled at cfg's Temperature. The
// callback is safe for concurrent use when m is.
func InspectAsk(m Model, cfg Config) func(ctx context.Context, question, text string, images ...inspect.Image) (string, error) {
	cfg = cfg.withDefaults()
	return func(ctx context.Context, question, text string, images ...inspect.Image) (string, error) {
		parts := []llm.Part{{Text: text}}
		for _, img := range images {
			label := fmt.Sprintf("Image %s (%s, %dx%d pixels):", img.Name, img.MIME, img.Width, img.Height)
			parts = append(parts, llm.Part{Text: label}, llm.Part{Image: img.Data, ImageMIME: img.MIME})
		}
		parts = append(parts, llm.Part{Text: "Question: " + question})
		req := llm.Request{
			Messages: []llm.Message{
				{Role: "system", Parts: []llm.Part{{Text: fileQuestionPrompt}}},
				{Role: "user", Parts: parts},
			},
			MaxTokens: cfg.MaxTokens,
		}
		if cfg.Temperature != 0 {
			t := cfg.Temperature
			req.Temperature = &t
		}
		resp, err := m.Complete(ctx, req, nil)
		if err != nil {
			return "", fmt.Errorf("model: %w", err)
		}
		answer := strings.TrimSpace(resp.Text)
		if answer == "" {
			return "", errors.New("model: the reply was empty")
		}
		return answer, nil
	}
}
