//go:build linux

package eval

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// osworldMirror is the bare git mirror of OSWorld's repository the tree tests
// read (DESKPILOT_OSWORLD_MIRROR overrides it).
func osworldMirror() string {
	if p := os.Getenv("DESKPILOT_OSWORLD_MIRROR"); p != "" {
		return p
	}
	return "/work/.mirror/pkueecszc+OSWorld/repo"
}

// osworldTree extracts OSWorld's evaluation_examples/ from the mirror's HEAD,
// unchanged, into a temporary folder and returns its path; the test is skipped
// when there is no mirror.
func osworldTree(t *testing.T) string {
	t.Helper()
	git := osworldMirror()
	if _, err := os.Stat(git); err != nil {
		t.Skipf("no OSWorld mirror at %s (set DESKPILOT_OSWORLD_MIRROR to a clone of github.com/xlang-ai/OSWorld): %v", git, err)
	}
	dir := t.TempDir()
	arch := exec.Command("git", "--git-dir", git, "archive", "HEAD", "evaluation_examples")
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := arch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	untar.Stdin = pipe
	if err := untar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := arch.Run(); err != nil {
		t.Fatalf("git archive: %v", err)
	}
	if err := untar.Wait(); err != nil {
		t.Fatalf("tar: %v", err)
	}
	return filepath.Join(dir, "evaluation_examples")
}

// TestOSWorldTree loads OSWorld's own tree, verbatim, as one suite in each of
// the ways a user can point at it, and requires every task test_all.json lists
// to load with nothing it uses missing here.
func TestOSWorldTree(t *testing.T) {
	tree := osworldTree(t)
	tests := []struct {
		name, path, suite string
		tasks             int
	}{
		{"tree folder", tree, "evaluation_examples", 369},
		{"examples folder", filepath.Join(tree, "examples"), "evaluation_examples", 369},
		{"test_all index", filepath.Join(tree, "test_all.json"), "evaluation_examples", 369},
		{"test_small index", filepath.Join(tree, "test_small.json"), "evaluation_examples-test_small", 39},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Load(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != tt.suite || s.Format != FormatOSWorld || len(s.Tasks) != tt.tasks {
				t.Fatalf("suite %q (%s) with %d tasks, want %q with %d", s.Name, s.Format, len(s.Tasks), tt.suite, tt.tasks)
			}
			domains := map[string]int{}
			for _, task := range s.Tasks {
				domains[task.Domain]++
				if task.Problem != nil {
					t.Errorf("%s: %v", task.ID, task.Problem)
				}
				if !strings.HasPrefix(task.ID, task.Domain+"/") || task.os == nil && task.Problem == nil {
					t.Errorf("%s: id not keyed by its domain %q", task.ID, task.Domain)
				}
			}
			if tt.tasks == 369 && (len(domains) != 10 || domains["chrome"] != 46 || domains["multi_apps"] != 101) {
				t.Errorf("domains %v", domains)
			}
		})
	}
}
