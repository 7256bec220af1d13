package judge

import (
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent/convo"
)

func TestParseReply(t *testing.T) {
	tests := []struct {
		name, reply string
		want        int    // 0: an error
		why         string // in the error
	}{
		{"bare object", `{"attempt": 2, "reason": "it saved the file"}`, 2, ""},
		{"in a code fence with prose", "I compared them.\n```json\n{\"attempt\": 3, \"reason\": \"x\"}\n```", 3, ""},
		{"the same pick twice", `{"attempt": 1} and again {"attempt": 1}`, 1, ""},
		{"nested object is not a pick", `{"attempt": 2, "detail": {"attempt": 4}}`, 2, ""},
		{"prose only", "Attempt 2 is best.", 0, "no {"},
		{"two picks", `{"attempt": 2} no wait {"attempt": 3}`, 0, "attempts 2 and 3"},
		{"out of range", `{"attempt": 5}`, 0, "not one of 1 to 4"},
		{"zero", `{"attempt": 0}`, 0, "not one of 1 to 4"},
		{"fraction", `{"attempt": 1.5}`, 0, "not a whole number"},
		{"huge", `{"attempt": 99999999999999999999}`, 0, "not a whole number"},
		{"a number in quotes", `{"attempt": "2"}`, 2, ""},
		{"a string", `{"attempt": "two"}`, 0, "no {"},
		{"cut JSON", `{"attempt": 2`, 0, "no {"},
		{"empty", "", 0, "no {"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseReply(tt.reply, 4)
			if tt.want > 0 {
				if err != nil || p.Attempt != tt.want {
					t.Errorf("ParseReply = %+v, %v; want attempt %d", p, err, tt.want)
				}
				return
			}
			var re *ReplyError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("ParseReply = %+v, %v; want a ReplyError with %q", p, err, tt.why)
			}
		})
	}
}

// FuzzParseReply: any reply gives an attempt in range or a ReplyError.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{`{"attempt": 2}`, "```json\n{\"attempt\":1,\"reason\":\"a\"}\n```", `{{{"attempt":`, `{"attempt": 1e3}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		p, err := ParseReply(reply, 3)
		var re *ReplyError
		switch {
		case err == nil && (p.Attempt < 1 || p.Attempt > 3):
			t.Fatalf("attempt %d out of range", p.Attempt)
		case err != nil && !errors.As(err, &re):
			t.Fatalf("error %v is not a ReplyError", err)
		}
	})
}

// model is a fake judge model: it keeps the request and answers reply or err.
type model struct {
	reply string
	err   error
	got   convo.Request
}

func (m *model) Complete(_ context.Context, r convo.Request, _ func(string)) (convo.Response, error) {
	m.got = r
	return convo.Response{Text: m.reply}, m.err
}

// TestChooseTraces: the prompt tells every attempt, also one without a
// trace, and the judge's folder keeps prompt, reply and pick, also when the
// model fails.
func TestChooseTraces(t *testing.T) {
	attempts := []Attempt{{N: 1, Answer: "42", Exit: 0}, {N: 2, Trace: filepath.Join(t.TempDir(), "missing"), Exit: 1, Error: "timeout"}}
	dir := t.TempDir()
	m := &model{reply: `{"attempt": 2, "reason": "it timed out less"}`}
	p, err := (&Judge{Model: m, Name: "j"}).Choose(t.Context(), "Compute it", attempts, dir)
	if err != nil || p.Attempt != 2 || p.Reason != "it timed out less" {
		t.Fatalf("Choose = %+v, %v", p, err)
	}
	if len(m.got.Messages) != 2 || m.got.Messages[0].Role != "system" || !strings.Contains(m.got.Messages[1].Parts[0].Text, "Task: Compute it") {
		t.Errorf("request %+v", m.got.Messages)
	}
	prompt, _ := os.ReadFile(filepath.Join(dir, PromptFile))
	for _, want := range []string{"=== Attempt 1 ===", "No trace was recorded", `its final answer: "42"`, "=== Attempt 2 ===", "could not be read", "what went wrong: timeout"} {
		if !strings.Contains(string(prompt), want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if reply, _ := os.ReadFile(filepath.Join(dir, ReplyFile)); string(reply) != m.reply {
		t.Errorf("reply.txt %q", reply)
	}
	dir2 := t.TempDir()
	boom := errors.New("connection refused")
	if _, err := (&Judge{Model: &model{err: boom}}).Choose(t.Context(), "x", attempts, dir2); !errors.Is(err, boom) {
		t.Errorf("a failing model: %v", err)
	}
	if pick, _ := os.ReadFile(filepath.Join(dir2, PickFile)); !strings.Contains(string(pick), "connection refused") {
		t.Errorf("pick.json %s", pick)
	}
}

func TestCropRegion(t *testing.T) {
	screen := image.Rect(0, 0, 1920, 1080)
	at := func(x, y int) *image.Point { p := image.Pt(x, y); return &p }
	tests := []struct {
		name    string
		target  *image.Point
		changed image.Rectangle
		want    image.Rectangle
	}{
		{"around the target", at(960, 540), image.Rect(900, 500, 950, 520), image.Rect(720, 380, 1200, 700)},
		{"kept inside the screen", at(1910, 5), image.Rectangle{}, image.Rect(1440, 0, 1920, 320)},
		{"the change lies elsewhere", at(1800, 1000), image.Rect(100, 100, 300, 120), image.Rect(0, 0, 480, 320)},
		{"a change larger than a crop", nil, image.Rect(0, 100, 1500, 140), image.Rect(0, 0, 1500, 320)},
		{"nothing to go by", nil, image.Rectangle{}, screen},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := cropRegion(screen, tt.target, tt.changed); got != tt.want {
				t.Errorf("cropRegion = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestParseReplyNested: deeply nested braces end soon, as a reply without a pick.
func TestParseReplyNested(t *testing.T) {
	reply := strings.Repeat(`{"a":`, 50000) + `{"attempt": 1}`
	if _, err := ParseReply(reply, 2); err == nil {
		t.Errorf("a pick found past %d tried objects", maxObjects)
	}
}
