//go:build linux

package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"deskpilot/internal/smallfile"
)

// OSWorld's own tree (evaluation_examples/) is examples/<domain>/<id>.json
// plus index files (test_all.json, test_small.json, ...) that map each domain
// to the ids of the tasks to run, in order. Ids are unique only within a
// domain (11 thunderbird ids repeat chrome ids), so a task of a tree is keyed
// "domain/id".

// defaultIndex is the index file a tree is run with when none is named.
const defaultIndex = "test_all.json"

// maxIndexFile bounds an index file.
const maxIndexFile = 4 << 20

// treeOf recognises OSWorld's tree at path and returns its examples folder and
// the index file to select tasks with:
//
//   - a folder holding examples/ and test_all.json (evaluation_examples/);
//   - the examples/ folder itself, when its parent holds test_all.json;
//   - an index file (a JSON object mapping domains to lists of ids) next to
//     examples/, e.g. evaluation_examples/test_small.json.
//
// ok is false for anything else (a folder of task files, one task file).
func treeOf(path string, dir bool) (examples, index string, ok bool) {
	if dir {
		if ex := filepath.Join(path, "examples"); isDir(ex) && isFile(filepath.Join(path, defaultIndex)) {
			return ex, filepath.Join(path, defaultIndex), true
		}
		if idx := filepath.Join(filepath.Dir(path), defaultIndex); filepath.Base(path) == "examples" && isFile(idx) {
			return path, idx, true
		}
		return "", "", false
	}
	ex := filepath.Join(filepath.Dir(path), "examples")
	if !isDir(ex) {
		return "", "", false
	}
	if _, err := readIndex(path); err != nil {
		return "", "", false
	}
	return ex, path, true
}

// indexEntry is one domain of an index file and its ids, in the file's order.
type indexEntry struct {
	domain string
	ids    []string
}

// readIndex reads an index file, keeping the order of its domains (OSWorld
// runs them in the dict's order). Anything but an object of lists of strings
// is an error.
func readIndex(path string) ([]indexEntry, error) {
	data, err := smallfile.Read(path, maxIndexFile)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%s: an index must be a JSON object of domain: [ids]", path)
	}
	var out []indexEntry
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		domain, _ := tok.(string)
		var ids []string
		if err := dec.Decode(&ids); err != nil {
			return nil, fmt.Errorf("%s: domain %q: want a list of task ids", path, domain)
		}
		if domain == "" || !filepath.IsLocal(domain) || seen[domain] {
			return nil, fmt.Errorf("%s: domain %q: want a folder name of examples/, once", path, domain)
		}
		seen[domain] = true
		out = append(out, indexEntry{domain, ids})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// loadOSWorldTree loads the tasks an index file selects from examples/. A task
// the index names whose file is missing, or whose id is not its file's name,
// loads as invalid (OSWorld would stop on it); ids are "domain/id".
func loadOSWorldTree(s *Suite, examples, index string) error {
	entries, err := readIndex(index)
	if err != nil {
		return err
	}
	root := filepath.Dir(examples)
	for _, e := range entries {
		seen := map[string]bool{}
		for _, id := range e.ids {
			if len(s.Tasks) >= maxTasks {
				return fmt.Errorf("more than %d tasks", maxTasks)
			}
			key := e.domain + "/" + id
			if seen[id] {
				return fmt.Errorf("%s: task %s listed twice", index, key)
			}
			seen[id] = true
			file := filepath.Join(examples, e.domain, id+".json")
			rel, _ := filepath.Rel(root, file)
			if !filepath.IsLocal(id) || strings.ContainsAny(id, `/\`) {
				s.Tasks = append(s.Tasks, &Task{ID: key, Domain: e.domain, Source: index,
					Problem: &TaskError{Source: index, Err: fmt.Errorf("task id %q is not a file name", id)}})
				continue
			}
			if !isFile(file) {
				s.Tasks = append(s.Tasks, &Task{ID: key, Domain: e.domain, Source: rel,
					Problem: &TaskError{Source: rel, Err: errors.New("the index lists it but the file is missing")}})
				continue
			}
			n := len(s.Tasks)
			if err := loadOSWorldFile(s, file); err != nil {
				return err
			}
			t := s.Tasks[n]
			t.Source, t.Domain = rel, e.domain
			if t.ID != id && t.Problem == nil {
				t.Problem = &TaskError{Source: rel, Err: fmt.Errorf("its id %q is not its file's name", t.ID)}
			}
			t.ID = key
		}
	}
	return nil
}

// treeName names a tree suite: the tree's folder, and the index when it is not
// test_all.json ("evaluation_examples", "evaluation_examples-test_small").
func treeName(examples, index string) string {
	name := filepath.Base(filepath.Dir(examples))
	if b := filepath.Base(index); b != defaultIndex {
		name += "-" + strings.TrimSuffix(b, filepath.Ext(b))
	}
	return name
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
