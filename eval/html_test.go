//go:build linux

package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummaryHTML: the page escapes what runs and tasks wrote, links each trace's
// report, and loads nothing from elsewhere.
func TestSummaryHTML(t *testing.T) {
	file := filepath.Join(t.TempDir(), "index.html")
	s := Summary{Suite: "desk<top>", Model: "m", Tasks: 3, Passed: 1, Results: []Result{
		{ID: "t<1>", Correct: true, Score: 1, Trace: "tasks/t_1_-1/trace/20261130T120000Z-x y"},
		{ID: "t2", Score: 0.5, Answer: `<script>alert("x")</script>`, Check: `<img src=x onerror=alert(1)>`},
		{ID: "t3", Answer: "javascript", Trace: "javascript:alert(1)", Error: "timeout"},
	}}
	if err := writeHTML(file, s); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, bad := range []string{"<script", "<img", `href="javascript:`, "http://", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{"desk&lt;top&gt;", "1 / 3 passed (33.3%)", `href="tasks/t_1_-1/trace/20261130T120000Z-x%20y/report.html"`,
		"&lt;script&gt;", ">0.50<", "timeout"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestSummaryHTMLAttempts: the attempt figures, the judge's reason (model
// output) escaped, its trace linked, every attempt listed.
func TestSummaryHTMLAttempts(t *testing.T) {
	file := filepath.Join(t.TempDir(), "index.html")
	res := map[resultKey]Result{
		{"t1", 1}: {ID: "t1", Attempt: 1, Domain: "os", Trace: "tasks/t1/attempt-1/trace/r"},
		{"t1", 2}: {ID: "t1", Attempt: 2, Domain: "os", Correct: true, Score: 1, Answer: "<b>bold</b>"},
	}
	sel := map[string]Selection{"t1": {ID: "t1", Attempt: 2, By: SelectJudge, Reason: `<script>alert(1)</script> it saved`, Trace: "tasks/t1/judge"}}
	s := Summary{Suite: "s", Tasks: 1, Passed: 1, Results: []Result{res[resultKey{"t1", 2}]},
		Attempts: attemptStats(2, SelectJudge, []string{"t1"}, res, sel)}
	if err := writeHTML(file, s); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, bad := range []string{"<script", "<b>"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, want := range []string{"2 attempts per task, the judge selects", "<th>bBoN@2</th>", "0.00 · 1.00", "&lt;script&gt;alert(1)&lt;/script&gt; it saved",
		`href="tasks/t1/judge/"`, `<td class="text">os</td>`, "t1 #2", "Every attempt", `href="tasks/t1/attempt-1/trace/r/report.html"`, "50.0%"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
