//go:build linux

package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Merge combines the results folders dirs (the shards of one evaluation, or
// several parts of one) into the new folder out: results.jsonl, summary.json,
// index.html and run.json, with each trace path leading into its original folder.
// All folders must hold the same suite and model, shards of the same count at
// most once each, and no task twice. For shards, the summary's Tasks is the whole
// suite's, so a shard that is missing or unfinished shows as unfinished tasks.
// Results are in the suite's order.
func Merge(out string, dirs ...string) (Summary, error) {
	if len(dirs) == 0 {
		return Summary{}, errors.New("eval merge: no results folders given")
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return Summary{}, fmt.Errorf("eval merge: %w", err)
	}
	parts, err := readParts(absOut, dirs)
	if err != nil {
		return Summary{}, err
	}
	first := parts[0].info
	merged := runInfo{Version: 1, Suite: first.Suite, SuitePath: first.SuitePath, Model: first.Model,
		SuiteTasks: first.SuiteTasks, MergedFrom: dirs, Attempts: first.Attempts, Select: first.Select}
	all, err := mergeResults(absOut, parts)
	if err != nil {
		return Summary{}, err
	}
	if first.Shard != "" {
		merged.Tasks = first.SuiteTasks
	} else {
		for _, p := range parts {
			merged.Tasks += p.info.Tasks
		}
	}
	o, err := openOut(absOut, false, merged)
	if err != nil {
		return Summary{}, err
	}
	for _, r := range all {
		if n := len(o.info.IDs); n == 0 || o.info.IDs[n-1] != r.ID {
			o.info.IDs = append(o.info.IDs, r.ID)
		}
		if _, _, err := o.add(r); err != nil {
			_ = o.finish(o.summary())
			return Summary{}, err
		}
	}
	for _, p := range parts {
		for _, sel := range p.sel {
			sel.Trace = rebase(absOut, p.dir, sel.Trace)
			if err := o.addSelection(sel); err != nil {
				_ = o.finish(o.summary())
				return Summary{}, err
			}
		}
	}
	s := o.summary()
	s.Tasks = merged.Tasks
	return s, errors.Join(writeJSON(filepath.Join(absOut, runFile), o.info), o.finish(s))
}

// mergeResults collects the parts' results in the suite's order (then by
// attempt), with trace paths made relative to out; a task in two parts is an
// error.
func mergeResults(out string, parts []part) ([]Result, error) {
	type keyed struct {
		key, attempt int
		r            Result
	}
	var all []keyed
	seen := map[string]int{} // the part a task is in
	for i, p := range parts {
		for _, r := range p.results {
			if prev, ok := seen[r.ID]; ok && prev != i {
				return nil, fmt.Errorf("eval merge: task %q is in both %s and %s", r.ID, parts[prev].dir, p.dir)
			}
			seen[r.ID] = i
		}
	}
	base := 0 // unsharded parts follow one another
	for _, p := range parts {
		sh, _ := ParseShard(p.info.Shard)
		pos := make(map[string]int, len(p.info.IDs))
		for i, id := range p.info.IDs {
			pos[id] = i
		}
		for _, r := range p.results {
			key := base + pos[r.ID]
			if sh.Count > 0 {
				key = pos[r.ID]*sh.Count + sh.Index // its place in the whole suite
			}
			r.Trace = rebase(out, p.dir, r.Trace)
			all = append(all, keyed{key, keyOf(r).Attempt, r})
		}
		base += len(p.info.IDs)
	}
	slices.SortStableFunc(all, func(a, b keyed) int {
		if a.key != b.key {
			return a.key - b.key
		}
		return a.attempt - b.attempt
	})
	results := make([]Result, len(all))
	for i, k := range all {
		results[i] = k.r
	}
	return results, nil
}

// rebase makes a path relative to the folder dir relative to out instead;
// absolute and empty paths stay as they are.
func rebase(out, dir, rel string) string {
	if rel == "" || filepath.IsAbs(rel) {
		return rel
	}
	if r, err := filepath.Rel(out, filepath.Join(dir, rel)); err == nil {
		return filepath.ToSlash(r)
	}
	return rel
}

// part is one results folder read for Merge.
type part struct {
	dir     string
	info    runInfo
	results []Result
	sel     []Selection
}

// readParts reads and cross-checks the folders to merge.
func readParts(absOut string, dirs []string) ([]part, error) {
	var parts []part
	shards := map[int]string{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("eval merge: %w", err)
		}
		if abs == absOut {
			return nil, fmt.Errorf("eval merge: %s is both an input and the output", d)
		}
		p := part{dir: abs}
		data, err := os.ReadFile(filepath.Join(abs, runFile))
		if err != nil {
			return nil, fmt.Errorf("eval merge: %s is not a results folder: %w", d, err)
		}
		if err := json.Unmarshal(data, &p.info); err != nil {
			return nil, fmt.Errorf("eval merge: %s: %w", filepath.Join(d, runFile), err)
		}
		if p.results, err = readResults(filepath.Join(abs, resultsFile), false); err != nil {
			return nil, err
		}
		if p.sel, err = readSelections(filepath.Join(abs, selectFile), false); err != nil {
			return nil, err
		}
		if len(parts) > 0 {
			if err := checkPart(parts[0], p, shards); err != nil {
				return nil, fmt.Errorf("eval merge: %s and %s: %w", parts[0].dir, d, err)
			}
		} else if p.info.Shard != "" {
			sh, err := ParseShard(p.info.Shard)
			if err != nil {
				return nil, fmt.Errorf("eval merge: %s: %w", d, err)
			}
			shards[sh.Index] = d
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// checkPart checks that p belongs with first: same suite and model, and a shard
// of the same count not seen before (or both unsharded).
func checkPart(first, p part, shards map[int]string) error {
	a, b := first.info, p.info
	switch {
	case a.Suite != b.Suite || a.SuiteTasks != b.SuiteTasks:
		return fmt.Errorf("different suites (%q with %d tasks, %q with %d)", a.Suite, a.SuiteTasks, b.Suite, b.SuiteTasks)
	case a.Model != b.Model:
		return fmt.Errorf("different models (%q, %q)", a.Model, b.Model)
	case a.k() != b.k() || a.mode() != b.mode():
		return fmt.Errorf("different attempts (%d selected by %s, %d by %s)", a.k(), a.mode(), b.k(), b.mode())
	case (a.Shard == "") != (b.Shard == ""):
		return errors.New("one is a shard, the other is not")
	case a.Shard == "":
		return nil
	}
	sa, _ := ParseShard(a.Shard)
	sb, err := ParseShard(b.Shard)
	if err != nil {
		return err
	}
	if sa.Count != sb.Count {
		return fmt.Errorf("shards of %d and of %d", sa.Count, sb.Count)
	}
	if prev, ok := shards[sb.Index]; ok {
		return fmt.Errorf("shard %s twice (also in %s)", sb, prev)
	}
	shards[sb.Index] = p.dir
	return nil
}
