//go:build linux

package eval

import (
	"fmt"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Format is the kind of a suite.
type Format string

// The suite formats Load reads.
const (
	// FormatGAIA is a JSONL file of GAIA questions, scored with ScoreGAIA.
	FormatGAIA Format = "gaia"
	// FormatOSWorld is a folder of OSWorld task files, checked by their evaluator.
	FormatOSWorld Format = "osworld"
)

// Size limits of suite files; anything larger is refused with an error.
const (
	maxTaskFile = 4 << 20 // one OSWorld task file
	maxGAIALine = 4 << 20 // one JSONL line
	maxTasks    = 100_000 // tasks in a suite
)

// Suite is a loaded suite. Its tasks are in a stable order (the JSONL's lines, or
// the task files' paths sorted), which Shard relies on across machines.
type Suite struct {
	// Name is the suite's folder name, or its file name without extension.
	Name string
	// Path is the suite's absolute path.
	Path string
	// Format is the suite's format.
	Format Format
	// Tasks are the suite's tasks; ids are unique.
	Tasks []*Task
}

// Task is one task of a suite.
type Task struct {
	// ID is the task's id, unique in its suite: for OSWorld's own tree
	// "domain/id" (its ids are unique only within a domain).
	ID string
	// Domain is the task's domain in OSWorld's tree (its examples/ folder:
	// "chrome", "os", ...); "" elsewhere.
	Domain string
	// Instruction is the question (GAIA) or the instruction (OSWorld).
	Instruction string
	// Source is the file (and for JSONL the line) the task came from.
	Source string
	// Level is GAIA's difficulty level ("1".."3"); "" for OSWorld.
	Level string
	// Answer is GAIA's ground truth ("Final answer"); "" for OSWorld.
	Answer string
	// File is GAIA's attached file (absolute path); "" when none.
	File string
	// MaxSteps, Timeout and Screen are the task's own settings (the "deskpilot"
	// object of an OSWorld task); zero when it sets none.
	MaxSteps int
	Timeout  time.Duration
	Screen   image.Point
	// Problem says why the task cannot be run: an *UnsupportedError (it needs a part
	// of its format this harness does not implement) or a *TaskError (it is
	// malformed). Such tasks are reported, never run and never counted as passed.
	Problem error

	os *osTask // OSWorld only
}

// UnsupportedError says a task needs a part of its format that eval does not
// implement, e.g. an OSWorld metric or getter.
type UnsupportedError struct {
	// What names the kind of part: "evaluator func", "result getter", "config step", ...
	What string
	// Name is the part's name as the task spells it.
	Name string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("unsupported %s %q", e.What, e.Name)
}

// TaskError says a task is malformed.
type TaskError struct {
	// Source is the task's file (and line).
	Source string
	// Err says what is wrong.
	Err error
}

func (e *TaskError) Error() string { return fmt.Sprintf("invalid task (%s): %v", e.Source, e.Err) }
func (e *TaskError) Unwrap() error { return e.Err }

// Load reads the suite at path: a GAIA .jsonl file, one OSWorld task .json file,
// OSWorld's own tree (evaluation_examples/ or its examples/ folder, with the
// tasks test_all.json lists; or an index file such as test_small.json, with
// the tasks it lists), or a folder (GAIA when it holds metadata.jsonl, else
// every OSWorld task .json below it, in sorted path order). A file that is not JSON, or two tasks with the
// same id, fail the load; a task that is malformed or needs something unsupported
// loads with its Problem set.
func Load(path string) (*Suite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("eval: suite %s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("eval: suite: %w", err)
	}
	s := &Suite{Path: abs, Name: strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))}
	examples, index, tree := treeOf(abs, fi.IsDir())
	switch {
	case tree:
		s.Name, s.Format = treeName(examples, index), FormatOSWorld
		err = loadOSWorldTree(s, examples, index)
	case fi.IsDir():
		s.Name = filepath.Base(abs)
		if meta := filepath.Join(abs, "metadata.jsonl"); isFile(meta) {
			s.Format, err = FormatGAIA, loadGAIA(s, meta)
		} else {
			s.Format, err = FormatOSWorld, loadOSWorldDir(s, abs)
		}
	case strings.EqualFold(filepath.Ext(abs), ".jsonl"):
		s.Format, err = FormatGAIA, loadGAIA(s, abs)
	case strings.EqualFold(filepath.Ext(abs), ".json"):
		s.Format, err = FormatOSWorld, loadOSWorldFile(s, abs)
	default:
		return nil, fmt.Errorf("eval: suite %s: want a .jsonl file (GAIA), a .json task (OSWorld) or a folder", path)
	}
	if err != nil {
		return nil, fmt.Errorf("eval: suite %s: %w", path, err)
	}
	if len(s.Tasks) == 0 {
		return nil, fmt.Errorf("eval: suite %s has no tasks", path)
	}
	seen := make(map[string]string, len(s.Tasks))
	for _, t := range s.Tasks {
		if prev, ok := seen[t.ID]; ok {
			return nil, fmt.Errorf("eval: suite %s: task id %q in both %s and %s", path, t.ID, prev, t.Source)
		}
		seen[t.ID] = t.Source
	}
	return s, nil
}

// loadOSWorldDir loads every .json file below dir, skipping hidden folders.
func loadOSWorldDir(s *Suite, dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && p != dir && strings.HasPrefix(e.Name(), ".") {
			return filepath.SkipDir
		}
		if !e.IsDir() && strings.EqualFold(filepath.Ext(p), ".json") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(files)
	for _, f := range files {
		if len(s.Tasks) >= maxTasks {
			return fmt.Errorf("more than %d tasks", maxTasks)
		}
		if err := loadOSWorldFile(s, f); err != nil {
			return err
		}
	}
	return nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// safeName turns a task id into a folder name: ASCII letters, digits, ".", "-"
// and "_" are kept, anything else becomes "_", and an id that had to change gets
// a short hash so two ids never share a folder.
func safeName(id string) string {
	var b strings.Builder
	changed := id == "" || id == "." || id == ".."
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = true
		}
	}
	name := b.String()
	if len(name) > 80 {
		name, changed = name[:80], true
	}
	if changed {
		name = fmt.Sprintf("%s-%08x", name, fnv32(id))
	}
	return name
}

// fnv32 is the 32-bit FNV-1a hash.
func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
