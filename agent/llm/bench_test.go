package llm_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"deskpilot/agent/llm"
	"deskpilot/agent/llm/llmtest"
)

// BenchmarkComplete measures one model call against the local fake server with a
// realistic request (a 1366x768 screenshot) and a 200-word reply: the overhead the
// client adds to every agent step, excluding the model itself.
func BenchmarkComplete(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 1366, 768))
	for y := range 768 {
		for x := range 1366 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		b.Fatal(err)
	}
	shot := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	reply := strings.Repeat("word ", 200)
	req := llm.Request{Messages: []llm.Message{
		{Role: "system", Parts: []llm.Part{{Text: strings.Repeat("rules ", 500)}}},
		{Role: "user", Parts: []llm.Part{{Text: "task"}, {ImageURL: shot}}},
	}, MaxTokens: 1024}
	for _, noStream := range []bool{false, true} {
		name := "stream"
		if noStream {
			name = "json"
		}
		b.Run(name, func(b *testing.B) {
			srv := llmtest.New(b)
			cl := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", NoStream: noStream})
			b.SetBytes(int64(len(shot)))
			for b.Loop() {
				srv.Add(llmtest.Reply{Text: reply})
				if _, err := cl.Complete(b.Context(), req, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
