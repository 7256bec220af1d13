//go:build linux

package cli

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"deskpilot/actions/inspect"
	"deskpilot/agent/llm/llmtest"
)

// canaryKey is the API key of the e2e evaluations: it must reach no request
// body, result, trace or program of a task.
const canaryKey = "sk-canary-3f9a0d1c7e"

// TestEvalDesktop runs four tasks of the desktop suite through `deskpilot eval`,
// two at a time, each on its own 1920x1080 private display, with the real agent
// and a scripted model over real HTTP. The model works from what it is sent:
// it finds the terminal and the form's text fields as white boxes in the
// (downscaled) screenshot and clicks their centres, types, saves, and launches a
// program; it gets two tasks wrong. The suite's own checkers must pass the two
// it solved and fail the other two.
func TestEvalDesktop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four desktop tasks on private displays")
	}
	isolate(t)
	t.Setenv("OPENAI_API_KEY", canaryKey)
	suite := copySuite(t, "../../eval/suites/desktop", "xterm-create-file", "form-name-email", "zenity-question-yes", "xterm-disk-usage-answer")
	envDump(t, suite)
	m := newScriptedModel(t, map[string]policy{
		"hello from deskpilot": terminalPolicy,
		"Ada Lovelace":         formPolicy,
		"delete the cache": func(testing.TB, int, llmtest.Request) string {
			return "press(\"escape\")\nfinal_answer(\"answered the dialog\")" // Escape is No
		},
		"largest file": func(testing.TB, int, llmtest.Request) string { return `final_answer("a")` }, // b is right
	})
	srv := llmtest.New(t, m.replies(3+2+1+1)...)
	out := filepath.Join(t.TempDir(), "results")
	stdout, stderr, code := runCLI(t.Context(), "eval", suite, "--out", out, "--parallel", "2", "--json", "--yes",
		"--base-url", srv.URL, "--model", "scripted", "--max-steps", "6", "--timeout", "4m")
	if code != exitAnswered {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sum, res := parseSummary(t, stdout)
	if sum.Suite != "desktop" || sum.Model != "scripted" || sum.Tasks != 4 || len(sum.Results) != 4 || sum.Passed != 2 || sum.Interrupted {
		t.Errorf("summary %+v", sum)
	}
	want := map[string]struct {
		pass  bool
		steps int
	}{"xterm-create-file": {true, 3}, "form-name-email": {true, 2}, "zenity-question-yes": {false, 1}, "xterm-disk-usage-answer": {false, 1}}
	for id, w := range want {
		r, ok := res[id]
		if !ok {
			t.Errorf("%s: no result", id)
			continue
		}
		if *r.Correct != w.pass || *r.Exit != exitAnswered || *r.Steps != w.steps || *r.Tokens <= 0 || *r.Error != "" {
			t.Errorf("%s: correct %v exit %d steps %d tokens %d error %q check %q; want correct %v, %d steps",
				id, *r.Correct, *r.Exit, *r.Steps, *r.Tokens, *r.Error, r.Check, w.pass, w.steps)
		}
		checkTrace(t, out, *r.Trace)
	}
	if got := res["xterm-disk-usage-answer"]; got.Answer != nil && *got.Answer != "a" {
		t.Errorf("answer %q, want the model's a", *got.Answer)
	}
	for _, key := range []string{"hello from deskpilot", "Ada Lovelace", "delete the cache", "largest file"} {
		if n, w := m.calls(key), map[string]int{"hello from deskpilot": 3, "Ada Lovelace": 2, "delete the cache": 1, "largest file": 1}[key]; n != w {
			t.Errorf("task %q: %d model calls, want %d", key, n, w)
		}
	}
	for i, r := range srv.Requests() {
		if imgs := r.Images(); len(imgs) == 0 || imgs[len(imgs)-1].Size != image.Pt(1366, 768) {
			t.Errorf("request %d: screenshot %v, want 1366x768 (1920x1080 downscaled)", i, imgs)
		}
		if strings.Contains(string(r.Body), canaryKey) {
			t.Errorf("request %d carries the API key in its body", i)
		}
	}
	checkLaunchedEnv(t, filepath.Join(out, "tasks", "xterm-create-file", "home"))
	checkNoCanary(t, out)
	for _, want := range []string{"eval: desktop (osworld): 4 tasks", "eval: [4/4]", "pass form-name-email", "fail zenity-question-yes", "eval: 2 of 4 passed"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// envDump puts deskpilot-envdump in the suite's folder, which the task's box
// sees at its own path: a program that writes its environment to
// $HOME/launched-env.txt.
func envDump(t *testing.T, suite string) {
	t.Helper()
	script := "#!/bin/sh\nenv > \"$HOME/launched-env.part\" && mv \"$HOME/launched-env.part\" \"$HOME/launched-env.txt\"\n"
	envDumpPath = filepath.Join(suite, "deskpilot-envdump")
	if err := os.WriteFile(envDumpPath, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

var envDumpPath string // envDump's program

// terminalPolicy clicks into the terminal (the largest white box on the
// screen), writes hello.txt with the shell, then launches a program that
// records its environment, then answers.
func terminalPolicy(t testing.TB, step int, r llmtest.Request) string {
	switch step {
	case 0:
		boxes := whiteBoxes(screenshot(t, r), 300, 100)
		if len(boxes) == 0 {
			t.Errorf("terminal: no white box on the screenshot")
			return `final_answer("no terminal")`
		}
		big := boxes[0]
		for _, b := range boxes {
			if b.Dx()*b.Dy() > big.Dx()*big.Dy() {
				big = b
			}
		}
		p := centre(big)
		return fmt.Sprintf("click(%d, %d)\ntype_text(\"echo 'hello from deskpilot' > ~/hello.txt\\n\")", p.X, p.Y)
	case 1:
		return fmt.Sprintf("launch(%q)", envDumpPath)
	default:
		if obs := lastObservation(r); strings.Contains(obs, "Error") {
			t.Errorf("terminal: launch failed: %s", obs)
		}
		return `final_answer("hello.txt is written")`
	}
}

// formPolicy fills the order form: its first two white boxes from the top are
// the name and email fields.
func formPolicy(t testing.TB, step int, r llmtest.Request) string {
	if step > 0 {
		return `final_answer("saved the form")`
	}
	boxes := whiteBoxes(screenshot(t, r), 120, 8)
	if len(boxes) < 2 {
		t.Errorf("form: %d white boxes on the screenshot, want the name and email fields", len(boxes))
		return `final_answer("no form")`
	}
	name, email := centre(boxes[0]), centre(boxes[1])
	return fmt.Sprintf("click(%d, %d)\ntype_text(\"Ada Lovelace\")\nclick(%d, %d)\ntype_text(\"ada@example.org\")\npress(\"ctrl+s\")",
		name.X, name.Y, email.X, email.Y)
}

// checkTrace: a result's trace folder (relative to the results folder) holds
// the run's trace and its report.
func checkTrace(t *testing.T, out, rel string) {
	t.Helper()
	if rel == "" || filepath.IsAbs(rel) {
		t.Errorf("trace %q: want a folder inside the results folder", rel)
		return
	}
	for _, f := range []string{"trace.jsonl", "report.html"} {
		if _, err := os.Stat(filepath.Join(out, rel, f)); err != nil {
			t.Errorf("trace %s: %v", rel, err)
		}
	}
}

// checkLaunchedEnv: the program the agent launched ran on the task's display
// with the task's environment, not the evaluator's.
func checkLaunchedEnv(t *testing.T, home string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, "launched-env.txt"))
	if err != nil {
		t.Fatalf("the launched program left no environment: %v", err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	if d := env["DISPLAY"]; !regexp.MustCompile(`^:\d+$`).MatchString(d) || d == os.Getenv("DISPLAY") {
		t.Errorf("launched on DISPLAY %q; want the task's private display, not the test's %s", d, os.Getenv("DISPLAY"))
	}
	if a := env["XAUTHORITY"]; a == "" || a == os.Getenv("XAUTHORITY") {
		t.Errorf("launched with XAUTHORITY %q; want the task display's own", a)
	}
	if env["HOME"] != "/home/user" { // the task's home, in its box
		t.Errorf("launched with HOME %q, want the task's /home/user", env["HOME"])
	}
	if _, ok := env["OPENAI_API_KEY"]; ok || strings.Contains(string(data), canaryKey) {
		t.Errorf("the launched program saw the evaluator's API key")
	}
}

// checkNoCanary: no file the evaluation wrote holds the API key.
func checkNoCanary(t *testing.T, out string) {
	t.Helper()
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), canaryKey) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// TestEvalGAIA runs the GAIA-format suite of the repository (questions over a
// PDF, a spreadsheet and a Word file) through `deskpilot eval`, two at a time:
// the scripted model reads each attached file with inspect_file, then works
// the answer out of the text the inspector returned; one answer is wrong on
// purpose (it counts the apologies as attendees). The official scorer decides.
// One task first tries to read a file in the evaluator's own home folder: the
// inspector must refuse it.
func TestEvalGAIA(t *testing.T) {
	if testing.Short() {
		t.Skip("runs eight questions, each on a private display")
	}
	isolate(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	secret := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(secret, []byte("evaluator-private-7c1e"), 0o600); err != nil {
		t.Fatal(err)
	}
	warmPDFCache(t)
	m := newScriptedModel(t, gaiaPolicies(secret))
	srv := llmtest.New(t, m.replies(8*2+1)...)
	out := filepath.Join(t.TempDir(), "results")
	stdout, stderr, code := runCLI(t.Context(), "eval", "../../eval/suites/gaia-files", "--out", out, "--parallel", "2", "--json",
		"--base-url", srv.URL, "--model", "scripted", "--max-steps", "4", "--screen", "1280x800")
	if code != exitAnswered {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	sum, res := parseSummary(t, stdout)
	if sum.Suite != "gaia-files" || sum.Tasks != 8 || len(sum.Results) != 8 || sum.Passed != 7 {
		t.Errorf("summary: suite %q, %d tasks, %d results, %d passed; want gaia-files 8 8 7\n%s", sum.Suite, sum.Tasks, len(sum.Results), sum.Passed, stdout)
	}
	for id, r := range res {
		wantPass := id != "gf-attendees"
		if *r.Correct != wantPass || *r.Error != "" || r.Expected == "" {
			t.Errorf("%s: correct %v answer %q expected %q error %q", id, *r.Correct, *r.Answer, r.Expected, *r.Error)
		}
		checkTrace(t, out, *r.Trace)
	}
	if r := res["gf-attendees"]; r.Answer == nil || *r.Answer != "8" || r.Expected != "7" {
		t.Errorf("gf-attendees: %+v", r)
	}
	refused := false
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "evaluator-private-7c1e") {
			t.Errorf("the evaluator's file reached the model")
		}
		refused = refused || strings.Contains(lastObservation(r), "outside the folders the inspector may read")
	}
	if !refused {
		t.Errorf("reading the evaluator's home was not refused")
	}
}

// warmPDFCache points this test's cache folder for PDFium's compiled code at
// the one the inspector's tests keep between runs, and fills it if empty, as
// on a machine that ran deskpilot before: compiling PDFium under the race
// detector takes longer than the minute the inspector allows for one file.
func warmPDFCache(t *testing.T) {
	t.Helper()
	shared := filepath.Join(os.TempDir(), "deskpilot-test-pdfium")
	e := inspect.NewPDFEngine(inspect.PDFOptions{CacheDir: shared})
	if _, err := e.Start(); err != nil {
		t.Fatal(err)
	}
	e.Close()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cache, "deskpilot"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(cache, "deskpilot", "pdfium")); err != nil {
		t.Fatal(err)
	}
}

// gaiaPolicies answers each question of the gaia-files suite from the text
// inspect_file returned for its attachment.
func gaiaPolicies(secret string) map[string]policy {
	find := func(re string) func(string) string {
		return func(text string) string {
			if m := regexp.MustCompile(re).FindStringSubmatch(text); m != nil {
				return strings.Join(m[1:], ", ")
			}
			return "not found"
		}
	}
	warehouse := readThenAnswer(find(`warehouse opened in (\w+)`))
	p := map[string]policy{
		"revenue in 2025": readThenAnswer(find(`to ([\d,]+) euros`)),
		"product lines":   readThenAnswer(find(`product lines:\s*(\w+), (\w+) and (\w+)`)),
		"North region":    readThenAnswer(sumUnits("North")),
		"most revenue":    readThenAnswer(topProduct),
		"budget review":   readThenAnswer(find(`(\w+ \w+) is responsible for the budget review`)),
		"people attended": readThenAnswer(countPeople),
		"next meeting":    readThenAnswer(meetingDate),
		"new warehouse": func(t testing.TB, step int, r llmtest.Request) string {
			if step == 0 { // as a hostile page might ask: the evaluator's files are off limits
				return fmt.Sprintf("print(inspect_file(%q))", secret)
			}
			return warehouse(t, step-1, r)
		},
	}
	return p
}

// readThenAnswer prints the attachment, then answers from what was printed.
func readThenAnswer(answer func(text string) string) policy {
	return func(t testing.TB, step int, r llmtest.Request) string {
		if step == 0 {
			return fmt.Sprintf("print(inspect_file(%q))", attachment(t, r))
		}
		return fmt.Sprintf("final_answer(%q)", answer(lastObservation(r)))
	}
}

// tableRows are the cells of the markdown table rows in text.
func tableRows(text string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "| "), "|") {
			cells = append(cells, strings.TrimSpace(c))
		}
		rows = append(rows, cells)
	}
	return rows
}

func sumUnits(region string) func(string) string {
	return func(text string) string {
		total := 0
		for _, row := range tableRows(text) {
			if len(row) == 4 && row[0] == region {
				n, _ := strconv.Atoi(row[2])
				total += n
			}
		}
		return strconv.Itoa(total)
	}
}

func topProduct(text string) string {
	revenue := map[string]float64{}
	for _, row := range tableRows(text) {
		if len(row) != 4 {
			continue
		}
		units, err1 := strconv.ParseFloat(row[2], 64)
		price, err2 := strconv.ParseFloat(row[3], 64)
		if err1 == nil && err2 == nil {
			revenue[row[1]] += units * price
		}
	}
	best := ""
	for p, v := range revenue {
		if best == "" || v > revenue[best] {
			best = p
		}
	}
	return best
}

// countPeople counts attendees the wrong way: with the apologies.
func countPeople(text string) string {
	n := 0
	for _, re := range []string{`Attendees: ([^\n]+)`, `Apologies: ([^\n]+)`} {
		if m := regexp.MustCompile(re).FindStringSubmatch(text); m != nil {
			n += len(strings.Split(m[1], ","))
		}
	}
	return strconv.Itoa(n)
}

func meetingDate(text string) string {
	m := regexp.MustCompile(`next meeting is on (\d+) (\w+) (\d{4})`).FindStringSubmatch(text)
	if m == nil {
		return "not found"
	}
	months := map[string]int{"January": 1, "February": 2, "March": 3, "April": 4, "May": 5, "June": 6, "July": 7,
		"August": 8, "September": 9, "October": 10, "November": 11, "December": 12}
	day, _ := strconv.Atoi(m[1])
	return fmt.Sprintf("%s-%02d-%02d", m[3], months[m[2]], day)
}
