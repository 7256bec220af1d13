package llm_test

import (
	"context"
	"fmt"
	"os"

	"deskpilot/agent/llm"
)

// A client for a preset, streaming a reply about a screenshot. (Not run: it needs a
// model server.)
func ExampleClient_Complete() {
	p, _ := llm.PresetByName("ollama")
	cl := llm.New(llm.Config{BaseURL: p.BaseURL, Model: p.Model, APIKey: os.Getenv(p.KeyEnv)})
	screenshot := "data:image/png;base64,..." // vision.DataURL of the downscaled frame
	res, err := cl.Complete(context.Background(), llm.Request{
		Messages: []llm.Message{
			{Role: "system", Parts: []llm.Part{{Text: "You operate a desktop by writing Python."}}},
			{Role: "user", Parts: []llm.Part{{Text: "Open the text editor."}, {ImageURL: screenshot}}},
		},
		Stop:      []string{"<end_code>"},
		MaxTokens: 2048,
		OnRetry: func(r llm.Retry) {
			if r.Discard {
				fmt.Println("\n[retrying; partial reply discarded]")
			}
		},
	}, func(delta string) { fmt.Print(delta) })
	if err != nil {
		fmt.Println("model call failed:", err)
		return
	}
	fmt.Printf("\n%d in, %d out tokens\n", res.Usage.Input, res.Usage.Output)
}
