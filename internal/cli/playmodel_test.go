package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent"
)

// --update replaces the diverged block and the ones the model did with the
// model's steps, each a block of its own, keeps the replaced code as
// comments and the original as .bak; what it cannot write truly is refused
// with the script untouched.
func TestUpdateScript(t *testing.T) {
	src := "# deskpilot script\n\n# ── step 1 ──\ncheckpoint(1)\nclick(1, 2)\n\n# ── step 2 ──\ncheckpoint(2)\nclick(3, 4)\n\n# ── step 3 ──\ncheckpoint(3)\nfinal_answer(\"done\")\n"
	segs, _, err := splitScript("run.star", src)
	if err != nil {
		t.Fatal(err)
	}
	model := agent.TakeoverResult{SameSpace: true, Steps: []agent.TakeoverStep{
		{Code: "click(5, 6)"}, {Code: "print(oops"}, {Code: "press(\"Return\")"},
	}}
	cases := []struct {
		name    string
		done    takeoverDone
		want    []string // in the updated script
		wantErr string
	}{
		{"step 1 moved", takeoverDone{from: 0, to: 1, step: 1, res: model},
			[]string{"# ── step: the model's, where step 1 did not look as recorded", "#     click(1, 2)", "\nclick(5, 6)\n", "#     print(oops", "\npress(\"Return\")\n", "\ncheckpoint(2)\nclick(3, 4)\n"}, ""},
		{"answered", takeoverDone{from: 1, to: -1, step: 2, res: model},
			[]string{"\ncheckpoint(1)\nclick(1, 2)\n", "#     final_answer(\"done\")"}, ""},
		{"other space", takeoverDone{from: 0, to: 1, step: 1, res: agent.TakeoverResult{}}, nil, "coordinate space"},
		{"inside a block", takeoverDone{from: 0, to: 1, step: 7, res: model}, nil, "does not start with its checkpoint"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.star")
			if err := os.WriteFile(path, []byte(src), 0o640); err != nil {
				t.Fatal(err)
			}
			bak, err := updateScript(path, src, segs, []takeoverDone{c.done})
			got, _ := os.ReadFile(path)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || string(got) != src {
					t.Fatalf("err %v, script changed: %v", err, string(got) != src)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(string(got), w) {
					t.Errorf("updated script lacks %q:\n%s", w, got)
				}
			}
			if b, _ := os.ReadFile(bak); string(b) != src {
				t.Errorf("the backup %s is not the original", bak)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want the original's", fi.Mode().Perm())
			}
			// Each model step that runs is a block of its own.
			again, _, err := splitScript("run.star", string(got))
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "step 1 moved" && len(again) != len(segs)+1 {
				t.Errorf("%d blocks, want %d (the model's two that run, in place of step 1's)", len(again), len(segs)+1)
			}
		})
	}

	// A backup that cannot be written (a folder holds its name): the
	// original stays, and so does every file beside it.
	dir := t.TempDir()
	path := filepath.Join(dir, "run.star")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path+".bak", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := updateScript(path, src, segs, []takeoverDone{{from: 0, to: 1, step: 1, res: model}}); err == nil || !strings.Contains(err.Error(), "the script was not changed") {
		t.Errorf("err %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != src {
		t.Error("a failed update changed the script")
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("the failed update left %d files, want the script and the folder", len(left))
	}
}
