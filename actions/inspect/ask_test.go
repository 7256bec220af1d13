package inspect_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"deskpilot/actions/inspect"
)

// model is a stand-in for the agent's model call: it records what it was
// given and answers from a script.
type model struct {
	mu       sync.Mutex
	question string
	text     string
	images   []inspect.Image
	answer   string
	err      error
}

func (m *model) ask(_ context.Context, question, text string, images ...inspect.Image) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.question, m.text, m.images = question, text, images
	return m.answer, m.err
}

func TestQuestions(t *testing.T) {
	m := &model{answer: "1. Short answer: 1932."}
	in, dir := fixtures(t, inspect.Options{Ask: m.ask})

	got, err := in.Inspect(t.Context(), filepath.Join(dir, "report.docx"), "  How many units did North sell?  ")
	if err != nil || got != "1. Short answer: 1932." {
		t.Fatalf("answer = %q, %v", got, err)
	}
	if m.question != "How many units did North sell?" {
		t.Errorf("question passed = %q", m.question)
	}
	if want := "File: report.docx (docx)\n\n" + reportDocx; m.text != want {
		t.Errorf("text passed to the model:\n%s", m.text)
	}
	if len(m.images) != 0 {
		t.Errorf("images passed for a document: %d", len(m.images))
	}

	t.Run("truncated text is flagged", func(t *testing.T) {
		small, _ := fixtures(t, inspect.Options{Ask: m.ask, MaxChars: 50})
		got, err := small.Inspect(t.Context(), filepath.Join(dir, "report.docx"), "What is this?")
		if err != nil {
			t.Fatal(err)
		}
		if want := "Note: the model read only part of the file.\n\n[Part 1 of 9 of the text (up to 50 characters each). Read on with inspect_file(\"" + filepath.Join(dir, "report.docx") + "\", page=2).]\n\n1. Short answer: 1932."; got != want {
			t.Errorf("answer = %q", got)
		}
		if want := "File: report.docx (docx)\n\n" + reportDocx[:50]; m.text != want {
			t.Errorf("text passed = %q", m.text)
		}
	})

	t.Run("model error", func(t *testing.T) {
		bad := &model{err: errors.New("rate limited")}
		in, _ := fixtures(t, inspect.Options{Ask: bad.ask})
		_, err := in.Inspect(t.Context(), filepath.Join(dir, "sales.csv"), "Sum?")
		if err == nil || err.Error() != "inspect: ask the model about sales.csv: rate limited" {
			t.Errorf("error = %v", err)
		}
	})

	t.Run("no model", func(t *testing.T) {
		in, _ := fixtures(t, inspect.Options{})
		got, err := in.Inspect(t.Context(), filepath.Join(dir, "sales.csv"), "Sum?")
		if err != nil || got != "No model is configured to answer questions about files, so here is the file's text instead.\n\n"+salesCSV {
			t.Errorf("answer = %q, %v", got, err)
		}
	})
}

func TestImages(t *testing.T) {
	dir := testdata(t)
	info := "# Image: chart.png\n\nFormat: PNG\nSize: 64 × 48 pixels\nFile size: 291 bytes"

	t.Run("caption without a question", func(t *testing.T) {
		m := &model{answer: " A navy rectangle on a sky-blue background. "}
		in, _ := fixtures(t, inspect.Options{Ask: m.ask})
		got, err := in.Inspect(t.Context(), filepath.Join(dir, "chart.png"), "")
		if err != nil || got != info+"\nCaption: A navy rectangle on a sky-blue background." {
			t.Errorf("answer = %q, %v", got, err)
		}
		if len(m.images) != 1 || m.images[0].MIME != "image/png" || m.images[0].Width != 64 || m.images[0].Height != 48 {
			t.Fatalf("images passed = %+v", m.images)
		}
		if m.text != info || !strings.HasPrefix(m.question, "Describe this image") {
			t.Errorf("prompt = %q / %q", m.question, m.text)
		}
	})

	t.Run("question", func(t *testing.T) {
		m := &model{answer: "Navy."}
		in, _ := fixtures(t, inspect.Options{Ask: m.ask})
		got, err := in.Inspect(t.Context(), filepath.Join(dir, "photo.jpg"), "What colour is the rectangle?")
		if err != nil || got != "Navy." {
			t.Errorf("answer = %q, %v", got, err)
		}
		if m.question != "What colour is the rectangle?" || len(m.images) != 1 || m.images[0].MIME != "image/jpeg" {
			t.Errorf("model got %q with %d images", m.question, len(m.images))
		}
	})

	t.Run("bmp is sent as png", func(t *testing.T) {
		m := &model{answer: "ok"}
		in, _ := fixtures(t, inspect.Options{Ask: m.ask})
		if _, err := in.Inspect(t.Context(), filepath.Join(dir, "chart.bmp"), "What is it?"); err != nil {
			t.Fatal(err)
		}
		if len(m.images) != 1 || m.images[0].MIME != "image/png" {
			t.Fatalf("images passed = %+v", m.images)
		}
		img, err := png.Decode(bytes.NewReader(m.images[0].Data))
		if err != nil || img.Bounds() != image.Rect(0, 0, 64, 48) {
			t.Fatalf("converted image: %v, %v", err, img)
		}
		// The navy rectangle drawn at (8,8)-(40,30) survives the conversion.
		if r, g, b, _ := img.At(20, 20).RGBA(); r>>8 != 0 || g>>8 != 0 || b>>8 != 128 {
			t.Errorf("pixel (20,20) = %d,%d,%d, want navy", r>>8, g>>8, b>>8)
		}
	})

	t.Run("no model", func(t *testing.T) {
		in, _ := fixtures(t, inspect.Options{})
		got, err := in.Inspect(t.Context(), filepath.Join(dir, "chart.png"), "What is it?")
		if err != nil || got != "No model is configured to look at images, so the question cannot be answered.\n\n"+info {
			t.Errorf("answer = %q, %v", got, err)
		}
	})

	t.Run("caption failure keeps the facts", func(t *testing.T) {
		m := &model{err: errors.New("offline")}
		in, _ := fixtures(t, inspect.Options{Ask: m.ask})
		got, err := in.Inspect(t.Context(), filepath.Join(dir, "chart.png"), "")
		if err != nil || got != info+"\n\n(No caption: the model could not be asked: offline)" {
			t.Errorf("answer = %q, %v", got, err)
		}
	})
}

func TestCancelled(t *testing.T) {
	in, dir := fixtures(t, inspect.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := in.Inspect(ctx, filepath.Join(dir, "paper.pdf"), "")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}
