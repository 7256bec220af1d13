//go:build linux

package eval

import (
	"deskpilot/eval/checks"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadOne loads a single OSWorld task written to a temporary folder.
func loadOne(t *testing.T, task string) *Task {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "task.json"), []byte(task), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s.Tasks[0]
}

// task builds a task file from an evaluator and config.
func taskJSON(config, evaluator string) string {
	return `{"id": "t1", "instruction": "do it", "snapshot": "os", "related_apps": ["x"], "config": ` + config + `, "evaluator": ` + evaluator + `}`
}

func TestOSWorldProblems(t *testing.T) {
	const okEval = `{"func": "exact_match", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": "x"}}}`
	tests := []struct {
		name        string
		task        string
		unsupported string // the UnsupportedError's text, or
		invalid     string // a part of the TaskError's text; both "" = runnable
	}{
		{"runnable", taskJSON(`[]`, okEval), "", ""},
		{"every step type", taskJSON(`[
			{"type": "execute", "parameters": {"command": ["true"], "stdout": "o.txt", "until": {"returncode": 0}}},
			{"type": "command", "parameters": {"command": "echo 'a b'", "shell": true}},
			{"type": "launch", "parameters": {"command": "xterm -T x"}},
			{"type": "open", "parameters": {"path": "~/a.txt"}},
			{"type": "sleep", "parameters": {"seconds": 0.5}},
			{"type": "wait_window", "parameters": {"title": "x", "timeout": 5}}]`, okEval), "", ""},
		{"func list with conj", taskJSON(`[]`, `{"func": ["exact_match", "fuzzy_match"], "conj": "or",
			"result": [{"type": "answer"}, {"type": "vm_command_line", "command": "echo hi"}],
			"expected": [{"type": "rule", "rules": {"expected": "x"}}, {"type": "rule", "rules": {"expected": "hi"}}]}`), "", ""},
		{"compare_text_file with options", taskJSON(`[]`, `{"func": "compare_text_file",
			"result": {"type": "vm_file", "path": "~/a", "dest": "a"}, "expected": {"type": "vm_file", "path": "g/a", "dest": "b"},
			"options": {"ignore_blanks": true, "ignore_case": false}}`), "", ""},
		{"unknown func", taskJSON(`[]`, `{"func": "compare_holograms", "result": {"type": "answer"}}`), `unsupported evaluator func "compare_holograms"`, ""},
		{"infeasible", taskJSON(`[]`, `{"func": "infeasible"}`), "", ""},
		{"unknown func in list", taskJSON(`[]`, `{"func": ["exact_match", "check_holograms"], "result": [], "expected": []}`), `unsupported evaluator func "check_holograms"`, ""},
		{"unknown result getter", taskJSON(`[]`, `{"func": "exact_match", "result": {"type": "vm_hologram"}, "expected": {"type": "rule", "rules": {"expected": "x"}}}`), `unsupported getter "vm_hologram"`, ""},
		{"unknown expected getter", taskJSON(`[]`, `{"func": "compare_text_file", "result": {"type": "vm_file", "path": "/a", "dest": "a"}, "expected": {"type": "drive_hologram", "path": "https://x", "dest": "a"}}`), `unsupported getter "drive_hologram"`, ""},
		{"unknown step", taskJSON(`[{"type": "teleport", "parameters": {"files": []}}]`, okEval), `unsupported config step "teleport"`, ""},
		{"unknown postconfig step", taskJSON(`[]`, `{"func": "exact_match", "postconfig": [{"type": "levitate", "parameters": {"window_name": "x"}}], "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": "x"}}}`), `unsupported config step "levitate"`, ""},
		{"evaluator field OSWorld ignores", taskJSON(`[]`, `{"func": "exact_match", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": "x"}}, "metric_weight": 2}`), "", ""},
		{"every controller step", taskJSON(`[
			{"type": "download", "parameters": {"files": [{"url": "https://x/a.xlsx", "path": "/home/user/a.xlsx"}]}},
			{"type": "upload_file", "parameters": {"files": [{"local_path": "a.txt", "path": "~/a.txt"}]}},
			{"type": "activate_window", "parameters": {"window_name": "a.xlsx - LibreOffice Calc", "strict": true}},
			{"type": "close_window", "parameters": {"window_name": "gimp", "by_class": "true"}},
			{"type": "chrome_open_tabs", "parameters": {"urls_to_open": ["https://example.com"]}},
			{"type": "chrome_close_tabs", "parameters": {"urls_to_close": ["https://example.com"]}},
			{"type": "update_browse_history", "parameters": {"history": [{"url": "https://a", "title": "A", "visit_time_from_now_in_seconds": 60}]}},
			{"type": "googledrive", "parameters": {"settings_file": "s.yml", "operation": ["delete"], "args": [{}]}},
			{"type": "login", "parameters": {"settings_file": "s.json", "platform": "googledrive"}},
			{"type": "tidy_desktop", "parameters": {}},
			{"type": "change_wallpaper", "parameters": {"path": "~/w.png"}},
			{"type": "execute", "parameters": {"command": "echo hi", "shell": "true"}}]`, okEval), "", ""},
		{"download without path", taskJSON(`[{"type": "download", "parameters": {"files": [{"url": "https://x/a"}]}}]`, okEval), "", "files[0].path must be"},
		{"activate_window without name", taskJSON(`[{"type": "activate_window", "parameters": {"strict": true}}]`, okEval), "", "window_name must be"},
		{"open tabs not a list", taskJSON(`[{"type": "chrome_open_tabs", "parameters": {"urls_to_open": "https://x"}}]`, okEval), "", "urls_to_open must be a list"},
		{"history without title", taskJSON(`[{"type": "update_browse_history", "parameters": {"history": [{"url": "https://a", "visit_time_from_now_in_seconds": 1}]}}]`, okEval), "", "history[0] needs"},
		{"getter field OSWorld ignores", taskJSON(`[]`, `{"func": "exact_match", "result": {"type": "vm_file", "path": "/a", "dest": "a", "note": "x"}, "expected": {"type": "rule", "rules": {"expected": "x"}}}`), "", ""},
		{"multi vm_file with one path", taskJSON(`[]`, `{"func": "exact_match", "result": {"type": "vm_file", "path": "/a", "dest": "a", "multi": true}, "expected": {"type": "rule", "rules": {"expected": "x"}}}`), "", "path: want a list of strings"},
		{"unknown step parameter", taskJSON(`[{"type": "sleep", "parameters": {"seconds": 1, "jitter": 2}}]`, okEval), `unsupported sleep parameter "jitter"`, ""},
		{"unknown option", taskJSON(`[]`, `{"func": "exact_match", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": "x"}}, "options": {"ignore_case": true}}`), "", `unexpected keyword argument "ignore_case"`},
		{"no id", `{"instruction": "x", "evaluator": {}}`, "", `"id" must be`},
		{"id not a string", `{"id": 7, "instruction": "x", "evaluator": {}}`, "", `"id" must be`},
		{"no instruction", `{"id": "t1", "evaluator": {}}`, "", `"instruction" must be`},
		{"no evaluator", `{"id": "t1", "instruction": "x"}`, "", `no "evaluator"`},
		{"config not a list", taskJSON(`{"type": "sleep"}`, okEval), "", "config must be a list"},
		{"sleep too long", taskJSON(`[{"type": "sleep", "parameters": {"seconds": 1e9}}]`, okEval), "", "seconds must be a number from 0 to 600"},
		{"empty command", taskJSON(`[{"type": "execute", "parameters": {"command": []}}]`, okEval), "", "empty command"},
		{"command of numbers", taskJSON(`[{"type": "execute", "parameters": {"command": [1, 2]}}]`, okEval), "", "command must be a string or a list"},
		{"unclosed quote", taskJSON(`[{"type": "execute", "parameters": {"command": "echo 'a"}}]`, okEval), "", "no closing quotation"},
		{"stdout leaves the cache", taskJSON(`[{"type": "execute", "parameters": {"command": "true", "stdout": "../x"}}]`, okEval), "", "stdout must be a file name"},
		{"bad conj", taskJSON(`[]`, `{"func": ["exact_match"], "conj": "xor", "result": [{"type": "answer"}], "expected": [{"type": "rule", "rules": {"expected": "x"}}]}`), "", `"conj" must be "and" or "or"`},
		{"list lengths differ", taskJSON(`[]`, `{"func": ["exact_match", "exact_match"], "result": [{"type": "answer"}], "expected": []}`), "", `"result" must be a list of 2 entries`},
		{"no result", taskJSON(`[]`, `{"func": "exact_match", "expected": {"type": "rule", "rules": {"expected": "x"}}}`), "", "exact_match has no result getter"},
		{"rules without expected", taskJSON(`[]`, `{"func": "exact_match", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"want": "x"}}}`), "", `rules need "expected"`},
		{"no expected getter", taskJSON(`[]`, `{"func": "is_in_list", "result": {"type": "answer"}}`), "", "needs an expected getter of type rule"},
		{"include not a list", taskJSON(`[]`, `{"func": "check_include_exclude", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"include": "x"}}}`), "", "rules.include: want a list of strings"},
		{"compare_text_file with a rule", taskJSON(`[]`, `{"func": "compare_text_file", "result": {"type": "vm_file", "path": "/a", "dest": "a"}, "expected": {"type": "rule", "rules": {"expected": "x"}}}`), "", "needs file getters"},
		{"file_contains on the answer", taskJSON(`[]`, `{"func": "file_contains", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": ["x"]}}}`), "", "needs a file result"},
		{"option not a bool", taskJSON(`[]`, `{"func": "compare_text_file", "result": {"type": "vm_file", "path": "/a", "dest": "a"}, "expected": {"type": "vm_file", "path": "/b", "dest": "b"}, "options": {"ignore_case": "yes"}}`), "", ""},
		{"bad screen", `{"id": "t1", "instruction": "x", "deskpilot": {"screen": "big"}, "evaluator": ` + okEval + `}`, "", "want WxH"},
		{"unknown own setting", `{"id": "t1", "instruction": "x", "deskpilot": {"gpu": true}, "evaluator": ` + okEval + `}`, `unsupported deskpilot field "gpu"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := loadOne(t, tt.task)
			var u *UnsupportedError
			var te *TaskError
			switch {
			case tt.unsupported != "":
				if !errors.As(task.Problem, &u) || u.Error() != tt.unsupported {
					t.Errorf("problem = %v, want %s", task.Problem, tt.unsupported)
				}
			case tt.invalid != "":
				if !errors.As(task.Problem, &te) || !strings.Contains(te.Error(), tt.invalid) {
					t.Errorf("problem = %v, want an invalid task saying %q", task.Problem, tt.invalid)
				}
			case task.Problem != nil:
				t.Errorf("problem = %v, want none", task.Problem)
			}
		})
	}
}

func TestOSWorldSettings(t *testing.T) {
	task := loadOne(t, `{"id": "t1", "instruction": "x", "deskpilot": {"max_steps": 12, "timeout_seconds": 90, "screen": "1280x800"},
		"evaluator": {"func": "exact_match", "result": {"type": "answer"}, "expected": {"type": "rule", "rules": {"expected": "x"}}}}`)
	if task.Problem != nil || task.MaxSteps != 12 || task.Timeout.Seconds() != 90 || task.Screen.X != 1280 || task.Screen.Y != 800 {
		t.Errorf("task = %+v", task)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"not JSON", map[string]string{"a.json": "{"}, "not a JSON object"},
		{"JSON list", map[string]string{"a.json": "[]"}, "not a JSON object"},
		{"duplicate id", map[string]string{"a.json": taskJSON(`[]`, `{}`), "b/c.json": taskJSON(`[]`, `{}`)}, `task id "t1" in both`},
		{"empty folder", map[string]string{"README.md": "x"}, "has no tasks"},
		{"GAIA line not JSON", map[string]string{"metadata.jsonl": "{\"task_id\": \"a\", \"Question\": \"q\", \"Final answer\": \"1\"}\nnope\n"}, "metadata.jsonl:2: not a JSON object"},
		{"GAIA duplicate id", map[string]string{"metadata.jsonl": "{\"task_id\": \"a\", \"Question\": \"q\", \"Final answer\": \"1\"}\n{\"task_id\": \"a\", \"Question\": \"q\", \"Final answer\": \"1\"}\n"}, `task id "a" in both`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestShlexSplit(t *testing.T) {
	// Python 3.11's shlex.split on each input.
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"ls -l ~/x", []string{"ls", "-l", "~/x"}, ""},
		{"a 'b c' d", []string{"a", "b c", "d"}, ""},
		{`a "b \" c" d`, []string{"a", `b " c`, "d"}, ""},
		{`a\ b`, []string{"a b"}, ""},
		{`a "b\x"`, []string{"a", `b\x`}, ""},
		{"a ''", []string{"a", ""}, ""},
		{`a "" b`, []string{"a", "", "b"}, ""},
		{"x\ty\nz", []string{"x", "y", "z"}, ""},
		{`a"b"c`, []string{"abc"}, ""},
		{`'a\b'`, []string{`a\b`}, ""},
		{`"a\\b"`, []string{`a\b`}, ""},
		{`ü "ö ä"`, []string{"ü", "ö ä"}, ""},
		{"it's", nil, "no closing quotation"},
		{`a "unclosed`, nil, "no closing quotation"},
		{`trail\`, nil, "no escaped character"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := shlexSplit(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("shlexSplit(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || strings.Join(got, "\x00") != strings.Join(tt.want, "\x00") || len(got) != len(tt.want) {
				t.Errorf("shlexSplit(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestExpandVars(t *testing.T) {
	// Python 3.11's os.path.expandvars with HOME=/h, A_1=v and É=e set.
	env := map[string]string{"HOME": "/h", "A_1": "v", "É": "e"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct{ in, want string }{
		{"$HOME/x", "/h/x"},
		{"${HOME}/x", "/h/x"},
		{"$NOPE/x", "$NOPE/x"},
		{"${NOPE}x", "${NOPE}x"},
		{"$", "$"},
		{"$/x", "$/x"},
		{"a$A_1b", "a$A_1b"},
		{"$A_1.b", "v.b"},
		{"${A_1", "${A_1"},
		{"$$HOME", "$/h"},
		{"$É", "$É"},
		{"~/x", "~/x"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := expandVars(tt.in, lookup); got != tt.want {
				t.Errorf("expandVars(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestScrubEnv(t *testing.T) {
	env := scrubEnv([]string{"PATH=/bin", "OPENAI_API_KEY=sk-1", "GITHUB_TOKEN=g", "AWS_SECRET_ACCESS_KEY=a", "DB_PASSWORD=p",
		"SSH_AUTH_SOCK=/s", "XKB_DEFAULT_KEYMAP=us", "KEYBOARD=x", "MY_APIKEY=k", "HOME=/h"})
	want := "PATH=/bin XKB_DEFAULT_KEYMAP=us KEYBOARD=x HOME=/h"
	if got := strings.Join(env, " "); got != want {
		t.Errorf("scrubEnv = %s, want %s", got, want)
	}
}

func FuzzLoadOSWorld(f *testing.F) {
	for _, s := range []string{
		taskJSON(`[{"type": "execute", "parameters": {"command": "echo 'a b'", "until": {"stdout": "x"}}}]`, `{"func": ["exact_match", "fuzzy_match"], "conj": "or", "result": [{"type": "answer"}, {"type": "vm_command_line", "command": ["a"]}], "expected": [null, {"type": "rule", "rules": {"expected": "hi"}}], "options": [null, {}]}`),
		`{"id": "x", "instruction": "y", "evaluator": {"func": "compare_text_file", "result": {"type": "vm_file", "path": "~/a"}, "expected": {"type": "vm_file", "path": "b"}, "options": {"ignore_blanks": true}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) != nil {
			return
		}
		task := &Task{Source: "t.json"}
		err := decodeOSWorld(task, top, "/suite")
		if err != nil {
			return
		}
		ev := task.os.eval
		if task.ID == "" || len(ev.funcs) == 0 || len(ev.result) != len(ev.funcs) ||
			len(ev.expected) != len(ev.funcs) || len(ev.options) != len(ev.funcs) {
			t.Fatalf("runnable task with an inconsistent evaluator: %+v", ev)
		}
		for i, f := range ev.funcs {
			if _, ok := checks.Lookup(f); !ok || ev.result[i] == nil || ev.options[i] == nil {
				t.Fatalf("metric %d (%s) not ready", i, f)
			}
		}
	})
}
