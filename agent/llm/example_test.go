package llm_test

import (
	"context"
	"fmt"
	"os"

	"deskpilot/agent/llm"
)

// A client for a local Ollama, streaming a reply about a screenshot. (Not run: it
// needs a model server.)
func ExampleClient_Complete() {
	cl := llm.New(llm.Config{BaseURL: "http://localhost:11434/v1", Model: "qwen2.5vl:7b", APIKey: os.Getenv("OLLAMA_API_KEY")})
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
