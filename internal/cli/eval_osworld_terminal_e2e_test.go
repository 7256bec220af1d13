//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// terminalTask is OSWorld's os/13584542 ("set the terminal size 132x43
// permanently"): its postconfig opens a terminal with Ctrl+Alt+T and types
// `stty size` into it, and vm_terminal_output reads the terminal's text.
const terminalTask = "os/13584542-872b-42d8-b299-866967b5c3ef"

// TestEvalOSWorldTerminal runs os/13584542, verbatim, through `deskpilot
// eval` on a private display, alone (a tree of this one task): with nothing
// done the new terminal says "24 80" and the task fails; with its solution
// (GNOME Terminal opened with Ctrl+Alt+T, the default profile's default size
// set with gsettings) the terminal the postconfig opens is 132x43 and the
// task passes.
func TestEvalOSWorldTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an OSWorld task on a private display")
	}
	needTools(t, "Xvfb", "openbox", "bwrap", "python3", "gnome-terminal", "gsettings")
	var task osworldTask
	for _, tk := range osworldTasks(t) {
		if tk.key == terminalTask {
			task = tk
		}
	}
	if task.replies == nil {
		t.Fatalf("%s: not in the suite with a solution", terminalTask)
	}
	// A tree of this task alone, its file as the suite has it.
	tree := t.TempDir()
	domain, id, _ := strings.Cut(terminalTask, "/")
	data, err := os.ReadFile(filepath.Join(osworldSuite, "examples", domain, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(tree, "examples", domain), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "examples", domain, id+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "test_all.json"), []byte(`{"`+domain+`": ["`+id+`"]}`), 0o644); err != nil {
		t.Fatal(err)
	}

	idle, stderr := evalOSWorld(t, tree, newScriptedModel(t, map[string]policy{"": watchPolicy}), 3)
	if r := idle[terminalTask]; r.Correct || r.Score != 0 || r.Status != "" || r.Error != "" || !strings.Contains(r.Check, "24 80") {
		t.Errorf("nothing done: correct %v (score %g, status %q, error %q, check %q); want a plain failure on a terminal of 24 80\nstderr:\n%s",
			r.Correct, r.Score, r.Status, r.Error, r.Check, stderr)
	}

	m := newScriptedModel(t, map[string]policy{task.instruction: solutionPolicy(task.replies)})
	solved, stderr := evalOSWorld(t, tree, m, len(task.replies))
	if r := solved[terminalTask]; !r.Correct || r.Status != "" || r.Error != "" {
		t.Errorf("solved: correct %v (score %g, status %q, error %q, check %q); want a pass\nstderr:\n%s",
			r.Correct, r.Score, r.Status, r.Error, r.Check, stderr)
	}
	if m.calls(task.instruction) != len(task.replies) {
		t.Errorf("%d model calls, want %d", m.calls(task.instruction), len(task.replies))
	}
}
