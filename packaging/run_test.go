package packaging

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
)

// sizeModel is a scripted model for one headless run: its first reply prints
// the screen size, its second answers with what the first printed, read from
// the request it gets, so the answer proves the code ran on the display and
// its output reached the model. The first request is answered "ok" when
// withPing (`deskpilot doctor` asks once).
func sizeModel(t *testing.T, withPing bool) *llmtest.Server {
	t.Helper()
	size := regexp.MustCompile(`\b(\d{3,4}) (\d{3,4})\b`)
	var replies []llmtest.Reply
	if withPing {
		replies = append(replies, llmtest.Reply{Text: "ok"})
	}
	replies = append(replies,
		llmtest.Reply{Text: "Thought: look.\n```python\nw, h = screen_size()\nprint(w, h)\n```"},
		llmtest.Reply{Func: func(r llmtest.Request) string {
			m := size.FindStringSubmatch(r.Last("user").Text())
			if m == nil {
				return "Thought: no size.\n```python\nfinal_answer(\"no size printed\")\n```"
			}
			return fmt.Sprintf("Thought: done.\n```python\nfinal_answer(\"the screen is %sx%s\")\n```", m[1], m[2])
		}},
	)
	return llmtest.New(t, replies...)
}

// runResult is what `deskpilot run --json` prints.
type runResult struct {
	Outcome, Answer, Trace string
	Steps                  int
}

// checkRun checks the output of `deskpilot run --json` against sizeModel on a
// screen of width x height.
func checkRun(t *testing.T, out string, width, height int) runResult {
	t.Helper()
	start := strings.Index(out, "{")
	var res runResult
	if start < 0 || json.Unmarshal([]byte(out[start:]), &res) != nil {
		t.Fatalf("deskpilot run printed no JSON result:\n%s", tail(out, 4000))
	}
	want := fmt.Sprintf("the screen is %dx%d", width, height)
	if res.Outcome != "answered" || res.Answer != want || res.Steps != 2 || res.Trace == "" {
		t.Errorf("run result %+v, want the answer %q in 2 steps with a trace", res, want)
	}
	return res
}
