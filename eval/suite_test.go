package eval

import (
	"testing"
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
