//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/eval"
)

// This file is the test side of `deskpilot eval`: a scripted model that plays
// several tasks at once (the fake server answers requests of parallel agents in
// any order, so each reply is computed from the request: which task, which step,
// what the screenshot and the last observation show), and helpers to run the
// command and read what it left.

// policy computes the code of a task's reply from its step (0 for the first
// request) and the request.
type policy func(t testing.TB, step int, r llmtest.Request) string

// scriptedModel answers each request with the policy of the task whose
// instruction the request's first user message names (by a substring of it;
// the longest such key, so that "" is the policy of every other task).
type scriptedModel struct {
	t        testing.TB
	policies map[string]policy

	mu    sync.Mutex
	tasks map[string]int // requests seen per policy key
}

func newScriptedModel(t testing.TB, policies map[string]policy) *scriptedModel {
	return &scriptedModel{t: t, policies: policies, tasks: map[string]int{}}
}

// replies are n scripted replies, each answered by m.
func (m *scriptedModel) replies(n int) []llmtest.Reply {
	out := make([]llmtest.Reply, n)
	for i := range out {
		out[i] = llmtest.Reply{Func: m.answer}
	}
	return out
}

func (m *scriptedModel) answer(r llmtest.Request) string {
	first := ""
	for _, msg := range r.Messages {
		if msg.Role == "user" {
			first = msg.Text()
			break
		}
	}
	step := 0
	for _, msg := range r.Messages {
		if msg.Role == "assistant" {
			step++
		}
	}
	// The longest key the message names wins: "" is the policy of every
	// task that has none of its own.
	best, found := "", false
	for key := range m.policies {
		if strings.Contains(first, key) && (!found || len(key) > len(best)) {
			best, found = key, true
		}
	}
	if found {
		m.mu.Lock()
		m.tasks[best]++
		m.mu.Unlock()
		return "Thought: step " + fmt.Sprint(step) + ".\n```python\n" + m.policies[best](m.t, step, r) + "\n```"
	}
	m.t.Errorf("scripted model: no policy for the task in %q", first)
	return "Thought: unknown task.\n```python\nfinal_answer(\"unknown task\")\n```"
}

// calls is how many requests the task named by key made.
func (m *scriptedModel) calls(key string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tasks[key]
}

// screenshot decodes the newest image of the request: what the model sees.
func screenshot(t testing.TB, r llmtest.Request) image.Image {
	imgs := r.Images()
	if len(imgs) == 0 {
		t.Errorf("scripted model: a request without a screenshot")
		return image.NewRGBA(image.Rect(0, 0, 1, 1))
	}
	u := imgs[len(imgs)-1].ImageURL
	_, data, _ := strings.Cut(u, ",")
	raw, err := base64.StdEncoding.DecodeString(data)
	if err == nil {
		var img image.Image
		if img, err = png.Decode(bytes.NewReader(raw)); err == nil {
			return img
		}
	}
	t.Errorf("scripted model: screenshot: %v", err)
	return image.NewRGBA(image.Rect(0, 0, 1, 1))
}

// whiteBoxes finds the solid white rectangles of img at least minW pixels wide
// and minH tall, top to bottom: text fields, list boxes and terminals on a
// screenshot (the background and window frames are never pure white).
func whiteBoxes(img image.Image, minW, minH int) []image.Rectangle {
	b := img.Bounds()
	open := map[[2]int]image.Rectangle{} // by x-range: boxes reaching the previous row
	var done []image.Rectangle
	white := func(x, y int) bool {
		r, g, bl, _ := img.At(x, y).RGBA()
		return r>>8 >= 250 && g>>8 >= 250 && bl>>8 >= 250
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		next := map[[2]int]image.Rectangle{}
		for x := b.Min.X; x < b.Max.X; {
			if !white(x, y) {
				x++
				continue
			}
			x0 := x
			for x < b.Max.X && white(x, y) {
				x++
			}
			if x-x0 < minW {
				continue
			}
			k := [2]int{x0, x}
			r, ok := open[k]
			if !ok {
				r = image.Rect(x0, y, x, y)
			}
			r.Max.Y = y + 1
			next[k] = r
			delete(open, k)
		}
		for _, r := range open {
			done = append(done, r)
		}
		open = next
	}
	for _, r := range open {
		done = append(done, r)
	}
	var out []image.Rectangle
	for _, r := range done {
		if r.Dy() >= minH {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b image.Rectangle) int { return (a.Min.Y-b.Min.Y)*100000 + a.Min.X - b.Min.X })
	return out
}

func centre(r image.Rectangle) image.Point { return image.Pt((r.Min.X+r.Max.X)/2, (r.Min.Y+r.Max.Y)/2) }

// lastObservation is the text of the newest user message: what the previous
// step printed and any error.
func lastObservation(r llmtest.Request) string { return r.Last("user").Text() }

// attachment is the path of a GAIA question's attached file, from the task.
func attachment(t testing.TB, r llmtest.Request) string {
	re := regexp.MustCompile(`Attached file: (\S+)`)
	for _, msg := range r.Messages {
		if m := re.FindStringSubmatch(msg.Text()); msg.Role == "user" && m != nil {
			return m[1]
		}
	}
	t.Errorf("scripted model: the question names no attached file")
	return ""
}

// runCLI runs deskpilot with args under ctx and returns stdout, stderr and the
// exit code.
func runCLI(ctx context.Context, args ...string) (stdout, stderr string, code int) {
	cmd := newRootCmd("test")
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetIn(strings.NewReader(""))
	cmd.SetArgs(args)
	code = exitCode(cmd.ExecuteContext(ctx), &errb)
	return out.String(), errb.String(), code
}

// summaryJSON is what `eval --json` prints, decoded strictly: the contract's
// keys and the documented extras (docs/eval.md), nothing else.
type summaryJSON struct {
	Suite       string       `json:"suite"`
	Model       string       `json:"model"`
	Tasks       int          `json:"tasks"`
	Passed      int          `json:"passed"`
	Results     []resultJSON `json:"results"`
	Interrupted bool         `json:"interrupted"`
	// OSWorld's rates, overall and per domain (eval's own tests check them).
	Overall json.RawMessage `json:"overall"`
	Domains json.RawMessage `json:"domains"`
	// The attempt figures with --attempts (evalattempts_e2e_test.go).
	Attempts json.RawMessage `json:"attempts"`
}

type resultJSON struct {
	ID       string   `json:"id"`
	Correct  *bool    `json:"correct"`
	Answer   *string  `json:"answer"`
	Exit     *int     `json:"exit"`
	Steps    *int     `json:"steps"`
	Seconds  *float64 `json:"seconds"`
	Tokens   *int     `json:"tokens"`
	Trace    *string  `json:"trace"`
	Error    *string  `json:"error"`
	Score    float64  `json:"score"`
	Expected string   `json:"expected"`
	Check    string   `json:"check"`
	Attempt  int      `json:"attempt"`
}

// parseSummary decodes --json output strictly and checks that every result has
// every contract key.
func parseSummary(t *testing.T, stdout string) (summaryJSON, map[string]resultJSON) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var s summaryJSON
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	byID := map[string]resultJSON{}
	for _, r := range s.Results {
		if r.Correct == nil || r.Answer == nil || r.Exit == nil || r.Steps == nil || r.Seconds == nil || r.Tokens == nil || r.Trace == nil || r.Error == nil {
			t.Errorf("result %q lacks a contract key: %+v", r.ID, r)
			continue
		}
		byID[r.ID] = r
	}
	return s, byID
}

// copySuite copies the named task files of a suite folder, with the folders
// they use (apps/, gold/), into a new folder.
func copySuite(t *testing.T, from string, ids ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), filepath.Base(from))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"apps", "gold"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join(from, sub))); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		data, err := os.ReadFile(filepath.Join(from, id+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := eval.Load(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
