//go:build linux

package eval

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPyTruthy(t *testing.T) {
	for in, want := range map[string]bool{
		`true`: true, `false`: false, `"true"`: true, `"false"`: true, `""`: false, `null`: false,
		`0`: false, `1`: true, `0.0`: false, `[]`: false, `[0]`: true, `{}`: false, `{"a": 1}`: true,
	} {
		if got := pyTruthy(json.RawMessage(in)); got != want {
			t.Errorf("pyTruthy(%s) = %v, want %v", in, got, want)
		}
	}
}

// TestShellString decodes "shell": "true" as OSWorld's server takes it: a
// shell command.
func TestShellString(t *testing.T) {
	task := loadOne(t, taskJSON(`[{"type": "execute", "parameters": {"command": "echo $HOME > ~/h", "shell": "true"}}]`,
		`{"func": "exact_match", "result": {"type": "vm_command_line", "command": "echo a b", "shell": "true"}, "expected": {"type": "rule", "rules": {"expected": "a b"}}}`))
	if task.Problem != nil {
		t.Fatal(task.Problem)
	}
	c := task.os.config[0].cmd
	if !c.shell || len(c.args) != 1 || c.args[0] != "echo $HOME > ~/h" {
		t.Errorf("config command = %+v, want one shell script", c)
	}
	if g := task.os.eval.result[0].cmd; !g.shell || len(g.args) != 1 {
		t.Errorf("getter command = %+v, want one shell script", g)
	}
}

// TestControllerStepsDecode checks what each SetupController step keeps.
func TestControllerStepsDecode(t *testing.T) {
	const okEval = `{"func": "exact_match", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": "x"}}}`
	task := loadOne(t, taskJSON(`[
		{"type": "download", "parameters": {"files": [{"url": "https://x/a.xlsx", "path": "/home/user/a.xlsx"}, {"url": "https://x/b", "path": "~/b"}]}},
		{"type": "activate_window", "parameters": {"window_name": "a.xlsx - LibreOffice Calc", "strict": true}},
		{"type": "close_window", "parameters": {"window_name": "gimp", "by_class": "true"}},
		{"type": "chrome_open_tabs", "parameters": {"urls_to_open": ["https://a", "https://b"]}},
		{"type": "update_browse_history", "parameters": {"history": [{"url": "https://a", "title": "A", "visit_time_from_now_in_seconds": 60}]}},
		{"type": "googledrive", "parameters": {"operation": ["delete", "mkdirs", "upload", "nonsense"], "args": [{"query": "title = 'a'", "trash": "yes"}, {"path": "m"}, {"url": "https://x/u.pdf", "path": ["u.pdf"]}]}},
		{"type": "login", "parameters": {"settings_file": "evaluation_examples/settings/google/settings.json", "platform": "googledrive"}}]`, okEval))
	if task.Problem != nil {
		t.Fatal(task.Problem)
	}
	c := task.os.config
	if len(c[0].files) != 2 || c[0].files[0].url != "https://x/a.xlsx" || c[0].files[1].path != "~/b" {
		t.Errorf("download = %+v", c[0].files)
	}
	if got := strings.Join(c[0].stepURLs(), " "); got != "https://x/a.xlsx https://x/b" {
		t.Errorf("download URLs = %s", got)
	}
	if w := c[1].window; w.name != "a.xlsx - LibreOffice Calc" || !w.strict || w.byClass {
		t.Errorf("activate_window = %+v", w)
	}
	if w := c[2].window; !w.byClass || w.strict {
		t.Errorf("close_window = %+v", w)
	}
	if len(c[3].urls) != 2 {
		t.Errorf("chrome_open_tabs = %v", c[3].urls)
	}
	if h := c[4].history; len(h) != 1 || h[0].ago != 60 || c[4].stepURLs()[0] != historyDBURL {
		t.Errorf("update_browse_history = %+v", h)
	}
	// googledrive: the operations up to the first upload (OSWorld returns
	// after it, so "nonsense" is never reached), the upload's title the
	// path as given, its URL an input of the cache.
	if d := c[5].drive; d == nil || d.settings != "evaluation_examples/settings/googledrive/settings.yml" || len(d.ops) != 3 ||
		d.ops[0].query != "title = 'a'" || !d.ops[0].trash || strings.Join(d.ops[1].path, "/") != "m" ||
		d.ops[2].url != "https://x/u.pdf" || string(d.ops[2].title) != `["u.pdf"]` {
		t.Errorf("googledrive = %+v", c[5].drive)
	}
	if got := strings.Join(c[5].stepURLs(), " "); got != "https://x/u.pdf" {
		t.Errorf("googledrive URLs = %s", got)
	}
	if c[6].login != "evaluation_examples/settings/google/settings.json" {
		t.Errorf("login = %q", c[6].login)
	}
	for _, bad := range []string{
		`{"operation": ["delete"]}`,
		`{"operation": ["clean"], "args": [{}]}`,
		`{"operation": "delete", "args": [{}]}`,
		`{"operation": ["upload"], "args": [{"url": "https://x"}]}`,
	} {
		if tk := loadOne(t, taskJSON(`[{"type": "googledrive", "parameters": `+bad+`}]`, okEval)); tk.Problem == nil {
			t.Errorf("googledrive %s: loads, want a task error", bad)
		}
	}
	if tk := loadOne(t, taskJSON(`[{"type": "login", "parameters": {"settings_file": "s.json", "platform": "dropbox"}}]`, okEval)); tk.Problem == nil {
		t.Error("login to dropbox: loads, want a task error (NotImplementedError in OSWorld)")
	}
}

// TestTreeIndex loads small trees: ids repeat across domains, the index's
// order is kept, and a listed task whose file is missing loads as invalid.
func TestTreeIndex(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	task := func(id string) string {
		return `{"id": "` + id + `", "instruction": "x", "snapshot": "s", "source": "", "trajectory": "t/", "related_apps": [], "config": [],
			"evaluator": {"func": "exact_match", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": "x"}}}}`
	}
	write("examples/b/t1.json", task("t1"))
	write("examples/a/t1.json", task("t1"))
	write("examples/a/t2.json", task("other"))
	write("examples/a/unlisted.json", task("unlisted"))
	write("test_all.json", `{"b": ["t1"], "a": ["t1", "t2", "gone"]}`)
	write("test_one.json", `{"a": ["t1"]}`)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range s.Tasks {
		ids = append(ids, tk.ID)
	}
	if got := strings.Join(ids, " "); got != "b/t1 a/t1 a/t2 a/gone" {
		t.Fatalf("ids = %s", got)
	}
	var te *TaskError
	if s.Tasks[0].Problem != nil || s.Tasks[1].Problem != nil ||
		!errors.As(s.Tasks[2].Problem, &te) || !errors.As(s.Tasks[3].Problem, &te) {
		t.Errorf("problems: %v, %v, %v, %v", s.Tasks[0].Problem, s.Tasks[1].Problem, s.Tasks[2].Problem, s.Tasks[3].Problem)
	}
	one, err := Load(filepath.Join(dir, "test_one.json"))
	if err != nil || len(one.Tasks) != 1 || one.Tasks[0].ID != "a/t1" {
		t.Fatalf("test_one.json: %v", err)
	}
	write("test_bad.json", `{"a": "t1"}`)
	if bad, err := Load(filepath.Join(dir, "test_bad.json")); err == nil && (len(bad.Tasks) != 1 || !errors.As(bad.Tasks[0].Problem, &te)) {
		t.Error("a file that is neither an index nor a task loaded as runnable")
	}
}
