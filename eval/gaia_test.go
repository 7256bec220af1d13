//go:build linux

package eval

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadGAIA(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	for name, text := range map[string]string{"files/a.txt": "x", "../secret.txt": "s"} {
		p := filepath.Join(dir, name)
		if strings.HasPrefix(name, "..") {
			p = filepath.Join(outside, "secret.txt")
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "files", "link.txt")); err != nil {
		t.Fatal(err)
	}
	lines := []string{
		`{"task_id": "ok", "Question": "q?", "Level": 1, "Final answer": "42", "file_name": "files/a.txt", "Annotator Metadata": {"Steps": "x"}}`,
		`{"task_id": "no-file", "Question": "q?", "Level": "2", "Final answer": "x", "file_name": ""}`,
		``,
		`{"task_id": "numeric-answer", "Question": "q?", "Level": 3, "Final answer": 17}`,
		`{"task_id": "escape", "Question": "q?", "Final answer": "x", "file_name": "../secret.txt"}`,
		`{"task_id": "absolute", "Question": "q?", "Final answer": "x", "file_name": "/etc/passwd"}`,
		`{"task_id": "symlink-out", "Question": "q?", "Final answer": "x", "file_name": "files/link.txt"}`,
		`{"task_id": "missing-file", "Question": "q?", "Final answer": "x", "file_name": "files/none.pdf"}`,
		`{"task_id": "no-question", "Final answer": "x"}`,
		`{"task_id": "no-answer", "Question": "q?"}`,
		`{"Question": "q?", "Final answer": "x"}`,
		`{"task_id": "list-answer", "Question": "q?", "Final answer": ["x"]}`,
	}
	if err := os.WriteFile(filepath.Join(dir, "metadata.jsonl"), []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{ // id -> a part of its problem; "" = runnable
		"ok": "", "no-file": "", "numeric-answer": "",
		"escape": "must be a path inside", "absolute": "must be a path inside", "symlink-out": "leads outside",
		"missing-file": "no such file", "no-question": "no Question", "no-answer": `"Final answer" must be`,
		"metadata.jsonl:11": "no task_id", "list-answer": `"Final answer" must be`,
	}
	if len(s.Tasks) != len(want) {
		t.Fatalf("%d tasks, want %d", len(s.Tasks), len(want))
	}
	for _, task := range s.Tasks {
		w, ok := want[task.ID]
		if !ok {
			t.Errorf("unexpected task %q", task.ID)
			continue
		}
		var te *TaskError
		switch {
		case w == "" && task.Problem != nil:
			t.Errorf("%s: %v", task.ID, task.Problem)
		case w != "" && (!errors.As(task.Problem, &te) || !strings.Contains(te.Error(), w)):
			t.Errorf("%s: problem %v, want %q", task.ID, task.Problem, w)
		}
	}
	ok := s.Tasks[0]
	if ok.Level != "1" || ok.Answer != "42" || ok.File != filepath.Join(dir, "files", "a.txt") || !strings.HasSuffix(ok.Instruction, "Attached file: "+ok.File) {
		t.Errorf("task ok = %+v", ok)
	}
	if s.Tasks[2].Answer != "17" || s.Tasks[1].Level != "2" {
		t.Errorf("numbers as text: %+v %+v", s.Tasks[1], s.Tasks[2])
	}
}

func FuzzLoadGAIA(f *testing.F) {
	f.Add([]byte(`{"task_id": "a", "Question": "q", "Level": 1, "Final answer": "1,2", "file_name": "x.txt"}` + "\n\n{}\n"))
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.txt"), []byte("x"), 0o600); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Suite{Path: dir}
		if err := readGAIA(s, bytes.NewReader(data), dir, "metadata.jsonl"); err != nil {
			return
		}
		for _, task := range s.Tasks {
			if task.Problem == nil && (task.ID == "" || task.Instruction == "") {
				t.Fatalf("runnable task without id or question: %+v", task)
			}
			if task.File != "" && filepath.Dir(task.File) != dir {
				t.Fatalf("attached file outside the suite: %s", task.File)
			}
		}
	})
}
