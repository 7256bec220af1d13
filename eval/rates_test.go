//go:build linux

package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The success rates as OSWorld reports them: a fraction counts as its
// fraction, tasks that cannot run count apart and never as passes, rates over
// the attempted and over all tasks, overall and per domain.
func TestStatsRates(t *testing.T) {
	results := []Result{
		{ID: "a", Domain: "os", Correct: true, Score: 1},
		{ID: "b", Domain: "os", Score: 0.25},
		{ID: "c", Domain: "os", Status: StatusUnsupported},
		{ID: "d", Domain: "calc", Score: 0},
		{ID: "e", Domain: "calc", Status: StatusNotCached},
		{ID: "f", Domain: "calc", Status: StatusNotInstalled},
		{ID: "g", Domain: "calc", Status: StatusInvalid},
	}
	all, per := stats(results, 8, map[string]int{"os": 3, "calc": 4, "vlc": 1})
	want := Stats{Tasks: 8, Finished: 7, Attempted: 3, Passed: 1, Score: 1.25, SuccessAttempted: 0.4167, SuccessAll: 0.1563,
		Unsupported: 1, NotCached: 1, NotInstalled: 1, Invalid: 1}
	if *all != want {
		t.Errorf("overall %+v\nwant    %+v", *all, want)
	}
	for name, w := range map[string]Stats{
		"os":   {Tasks: 3, Finished: 3, Attempted: 2, Passed: 1, Score: 1.25, SuccessAttempted: 0.625, SuccessAll: 0.4167, Unsupported: 1},
		"calc": {Tasks: 4, Finished: 4, Attempted: 1, NotCached: 1, NotInstalled: 1, Invalid: 1},
		"vlc":  {Tasks: 1},
	} {
		if got := per[name]; got == nil || *got != w {
			t.Errorf("%s: %+v, want %+v", name, got, w)
		}
	}
}

// A two-domain OSWorld tree run whole, and in three shards merged, gives the
// same rates; a task whose metric cannot run here is unsupported in both.
func TestRatesThroughMerge(t *testing.T) {
	dir := t.TempDir()
	check := func(cmd, want string) string {
		return fmt.Sprintf(`{"func": "exact_match", "result": {"type": "vm_command_line", "command": %q, "shell": true}, "expected": {"type": "rule", "rules": {"expected": %q}}}`, cmd, want)
	}
	tasks := map[string]map[string]string{
		"os":   {"o1": check("printf yes", "yes"), "o2": check("printf no", "yes"), "o3": `{"func": "compare_audios", "result": {"type": "vm_file", "path": "/home/user/a.mp3", "dest": "a.mp3"}, "expected": {"type": "vm_file", "path": "/home/user/b.mp3", "dest": "b.mp3"}}`},
		"calc": {"c1": check("printf yes", "yes"), "c2": check("printf yes", "yes")},
	}
	index := map[string][]string{}
	for domain, ts := range tasks {
		if err := os.MkdirAll(filepath.Join(dir, "examples", domain), 0o700); err != nil {
			t.Fatal(err)
		}
		for id, ev := range ts {
			task := fmt.Sprintf(`{"id": %q, "instruction": "rates", "snapshot": %q, "related_apps": [], "config": [], "evaluator": %s}`, id, domain, ev)
			if err := os.WriteFile(filepath.Join(dir, "examples", domain, id+".json"), []byte(task), 0o600); err != nil {
				t.Fatal(err)
			}
			index[domain] = append(index[domain], id)
		}
	}
	var idx strings.Builder
	idx.WriteString("{")
	first := true
	for domain, ids := range index {
		if !first {
			idx.WriteString(",")
		}
		first = false
		fmt.Fprintf(&idx, "%q: [%q", domain, ids[0])
		for _, id := range ids[1:] {
			fmt.Fprintf(&idx, ", %q", id)
		}
		idx.WriteString("]")
	}
	idx.WriteString("}")
	suite := filepath.Join(dir, "test_all.json")
	if err := os.WriteFile(suite, []byte(idx.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	whole, err := Run(t.Context(), Options{Suite: suite, Out: filepath.Join(root, "whole"), Model: "m", Screen: image1280(), Parallel: 2}, idleRunner)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := range 3 {
		d := filepath.Join(root, fmt.Sprintf("shard-%d", i))
		dirs = append(dirs, d)
		if _, err := Run(t.Context(), Options{Suite: suite, Out: d, Model: "m", Screen: image1280(), Shard: Shard{Index: i, Count: 3}}, idleRunner); err != nil {
			t.Fatal(err)
		}
	}
	merged, err := Merge(filepath.Join(root, "merged"), dirs...)
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{Tasks: 5, Finished: 5, Attempted: 4, Passed: 3, Score: 3, SuccessAttempted: 0.75, SuccessAll: 0.6, Unsupported: 1}
	for name, s := range map[string]Summary{"whole": whole, "merged": merged, "merged summary.json": readSummary(t, filepath.Join(root, "merged"))} {
		if s.Overall == nil || *s.Overall != want {
			t.Errorf("%s overall %+v, want %+v", name, s.Overall, want)
		}
		if d := s.Domains["os"]; d == nil || d.Tasks != 3 || d.Passed != 1 || d.Unsupported != 1 || d.SuccessAttempted != 0.5 {
			t.Errorf("%s os %+v", name, d)
		}
		if d := s.Domains["calc"]; d == nil || d.Tasks != 2 || d.Passed != 2 || d.SuccessAll != 1 {
			t.Errorf("%s calc %+v", name, d)
		}
	}
}
