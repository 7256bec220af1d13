package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A mistyped flag names the flag meant.
func TestMistypedFlagSuggests(t *testing.T) {
	isolate(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--max-step", "3", "task"}, "did you mean --max-steps?"},
		{[]string{"traces", "export", "1", "--fromat", "html"}, "did you mean --format?"},
		{[]string{"run", "--basse-url", "http://x/v1", "task"}, "did you mean --base-url?"},
	}
	for _, c := range cases {
		out, code := cli(t, "", c.args...)
		if code != exitUsage || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, out)
		}
	}
	if out, code := cli(t, "", "run", "--zzzzzzzz", "task"); code != exitUsage || strings.Contains(out, "did you mean") || !strings.Contains(out, "--help") {
		t.Errorf("a flag like none: exit %d:\n%s", code, out)
	}
}

// eval with a suite that is not there says so before anything about the model.
func TestEvalMissingSuiteComesFirst(t *testing.T) {
	isolate(t)
	out, code := cli(t, "", "eval", "no/such/suite", "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(out, "no/such/suite") || strings.Contains(strings.ToLower(out), "model") {
		t.Errorf("exit %d, want 2 naming the suite and not the model:\n%s", code, out)
	}
}

// traces list on a folder with no runs says so, and how one is recorded.
func TestTracesListEmptySaysSo(t *testing.T) {
	traces := isolate(t)
	out, code := cli(t, "", "traces", "list", "--trace-dir", traces)
	if code != 0 || !strings.Contains(out, "no runs recorded in "+traces) || strings.Contains(out, "STARTED") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// A base URL no request can go to is a usage error before the run starts: no
// trace is left behind.
func TestBadBaseURLRefusedBeforeTheRun(t *testing.T) {
	traces := isolate(t)
	for _, u := range []string{"localhost:11434/v1", "http//localhost:11434/v1", "http:///v1"} {
		out, code := cli(t, "", "run", "--base-url", u, "--model", "m", "--trace-dir", traces, "task")
		if code != exitUsage || !strings.Contains(out, "base_url") {
			t.Errorf("%s: exit %d, want 2 naming base_url:\n%s", u, code, out)
		}
	}
	if entries, _ := os.ReadDir(traces); len(entries) > 0 {
		t.Errorf("a refused run left %d traces", len(entries))
	}
}

// inspect_file outside its folders says which it reads and names the setting that
// adds more; with the folder in inspect_folders it reads the file.
func TestInspectFoldersSetting(t *testing.T) {
	traces := isolate(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("the-folder-note"), 0o600); err != nil {
		t.Fatal(err)
	}
	code := `print(inspect_file("` + filepath.Join(dir, "notes.txt") + `"))` + "\n"
	out, _ := cli(t, code, "console", "--trace-dir", traces)
	if !strings.Contains(out, "outside the folders") || !strings.Contains(out, "inspect_folders") {
		t.Errorf("refusal without the setting:\n%s", out)
	}
	t.Setenv("DESKPILOT_INSPECT_FOLDERS", dir)
	out, _ = cli(t, code, "console", "--trace-dir", traces)
	if !strings.Contains(out, "the-folder-note") {
		t.Errorf("with inspect_folders set:\n%s", out)
	}
}

// doctor checks what a run needs besides the display: the accessibility bus,
// Tesseract's data, the keyring and the model, and says the fix for each that
// is missing.
func TestDoctorNamesWhatIsMissingAndTheFix(t *testing.T) {
	isolate(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("TESSDATA_PREFIX", t.TempDir()) // no eng.traineddata there
	out, code := cli(t, "", "doctor", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
	if code != exitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"FAIL a11y", "dbus-run-session", "FAIL ocr", "tesseract-ocr-eng", "keyring", "FAIL model", "fix: check that a server runs at http://127.0.0.1:9/v1"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
}
