//go:build linux

package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// gaiaLine is one line of a GAIA metadata.jsonl. Other fields ("Annotator
// Metadata", "file_path", ...) are ignored.
type gaiaLine struct {
	TaskID   *string         `json:"task_id"`
	Question *string         `json:"Question"`
	Answer   json.RawMessage `json:"Final answer"`
	Level    json.RawMessage `json:"Level"`
	FileName string          `json:"file_name"`
}

// loadGAIA reads a GAIA JSONL file; attached files are resolved next to it.
func loadGAIA(s *Suite, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return readGAIA(s, f, filepath.Dir(path), filepath.Base(path))
}

// readGAIA reads GAIA JSONL lines from r; name is the file's name for messages,
// dir the folder attached files are in.
func readGAIA(s *Suite, r io.Reader, dir, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxGAIALine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if len(s.Tasks) >= maxTasks {
			return fmt.Errorf("more than %d tasks", maxTasks)
		}
		src := fmt.Sprintf("%s:%d", name, n)
		var g gaiaLine
		if err := json.Unmarshal(line, &g); err != nil {
			return fmt.Errorf("%s: not a JSON object: %w", src, err)
		}
		s.Tasks = append(s.Tasks, gaiaTask(g, dir, src))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s: a line is longer than %d bytes", name, maxGAIALine)
		}
		return err
	}
	return nil
}

// gaiaTask makes a Task of one line; what is wrong with it becomes its Problem.
func gaiaTask(g gaiaLine, dir, src string) *Task {
	t := &Task{Source: src}
	bad := func(format string, args ...any) *Task {
		t.Problem = &TaskError{Source: src, Err: fmt.Errorf(format, args...)}
		return t
	}
	if g.TaskID == nil || strings.TrimSpace(*g.TaskID) == "" {
		t.ID = src
		return bad("no task_id")
	}
	t.ID = *g.TaskID
	if g.Question == nil || strings.TrimSpace(*g.Question) == "" {
		return bad("no Question")
	}
	t.Instruction = *g.Question
	var ok bool
	if t.Answer, ok = jsonText(g.Answer); !ok {
		return bad(`"Final answer" must be a string`)
	}
	if t.Level, ok = jsonText(g.Level); !ok && !isNull(g.Level) {
		return bad(`"Level" must be a string or a number`)
	}
	if g.FileName != "" {
		file, err := attachedFile(dir, g.FileName)
		if err != nil {
			return bad("file_name: %w", err)
		}
		t.File = file
		t.Instruction += "\n\nAttached file: " + file
	}
	return t
}

// jsonText returns a JSON string's text, or a number's literal (some GAIA exports
// write Level as 1); ok is false for anything else, and for a missing value.
func jsonText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

// attachedFile resolves a GAIA file_name inside dir. The name must be a plain
// relative path, and the file (after symbolic links) a regular file inside dir:
// the agent's file inspector is allowed to read it, so a suite cannot point it at
// anything else.
func attachedFile(dir, name string) (string, error) {
	if !filepath.IsLocal(name) {
		return "", fmt.Errorf("%q must be a path inside the suite's folder", name)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("attached file: %w", err)
	}
	if rel, err := filepath.Rel(realDir, real); err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("%q leads outside the suite's folder (to %s)", name, real)
	}
	if !isFile(real) {
		return "", fmt.Errorf("%q is not a regular file", name)
	}
	return real, nil
}
