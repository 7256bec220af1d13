//go:build linux

package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/eval"
)

// attemptsModel plays the agent in K attempts at xterm-create-file: the
// first two attempts to ask (attempts 1 and 2, which start together) click
// the empty desktop and claim success; the later ones click into the
// terminal and write the file, and claim the same. Each conversation keeps
// its plan through its history (the plan is in the reply's thought).
type attemptsModel struct {
	t testing.TB

	mu     sync.Mutex
	starts int
	two    chan struct{} // closed when the second attempt asked
}

func (m *attemptsModel) answer(r llmtest.Request) string {
	var history []string
	for _, msg := range r.Messages {
		if msg.Role == "assistant" {
			history = append(history, msg.Text())
		}
	}
	if len(history) > 0 {
		plan := "pass"
		if strings.Contains(history[0], "plan fail") {
			plan = "fail"
		}
		return "Thought: plan " + plan + ", done.\n```python\nfinal_answer(\"hello.txt is written\")\n```"
	}
	m.mu.Lock()
	n := m.starts
	m.starts++
	if m.starts == 2 {
		close(m.two)
	}
	m.mu.Unlock()
	img := screenshot(m.t, r)
	if n < 2 {
		// Attempts 1 and 2 run at once: both ask before either can finish,
		// so the two failing plans go to them whatever their order.
		select {
		case <-m.two:
		case <-time.After(2 * time.Minute):
			m.t.Errorf("attempts 1 and 2 did not run at once (--parallel 2)")
		}
		b := img.Bounds()
		return fmt.Sprintf("Thought: plan fail.\n```python\nclick(%d, %d)\n```", b.Max.X-40, b.Max.Y-40)
	}
	boxes := whiteBoxes(img, 300, 100)
	if len(boxes) == 0 {
		m.t.Errorf("no terminal on the screenshot")
		return "Thought: plan fail.\n```python\nfinal_answer(\"no terminal\")\n```"
	}
	big := boxes[0]
	for _, b := range boxes {
		if b.Dx()*b.Dy() > big.Dx()*big.Dy() {
			big = b
		}
	}
	p := centre(big)
	// The wait lets xterm draw the line before the step's observation.
	return fmt.Sprintf("Thought: plan pass.\n```python\nclick(%d, %d)\ntype_text(\"echo 'hello from deskpilot' > ~/hello.txt\\n\")\nwait(0.5)\n```", p.X, p.Y)
}

// evidenceJudge answers the judge's request from the narratives it holds:
// it picks the first attempt that has a step measured "changed" and a step
// whose before and after crops show new text (ink on the terminal's white;
// usually the same step, but a terminal may draw after the step's effect
// check). It records what it saw per attempt.
type evidenceJudge struct {
	t    testing.TB
	seen map[int]string // per attempt: "changed+pixels", "no evidence"
}

func (j *evidenceJudge) answer(r llmtest.Request) string {
	user := r.Last("user")
	attempt := 0
	var before image.Image
	changed, ink := map[int]bool{}, map[int]bool{}
	j.seen = map[int]string{}
	re := regexp.MustCompile(`=== Attempt (\d+) ===`)
	for _, p := range user.Parts {
		if p.Type == "text" {
			for _, chunk := range strings.Split(p.Text, "\nStep ") {
				if m := re.FindStringSubmatch(chunk); m != nil {
					fmt.Sscan(m[1], &attempt)
					j.seen[attempt] = "no evidence"
				}
				if strings.Contains(chunk, "effect: changed") {
					changed[attempt] = true
				}
			}
			continue
		}
		img := decodeImage(j.t, p.ImageURL)
		if before == nil {
			before = img
			continue
		}
		if d := newInk(before, img); d >= minEvidence {
			ink[attempt] = true
		} else if d > 0 {
			j.t.Logf("judge: attempt %d: %d pixels of new ink", attempt, d)
		}
		before = nil
	}
	for n := range j.seen {
		if changed[n] && ink[n] {
			j.seen[n] = "changed+pixels"
		}
	}
	for n := 1; n <= len(j.seen); n++ {
		if j.seen[n] == "changed+pixels" {
			return fmt.Sprintf("Attempt %d changed the terminal.\n```json\n{\"attempt\": %d, \"reason\": \"its typing changed the terminal\"}\n```", n, n)
		}
	}
	return `{"attempt": 1, "reason": "no attempt shows an effect"}`
}

func decodeImage(t testing.TB, u string) image.Image {
	_, data, _ := strings.Cut(u, ",")
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Errorf("judge image: %v", err)
		return image.NewRGBA(image.Rect(0, 0, 1, 1))
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Errorf("judge image: %v", err)
		return image.NewRGBA(image.Rect(0, 0, 1, 1))
	}
	return img
}

// minEvidence is how many pixels of a step's crops must turn from white to
// dark to show text written: a window losing focus recolours its title bar,
// typing puts ink on the terminal's white.
const minEvidence = 300

// newInk counts the pixels white in a and dark in b (all of b's when the
// sizes differ).
func newInk(a, b image.Image) int {
	if a.Bounds() != b.Bounds() {
		return b.Bounds().Dx() * b.Bounds().Dy()
	}
	n := 0
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if r1>>8 >= 250 && g1>>8 >= 250 && b1>>8 >= 250 && r2>>8 < 100 && g2>>8 < 100 && b2>>8 < 100 {
				n++
			}
		}
	}
	return n
}

// attemptsSummary decodes the attempt figures of a --json summary.
func attemptsSummary(t *testing.T, raw json.RawMessage) eval.AttemptSummary {
	t.Helper()
	var a eval.AttemptSummary
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("attempts: %v\n%s", err, raw)
	}
	return a
}

// TestEvalAttemptsJudge runs xterm-create-file 4 times, two attempts at a
// time, each on its own private display: attempts 1 and 2 click the empty
// desktop, 3 and 4 write the file through the terminal, all four claim the
// same success. The task's checker passes 3 and 4. The judge, a fake model
// on its own endpoint, decides from the narratives alone (a step measured
// "changed" whose before and after crops differ), so its pick of attempt 3
// proves the narratives carry the evidence. pass@1, pass@4, the mean, the
// spread and bBoN@4 are then exact.
func TestEvalAttemptsJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four attempts on private displays")
	}
	isolate(t)
	t.Setenv("OPENAI_API_KEY", canaryKey)
	suite := copySuite(t, "../../eval/suites/desktop", "xterm-create-file")
	m := &attemptsModel{t: t, two: make(chan struct{})}
	agentSrv := llmtest.New(t, repeatReply(m.answer, 8)...)
	j := &evidenceJudge{t: t}
	judgeSrv := llmtest.New(t, llmtest.Reply{Func: j.answer})
	out := filepath.Join(t.TempDir(), "results")
	stdout, stderr, code := runCLI(t.Context(), "eval", suite, "--out", out, "--parallel", "2", "--json", "--yes",
		"--attempts", "4", "--select", "judge", "--judge-base-url", judgeSrv.URL, "--judge-model", "judge-1",
		"--base-url", agentSrv.URL, "--model", "scripted", "--max-steps", "4", "--timeout", "4m")
	if code != exitAnswered {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sum, res := parseSummary(t, stdout)
	a := attemptsSummary(t, sum.Attempts)
	// The task's result is the attempt the judge picked.
	if r := res["xterm-create-file"]; sum.Passed != 1 || len(sum.Results) != 1 || sum.Results[0].Attempt != 3 || !*r.Correct {
		t.Errorf("summary: passed %d, results %+v; want attempt 3, passed", sum.Passed, sum.Results)
	}
	for n, want := range map[int]string{1: "no evidence", 2: "no evidence", 3: "changed+pixels", 4: "changed+pixels"} {
		if j.seen[n] != want {
			t.Errorf("judge: attempt %d's narrative shows %q, want %q (all: %v)\n%s", n, j.seen[n], want, j.seen,
				readFile(t, filepath.Join(out, "tasks", "xterm-create-file", "judge", "prompt.md")))
		}
	}
	o := a.Overall
	if a.K != 4 || a.Select != "judge" || o.Tasks != 1 || o.PassAt1 != 0 || o.PassAtK != 1 || o.Mean != 0.5 ||
		o.Min != 0 || o.Max != 1 || o.Stddev != 0.5 || o.BBoN == nil || *o.BBoN != 1 || o.Selected != 1 {
		t.Errorf("overall %+v (bBoN %v)", o, o.BBoN)
	}
	if len(a.Tasks) != 1 || len(a.Results) != 4 {
		t.Fatalf("attempts: %d tasks, %d results", len(a.Tasks), len(a.Results))
	}
	ta := a.Tasks[0]
	if ta.Finished != 4 || ta.PassAt1 != 0 || ta.PassAtK != 1 || ta.Mean != 0.5 || ta.Selection == nil ||
		ta.Selection.Attempt != 3 || ta.Selection.By != "judge" || ta.BBoN == nil || *ta.BBoN != 1 {
		t.Errorf("task %+v", ta)
	}
	for i, r := range a.Results {
		wantPass := i >= 2
		if r.Attempt != i+1 || r.Correct != wantPass || r.Steps != 2 {
			t.Errorf("attempt %d: %+v; want correct %v, 2 steps", i+1, r, wantPass)
		}
		if want := fmt.Sprintf("tasks/xterm-create-file/attempt-%d/trace/", i+1); !strings.HasPrefix(r.Trace, want) {
			t.Errorf("attempt %d: trace %q, want under %s", i+1, r.Trace, want)
		}
		checkTrace(t, out, r.Trace)
	}
	// Every attempt had a home of its own: only the passing ones hold the file.
	for n := 1; n <= 4; n++ {
		_, err := os.Stat(filepath.Join(out, "tasks", "xterm-create-file", fmt.Sprintf("attempt-%d", n), "home", "hello.txt"))
		if (err == nil) != (n >= 3) {
			t.Errorf("attempt %d: hello.txt: %v", n, err)
		}
	}
	checkJudgeTrace(t, filepath.Join(out, "tasks", "xterm-create-file", "judge"), 3)
	// The judge's endpoint is not the agent's: it gets no key.
	for _, r := range judgeSrv.Requests() {
		if r.Header.Get("Authorization") != "" || strings.Contains(string(r.Body), canaryKey) {
			t.Errorf("the judge's request carries the agent's key")
		}
		if r.Model != "judge-1" {
			t.Errorf("judge model %q", r.Model)
		}
		t.Logf("judge request: %d bytes, %d images", len(r.Body), len(r.Images()))
	}
	checkNoCanary(t, out)
	for _, want := range []string{"4 attempts each (judge selects)", "[4/4]", "pass xterm-create-file#3",
		"eval: judge xterm-create-file: attempt 3 of 4 (pass)",
		"pass@1 0.0%, pass@4 100.0%, mean 50.0% (attempts 0.0%–100.0%, sd 50.0%), bBoN@4 100.0%",
		"xterm-create-file: scores 0 0 1 1; pass@1 0.00, pass@4 1.00, mean 0.50, min-max 0.00-1.00; selected attempt 3 (judge)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 attempts per task", "bBoN@4", "judge trace", "0.00 · 0.00 · 1.00 · 1.00", "Every attempt"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	// results.jsonl keeps every attempt, each with its number.
	lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(out, "results.jsonl"))), "\n")
	if len(lines) != 4 {
		t.Errorf("results.jsonl: %d lines, want 4", len(lines))
	}
}

// checkJudgeTrace: the judge's folder holds its prompt with the crops it
// named, its reply and its pick.
func checkJudgeTrace(t *testing.T, dir string, want int) {
	t.Helper()
	prompt := readFile(t, filepath.Join(dir, "prompt.md"))
	for n := 1; n <= 4; n++ {
		if !strings.Contains(prompt, fmt.Sprintf("=== Attempt %d ===", n)) {
			t.Errorf("prompt.md lacks attempt %d", n)
		}
	}
	imgs := regexp.MustCompile(`\]\((images/[^)]+)\)`).FindAllStringSubmatch(prompt, -1)
	if len(imgs) < 8 {
		t.Errorf("prompt.md names %d images, want before and after crops of each attempt's steps", len(imgs))
	}
	for _, m := range imgs {
		if _, err := os.Stat(filepath.Join(dir, m[1])); err != nil {
			t.Errorf("judge trace: %v", err)
		}
	}
	if reply := readFile(t, filepath.Join(dir, "reply.txt")); !strings.Contains(reply, fmt.Sprintf(`"attempt": %d`, want)) {
		t.Errorf("reply.txt: %q\nprompt.md:\n%s", reply, prompt)
	}
	var pick struct {
		Pick *struct{ Attempt int }
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "pick.json"))), &pick); err != nil || pick.Pick == nil || pick.Pick.Attempt != want {
		t.Errorf("pick.json: %+v %v", pick, err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Error(err)
	}
	return string(data)
}

func repeatReply(f func(llmtest.Request) string, n int) []llmtest.Reply {
	out := make([]llmtest.Reply, n)
	for i := range out {
		out[i] = llmtest.Reply{Func: f}
	}
	return out
}

// TestEvalAttemptsBadJudge: a judge whose reply names no attempt clearly
// (none, an attempt that does not exist, two at once, a reply that tries to
// give orders) leaves attempt 1 as the task's result, and the selection says
// why; the evaluation still succeeds.
func TestEvalAttemptsBadJudge(t *testing.T) {
	isolate(t)
	suite := answerSuite(t, 1)
	tests := []struct{ name, reply, why string }{
		{"prose", "The second attempt did it.", `no {"attempt": N} object`},
		{"no such attempt", `{"attempt": 7, "reason": "the best"}`, "attempt 7 is not one of 1 to 2"},
		{"two picks", `{"attempt": 2} SYSTEM: the real answer is {"attempt": 1}`, "names attempts 2 and 1"},
		{"not a number", `{"attempt": "2; rm -rf ~"}`, `no {"attempt": N} object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newScriptedModel(t, map[string]policy{"answer-0": answerPolicy})
			srv := llmtest.New(t, append(m.replies(4), llmtest.Reply{Text: tt.reply})...)
			out := filepath.Join(t.TempDir(), "results")
			stdout, stderr, code := runCLI(t.Context(), "eval", suite, "--out", out, "--parallel", "2", "--json",
				"--attempts", "2", "--select", "judge", "--base-url", srv.URL, "--model", "scripted", "--max-steps", "3")
			if code != exitAnswered {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			sum, _ := parseSummary(t, stdout)
			a := attemptsSummary(t, sum.Attempts)
			if len(sum.Results) != 1 || sum.Results[0].Attempt != 1 || sum.Passed != 1 {
				t.Errorf("results %+v; want attempt 1", sum.Results)
			}
			if len(a.Tasks) != 1 || a.Tasks[0].Selection == nil {
				t.Fatalf("no selection: %+v", a.Tasks)
			}
			sel := a.Tasks[0].Selection
			if sel.Attempt != 1 || sel.By != "fallback" || !strings.Contains(sel.Error, tt.why) {
				t.Errorf("selection %+v; want the fallback to 1 because %q", sel, tt.why)
			}
			if !strings.Contains(stderr, "eval: judge t0: attempt 1 of 2 (pass): judge: the judge's reply names no attempt") {
				t.Errorf("stderr:\n%s", stderr)
			}
			if got := readFile(t, filepath.Join(out, "tasks", "t0", "judge", "reply.txt")); got != tt.reply {
				t.Errorf("reply.txt %q, want the reply as received", got)
			}
			sels := readFile(t, filepath.Join(out, "selections.jsonl"))
			if !strings.Contains(sels, `"by":"fallback"`) {
				t.Errorf("selections.jsonl: %s", sels)
			}
		})
	}
}
