package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/trace"
)

// recordRun runs task against a fake model that prints marker and answers, and
// returns the trace folder.
func recordRun(t *testing.T, traces, task, marker string) string {
	t.Helper()
	srv := llmtest.New(t, reply("print(\""+marker+"\")"), reply("final_answer(\""+marker+"\")"))
	return runJSON(t, srv, traces, task).Trace
}

// A row number means the row of the listing the person saw, however many runs
// are recorded after it; with no listing, or when its run is gone, it is refused.
func TestTraceNumbersMeanTheListingSeen(t *testing.T) {
	traces := isolate(t)
	if out, code := cli(t, "", "replay", "1", "--dry-run", "--trace-dir", traces); code != exitUsage || !strings.Contains(out, "traces list") {
		t.Errorf("a number with no listing: exit %d:\n%s", code, out)
	}
	first := recordRun(t, traces, "first task", "marker-first")
	second := recordRun(t, traces, "second task", "marker-second")

	if out, code := cli(t, "", "replay", "1", "--dry-run", "--trace-dir", traces); code != exitUsage {
		t.Errorf("a number before any listing was printed: exit %d:\n%s", code, out)
	}
	list, code := cli(t, "", "traces", "list", "--trace-dir", traces)
	if code != 0 {
		t.Fatalf("traces list: exit %d\n%s", code, list)
	}
	for _, dir := range []string{first, second} {
		if !strings.Contains(list, trace.RunID(dir)) {
			t.Errorf("the listing does not show run id %s:\n%s", trace.RunID(dir), list)
		}
	}
	// Row 2 is the older run, "first task". Runs recorded since do not move it.
	recordRun(t, traces, "third task", "marker-third")
	recordRun(t, traces, "fourth task", "marker-fourth")
	for range 2 {
		out, code := cli(t, "", "replay", "2", "--dry-run", "--trace-dir", traces)
		if code != 0 || !strings.Contains(out, "marker-first") {
			t.Fatalf("replay 2 after two more runs: exit %d, want the listed run (first task):\n%s", code, out)
		}
	}
	// The id works however the listing goes, and is what the run printed.
	out, code := cli(t, "", "traces", "show", trace.RunID(second), "--trace-dir", traces)
	if code != 0 || !strings.Contains(out, "marker-second") {
		t.Errorf("traces show ID: exit %d:\n%s", code, out)
	}
	if out, code := cli(t, "", "replay", "3", "--dry-run", "--trace-dir", traces); code != exitUsage || !strings.Contains(out, "showed 2 runs") {
		t.Errorf("a row the listing did not have: exit %d:\n%s", code, out)
	}
	if err := os.RemoveAll(first); err != nil {
		t.Fatal(err)
	}
	if out, code := cli(t, "", "replay", "2", "--dry-run", "--trace-dir", traces); code != exitUsage || !strings.Contains(out, "is gone") {
		t.Errorf("a listed run since deleted: exit %d:\n%s", code, out)
	}
}

// An id prefix two runs share is refused, naming both.
func TestTraceIDPrefixAmbiguousIsRefused(t *testing.T) {
	traces := isolate(t)
	rec := recordRun(t, traces, "a task", "marker")
	a, b := collidingNames(t)
	for _, name := range []string{a, b} {
		if err := os.CopyFS(filepath.Join(traces, name), os.DirFS(rec)); err != nil {
			t.Fatal(err)
		}
	}
	prefix := trace.RunID(a)[:4]
	out, code := cli(t, "", "replay", prefix, "--dry-run", "--trace-dir", traces)
	if code != exitUsage || !strings.Contains(out, "ambiguous") || !strings.Contains(out, a) || !strings.Contains(out, b) {
		t.Errorf("replay %s: exit %d, want a refusal naming %s and %s:\n%s", prefix, code, a, b, out)
	}
	out, code = cli(t, "", "replay", trace.RunID(a), "--dry-run", "--trace-dir", traces)
	if code != 0 || !strings.Contains(out, "marker") {
		t.Errorf("replay with the whole id: exit %d:\n%s", code, out)
	}
}

// collidingNames finds two folder names whose run ids share 4 digits and differ.
func collidingNames(t *testing.T) (string, string) {
	seen := map[string]string{}
	for i := range 1 << 20 {
		name := "20260101T000000Z-run-" + strconv.Itoa(i)
		sum := sha256.Sum256([]byte(name))
		id := hex.EncodeToString(sum[:])
		if other, ok := seen[id[:4]]; ok && trace.RunID(other) != id[:trace.RunIDLen] {
			return other, name
		}
		seen[id[:4]] = name
	}
	t.Fatal("no colliding names")
	return "", ""
}

// A run id of digits alone ("127566", one in sixteen ids or so) names its run,
// with or without a listing; a listing's row numbers still mean their rows.
func TestTraceIDOfDigits(t *testing.T) {
	traces := isolate(t)
	rec := recordRun(t, traces, "a task", "marker-digits")
	var name string
	for i := 0; name == ""; i++ {
		n := "20260101T000000Z-digits-" + strconv.Itoa(i)
		if _, err := strconv.Atoi(trace.RunID(n)); err == nil {
			name = n
		}
	}
	if err := os.CopyFS(filepath.Join(traces, name), os.DirFS(rec)); err != nil {
		t.Fatal(err)
	}
	id := trace.RunID(name)
	if out, code := cli(t, "", "traces", "show", id, "--trace-dir", traces); code != 0 || !strings.Contains(out, "marker-digits") {
		t.Errorf("traces show %s with no listing: exit %d:\n%s", id, code, out)
	}
	if out, code := cli(t, "", "traces", "list", "--trace-dir", traces); code != 0 {
		t.Fatalf("traces list: exit %d\n%s", code, out)
	}
	if out, code := cli(t, "", "traces", "show", id, "--trace-dir", traces); code != 0 || !strings.Contains(out, "marker-digits") {
		t.Errorf("traces show %s after a listing of 2 rows: exit %d:\n%s", id, code, out)
	}
	if out, code := cli(t, "", "traces", "show", "1", "--trace-dir", traces); code != 0 || !strings.Contains(out, "marker-digits") {
		t.Errorf("traces show 1: exit %d:\n%s", code, out)
	}
}
