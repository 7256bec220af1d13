package llmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// post sends a raw chat completion request and returns the status and body.
func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return res.StatusCode, string(data)
}

func TestStreamWireFormat(t *testing.T) {
	s := New(t, Reply{Text: "hi there", Usage: &Usage{Prompt: 9, Completion: 2}})
	status, body := post(t, s.URL, `{"model":"m","stream":true,"stream_options":{"include_usage":true},
		"messages":[{"role":"user","content":"hello"}]}`)
	if status != http.StatusOK {
		t.Fatalf("status %d: %s", status, body)
	}
	var events []string
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not an SSE data line", line)
		}
		events = append(events, data)
	}
	if len(events) != 6 || events[5] != "[DONE]" {
		t.Fatalf("events %q: want role, 2 deltas, finish, usage, [DONE]", events)
	}
	var text strings.Builder
	var finish string
	for _, e := range events[:4] {
		var c struct {
			Object  string
			Choices []struct {
				Delta        struct{ Content string }
				FinishReason *string `json:"finish_reason"`
			}
		}
		if err := json.Unmarshal([]byte(e), &c); err != nil || c.Object != "chat.completion.chunk" || len(c.Choices) != 1 {
			t.Fatalf("chunk %s: %v", e, err)
		}
		text.WriteString(c.Choices[0].Delta.Content)
		if c.Choices[0].FinishReason != nil {
			finish = *c.Choices[0].FinishReason
		}
	}
	if text.String() != "hi there" || finish != "stop" {
		t.Errorf("text %q finish %q", text.String(), finish)
	}
	var u struct {
		Choices []any
		Usage   struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	if err := json.Unmarshal([]byte(events[4]), &u); err != nil || len(u.Choices) != 0 || u.Usage.PromptTokens != 9 || u.Usage.CompletionTokens != 2 {
		t.Errorf("usage chunk %s: %v", events[4], err)
	}
}

func TestRecordsRequest(t *testing.T) {
	s := New(t, Reply{Func: func(r Request) string { return r.Last("user").Text() }})
	status, body := post(t, s.URL, `{"model":"m","max_completion_tokens":7,"temperature":0,"stop":"END",
		"messages":[{"role":"system","content":"sys"},{"role":"user","content":[{"type":"text","text":"a"},
		{"type":"image_url","image_url":{"url":"data:image/png;base64,!!","detail":"low"}},{"type":"text","text":"b"}]}]}`)
	if status != http.StatusOK || !strings.Contains(body, `"content":"a\nb"`) {
		t.Fatalf("status %d body %s", status, body)
	}
	r := s.Requests()[0]
	if r.Stream || r.MaxTokens != 7 || r.LimitField != "max_completion_tokens" || r.Temperature == nil || *r.Temperature != 0 ||
		len(r.Stop) != 1 || r.Stop[0] != "END" {
		t.Errorf("request %+v", r)
	}
	img := r.Images()
	if len(img) != 1 || img[0].Detail != "low" || img[0].DecodeErr == "" {
		t.Errorf("images %+v: want one undecodable low-detail image", img)
	}
}

// recorder is a testing.TB that keeps errors instead of failing.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestScriptExhaustedFailsTest(t *testing.T) {
	rec := &recorder{TB: t}
	s := New(rec, Reply{Text: "only"})
	msg := `{"model":"m","messages":[{"role":"user","content":"x"}]}`
	if status, _ := post(t, s.URL, msg); status != http.StatusOK {
		t.Fatalf("first request: status %d", status)
	}
	status, body := post(t, s.URL, msg)
	if status != http.StatusBadRequest || !strings.Contains(body, "script exhausted") {
		t.Errorf("second request: status %d body %s", status, body)
	}
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "no reply left") {
		t.Errorf("test errors %q, want one about the script", rec.errs)
	}
}

func TestMalformedRequestFailsTest(t *testing.T) {
	rec := &recorder{TB: t}
	s := New(rec, Reply{Text: "unused"})
	status, _ := post(t, s.URL, `{"model":"m","messages":[{"role":"robot","content":"x"}]}`)
	if status != http.StatusBadRequest || len(rec.errs) != 1 || s.Pending() != 1 {
		t.Errorf("status %d, test errors %q, pending %d", status, rec.errs, s.Pending())
	}
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"a b\nc ", []string{"a ", "b\n", "c "}},
		{"héllo wörld", []string{"héllo ", "wörld"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := split(tt.in)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || strings.Join(got, "") != tt.in {
				t.Errorf("split(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
