package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{"none", http.Header{}, 0, false},
		{"seconds", http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		{"fractional seconds", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond, true},
		{"date", http.Header{"Retry-After": {now.Add(time.Minute).Format(http.TimeFormat)}}, time.Minute, true},
		{"date in the past", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0, true},
		{"milliseconds win", http.Header{"Retry-After-Ms": {"20"}, "Retry-After": {"9"}}, 20 * time.Millisecond, true},
		{"bad milliseconds fall back", http.Header{"Retry-After-Ms": {"soon"}, "Retry-After": {"2"}}, 2 * time.Second, true},
		{"negative", http.Header{"Retry-After": {"-4"}}, 0, false},
		{"garbage", http.Header{"Retry-After": {"tomorrow"}}, 0, false},
		{"huge", http.Header{"Retry-After": {"1e300"}}, time.Duration(1<<63 - 1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := retryAfter(tt.header, now)
			if got != tt.want || ok != tt.ok {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseErrorBody(t *testing.T) {
	tests := []struct {
		name, body, msg, typ, code string
	}{
		{"openai", `{"error":{"message":"bad model","type":"invalid_request_error","code":"model_not_found"}}`,
			"bad model", "invalid_request_error", `"model_not_found"`},
		{"ollama", `{"error":"model \"x\" not found"}`, `model "x" not found`, "", ""},
		{"vllm", `{"object":"error","message":"too long","type":"BadRequestError","code":400}`, "too long", "BadRequestError", "400"},
		{"llama.cpp", `{"error":{"code":500,"message":"slot busy","type":"server_error"}}`, "slot busy", "server_error", "500"},
		{"fastapi string", `{"detail":"Not Found"}`, "Not Found", "", ""},
		{"fastapi list", `{"detail":[{"loc":["body","stop"],"msg":"bad"}]}`, `[{"loc":["body","stop"],"msg":"bad"}]`, "", ""},
		{"plain text", "  upstream connect error  ", "upstream connect error", "", ""},
		{"empty", "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, typ, code := parseErrorBody([]byte(tt.body))
			if msg != tt.msg || typ != tt.typ || string(code) != tt.code {
				t.Errorf("got %q %q %s, want %q %q %s", msg, typ, code, tt.msg, tt.typ, tt.code)
			}
		})
	}
}

func TestStreamErrorCodeBecomesStatus(t *testing.T) {
	c := New(Config{APIKey: "sk-abcdef"})
	e := c.apiError(0, nil, []byte(`{"error":{"message":"key sk-abcdef rejected","code":401}}`))
	if e.Status != 401 || e.Message != "key [redacted] rejected" || e.temporary() {
		t.Errorf("got %+v", e)
	}
	e = c.apiError(0, nil, []byte(`{"error":{"message":"overloaded"}}`))
	e.InStream = true
	if e.Status != 0 || !e.temporary() {
		t.Errorf("code-less stream error %+v should be temporary", e)
	}
}

func TestClip(t *testing.T) {
	if got := clip("ééé", 3); got != "é…" {
		t.Errorf("clip = %q, want a whole rune and an ellipsis", got)
	}
}
