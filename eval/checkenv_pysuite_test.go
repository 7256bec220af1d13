//go:build linux

package eval

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/eval/checks"
)

// TestCheckPythonFileByTestSuite: check_python_file_by_test_suite runs the
// test file's function in the task's box, Python 3, next to the files the
// getters copied into the task's cache: a true result is 1, a false one or an
// exception it raises 0, a test file that does not load, a missing function
// or an exit is an error. Text the test prints does not make the verdict, the
// program sees the box (its home, not the evaluator's files or environment),
// and the folder it ran in is gone afterwards.
func TestCheckPythonFileByTestSuite(t *testing.T) {
	b, m := boxMetric(t, "check_python_file_by_test_suite")
	t.Setenv("DESKPILOT_SECRET_PYSUITE", "planted-in-the-evaluator")
	env := b.checkEnv("")
	const fixed = "def eats(head, food):\n    return head == food\n"
	const broken = "def eats(head, food):\n    return False\n"
	const eatTest = "import snake\n\ndef test():\n    return snake.eats((3, 4), (3, 4))\n"
	tests := []struct {
		name      string
		snake     string // snake.py in the cache; "" for none
		test      string
		elsewhere bool // the test file outside the cache folder
		fn        any  // test_function_name; nil for none
		want      float64
		wantErr   string // a part of the error, "" for a score
	}{
		{"fixed", fixed, eatTest, false, nil, 1, ""},
		{"still broken", broken, eatTest, false, nil, 0, ""},
		{"test file elsewhere", fixed, eatTest, true, nil, 1, ""},
		{"named function", fixed, "import snake\n\ndef check_food():\n    return snake.eats(1, 1)\n", false, "check_food", 1, ""},
		{"truthy result", fixed, "def test():\n    return [0]\n", false, nil, 1, ""},
		{"raises", fixed, "def test():\n    raise ValueError('no food')\n", false, nil, 0, ""},
		{"prints a verdict", broken, "import snake\n\ndef test():\n    print('1')\n    return snake.eats(1, 1)\n", false, nil, 0, ""},
		{"sees the box", "", "import os\n\ndef test():\n    return os.path.expanduser('~') == '/home/user' and os.getcwd().startswith('/home/user/') and not os.path.exists(" + pyQuote(b.cache) + ") and not any(k.startswith('DESKPILOT_SECRET') for k in os.environ)\n", false, nil, 1, ""},
		{"syntax error", fixed, "def test(:\n", false, nil, 0, "SyntaxError"},
		{"no test function", fixed, "def other():\n    return True\n", false, nil, 0, "AttributeError"},
		{"exits", fixed, "import sys\n\ndef test():\n    sys.exit(0)\n", false, nil, 0, "exit"},
		{"name not a string", fixed, eatTest, false, 3.0, 0, "not a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, e := range mustReadDir(t, b.cache) {
				if err := os.RemoveAll(filepath.Join(b.cache, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
			if tt.snake != "" {
				writeFile(t, filepath.Join(b.cache, "snake.py"), tt.snake)
			}
			dir := b.cache
			if tt.elsewhere {
				dir = t.TempDir()
			}
			testFile := filepath.Join(dir, "test_suite.py")
			writeFile(t, testFile, tt.test)
			opts := map[string]any{}
			if tt.fn != nil {
				opts["test_function_name"] = tt.fn
			}
			s, err := m.Fn(t.Context(), checks.Call{Env: env, Result: filepath.Join(b.cache, "snake.py"), Expected: testFile, Options: opts})
			wantScore(t, s, err, tt.wantErr, tt.want, tt.want)
			wantNoFolder(t, b, ".osworld-test-suite-")
		})
	}
	if _, err := m.Fn(t.Context(), checks.Call{Env: env, Result: nil, Expected: nil}); err == nil {
		t.Error("no test file: no error")
	}
}

// boxMetric is a task's box and the metric name, which checks it in that box.
func boxMetric(t *testing.T, name string) (*box, checks.Metric) {
	t.Helper()
	b := testBox(t)
	m, ok := checks.Lookup(name)
	if !ok {
		t.Fatalf("%s is not a metric", name)
	}
	return b, m
}

// wantScore checks a metric's outcome: an error holding wantErr when that is
// set, else no error and a score from lo to hi.
func wantScore(t *testing.T, s checks.Score, err error, wantErr string, lo, hi float64) {
	t.Helper()
	switch {
	case wantErr != "":
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("score %v, error %v; want an error with %q", s.Value, err, wantErr)
		}
	case err != nil:
		t.Errorf("error %v", err)
	case s.Value < lo || s.Value > hi:
		t.Errorf("score %v (%s), want %v to %v", s.Value, s.Note, lo, hi)
	}
}

// wantNoFolder fails the test when a folder named prefix... is left in the
// task's home.
func wantNoFolder(t *testing.T, b *box, prefix string) {
	t.Helper()
	for _, e := range mustReadDir(t, b.home) {
		if strings.HasPrefix(e.Name(), prefix) {
			t.Errorf("%s is left in the task's home", e.Name())
		}
	}
}

// needPython fails the test unless the machine's python3 imports modules
// (Debian packages the Makefile installs).
func needPython(t *testing.T, modules string) {
	t.Helper()
	if out, err := osexec.Command("/usr/bin/python3", "-c", "import "+modules).CombinedOutput(); err != nil {
		t.Fatalf("python3 cannot import %s (make deps installs it): %v: %s", modules, err, out)
	}
}

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// pyQuote is s as a Python string literal.
func pyQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
