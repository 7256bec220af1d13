//go:build linux

package eval

import (
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/actions/inspect"
)

// TestShippedSuites loads every suite in suites/ and checks that each task is
// runnable: it decodes, and every step, getter and metric it uses is supported.
func TestShippedSuites(t *testing.T) {
	tests := []struct {
		path   string
		format Format
		min    int
	}{
		{"suites/desktop", FormatOSWorld, 20},
		{"suites/gaia-files", FormatGAIA, 8},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			s, err := Load(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != tt.format || len(s.Tasks) < tt.min {
				t.Fatalf("%s: format %s with %d tasks, want %s with at least %d", tt.path, s.Format, len(s.Tasks), tt.format, tt.min)
			}
			for _, task := range s.Tasks {
				if task.Problem != nil {
					t.Errorf("%s: %v", task.ID, task.Problem)
				}
			}
		})
	}
}

// TestGAIAFilesReachable checks that deskpilot's file inspector reads from each
// attached file of the gaia-files suite the facts its question needs.
func TestGAIAFilesReachable(t *testing.T) {
	s, err := Load("suites/gaia-files")
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string][]string{
		"gf-warehouse-city":      {"new warehouse opened in Tampere"},
		"gf-revenue":             {"2,450,000 euros"},
		"gf-product-lines":       {"Kettles, Toasters and Blenders"},
		"gf-north-units":         {"North", "120", "85", "40"},
		"gf-top-revenue-product": {"Kettle", "Toaster", "Blender", "79.9", "32.5", "210", "150"},
		"gf-budget-owner":        {"Priya Nair is responsible for the budget review"},
		"gf-attendees":           {"Aino Virtanen (chair), Priya Nair, Jonas Berg, Lea Schmidt, Tomás Ortega, Mei Chen, Kwame Mensah"},
		"gf-next-meeting":        {"17 February 2026"},
	}
	in := inspect.New(inspect.Options{Roots: []string{s.Path}})
	for _, task := range s.Tasks {
		t.Run(task.ID, func(t *testing.T) {
			if task.Problem != nil || task.File == "" || !strings.Contains(task.Instruction, task.File) {
				t.Fatalf("task %+v", task)
			}
			text, err := in.Inspect(t.Context(), task.File, "")
			if err != nil {
				t.Fatal(err)
			}
			want, ok := facts[task.ID]
			if !ok {
				t.Fatalf("no facts listed for %s", task.ID)
			}
			for _, f := range want {
				if !strings.Contains(strings.Join(strings.Fields(text), " "), f) {
					t.Errorf("the inspector's text of %s lacks %q:\n%s", filepath.Base(task.File), f, text)
				}
			}
			if !ScoreGAIA(task.Answer, task.Answer) {
				t.Errorf("the ground truth %q does not score as right against itself", task.Answer)
			}
		})
	}
}
