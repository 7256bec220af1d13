//go:build linux

package eval

import (
	"context"
	"testing"
)

// TestDesktopSuite runs the shipped desktop suite end to end on private displays
// (two and three at a time, under -race in make test): once with each task's
// reference solution performed with real input on its display, and once failing
// each task, every other one with a wrong solution (a near miss, also real input)
// and the rest by doing nothing (the state the task starts in must not pass).
// The real checkers must pass every task the first time and fail every task the
// second time.
func TestDesktopSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 50 tasks on private displays")
	}
	needTools(t, "Xvfb", "openbox", "xdotool", "xterm", "zenity", "mousepad", "python3", "xdg-open")
	s, err := Load("suites/desktop")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, mode string
		parallel   int
		pass       bool
	}{
		{"right", "right", 2, true},
		{"wrong or idle", "wrong", 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			run := solutionRunner(t, tt.mode)
			if !tt.pass {
				run = alternate(s, run, idleRunner)
			}
			sum, err := Run(t.Context(), Options{Suite: "suites/desktop", Out: out, Model: "solutions-" + tt.mode, Parallel: tt.parallel, Screen: image1280()}, run)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Tasks != len(s.Tasks) || len(sum.Results) != len(s.Tasks) {
				t.Fatalf("summary: %d tasks, %d results; want %d", sum.Tasks, len(sum.Results), len(s.Tasks))
			}
			for _, r := range sum.Results {
				if r.Correct != tt.pass {
					t.Errorf("%s: correct = %v, want %v (score %g, error %q, check %q)", r.ID, r.Correct, tt.pass, r.Score, r.Error, r.Check)
				}
				if tt.pass && r.Error != "" {
					t.Errorf("%s: error %q", r.ID, r.Error)
				}
			}
			if n := len(readJSONL(t, out)); n != len(s.Tasks) {
				t.Errorf("results.jsonl has %d lines, want %d", n, len(s.Tasks))
			}
			waitNoXvfb(t)
		})
	}
}

// alternate runs tasks at even positions of s with a and the others with b.
func alternate(s *Suite, a, b Runner) Runner {
	even := map[string]bool{}
	for i, t := range s.Tasks {
		even[t.ID] = i%2 == 0
	}
	return func(ctx context.Context, j Job) (Outcome, error) {
		if even[j.TaskID] {
			return a(ctx, j)
		}
		return b(ctx, j)
	}
}
