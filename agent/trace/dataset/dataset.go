// Package dataset builds training datasets from many recorded runs
// (`deskpilot traces dataset`): trace folders and eval results folders in,
// one dataset folder out, in one of three layouts: Hugging Face parquet
// (one row per trajectory), OpenCUA's AgentNet (one JSON line per task,
// pyautogui code with 0–1 coordinates) or OpenAI fine-tuning chat JSONL.
//
// Every step carries labels deskpilot measured (Label): the effect check,
// a repeated step, a refusal, an error; --drop filters on them. Runs of the
// same task that repeat one another (same code, frames alike by a
// perceptual hash) are kept once. With Redact the trace redaction is
// applied to every text and image. A dataset card (README.md) says what is
// in the folder.
//
// Runs are read one at a time and written as they are read: memory holds
// one run's images, never the dataset's (the parquet writer cuts a row
// group every few runs).
package dataset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"deskpilot/actions"
	"deskpilot/agent/trace"
)

// Format names a dataset layout.
type Format string

// The dataset layouts.
const (
	HFParquet  Format = "hf-parquet"  // data/train-00000.parquet: one row per trajectory
	AgentNet   Format = "agentnet"    // agentnet.jsonl + images/: OpenCUA's AgentNet
	OpenAIChat Format = "openai-chat" // train.jsonl: one chat per step, for fine-tuning
)

// Formats lists the layouts.
var Formats = []Format{HFParquet, AgentNet, OpenAIChat}

// ImageMode says how openai-chat carries images.
type ImageMode string

// The image modes.
const (
	ImagesFiles  ImageMode = "files"  // images/<id>-<step>.png, named by a relative path
	ImagesInline ImageMode = "inline" // data:image/png;base64 URLs
)

// Options configure Build. The zero value writes hf-parquet, unredacted,
// with every step.
type Options struct {
	// Format is the layout; "" is HFParquet.
	Format Format
	// Redact applies the trace redaction to every image: the fields typed
	// secrets went into are flattened (trace.ImageRedactor). Secrets are
	// replaced in every text whether or not it is set.
	Redact bool
	// Secrets are values no text may hold: each, any run of
	// secret.FragmentLen characters of it and the same reversed become
	// [redacted].
	Secrets []string
	// Drop leaves out the steps that carry any of these labels.
	Drop []Label
	// KeepDuplicates keeps runs that repeat an earlier run of their task.
	KeepDuplicates bool
	// Images is how openai-chat carries images; "" is ImagesFiles.
	Images ImageMode
	// Traits are the builtins' traits by name (script.Traits()), for
	// traces written before actions recorded their own: Redact needs to
	// know which typed a secret and which pressed a button.
	Traits map[string]actions.Traits
	// Progress, when set, is called after each run with the runs and steps
	// done so far. It runs on Build's goroutine.
	Progress func(Progress)
}

// Progress is how far Build is.
type Progress struct {
	Runs, TotalRuns int // runs read
	Steps           int // steps written
}

// Report says what Build wrote.
type Report struct {
	Format       Format
	Trajectories int               // runs written
	Steps        int               // steps written
	Duplicates   int               // runs left out as repeats of a kept run
	Dropped      map[Label]int     // steps left out by Drop, by the first label that matched
	Labels       map[Label]int     // labels of the steps written
	Models       map[string]int    // runs written, by model
	Dialects     map[string]int    // runs written, by dialect
	Licences     map[string]int    // runs written, by task licence ("unknown" when none is known)
	Completed    int               // runs written that passed (or, outside an evaluation, answered)
	Scored       int               // runs written with an evaluator's score
	Redacted     int               // images with flattened regions
	Skipped      []string          // runs and steps left out, and why
	Files        []string          // the files written, relative to the folder
	Tasks        map[string]string // task key → instruction, for the card's count of tasks
}

// Build writes the dataset of srcs into dir, which must be new or empty
// (a dataset is built whole: run it again into a new folder to add runs).
// Files are private (0600, folders 0700): frames show a desktop. A run that
// cannot be read is skipped and listed in the report; a write that fails
// stops the build. ctx stops it between runs.
func Build(ctx context.Context, dir string, srcs []Source, o Options) (Report, error) {
	if o.Format == "" {
		o.Format = HFParquet
	}
	if o.Images == "" {
		o.Images = ImagesFiles
	}
	rep := Report{Format: o.Format, Dropped: map[Label]int{}, Labels: map[Label]int{}, Models: map[string]int{},
		Dialects: map[string]int{}, Licences: map[string]int{}, Tasks: map[string]string{}}
	if err := emptyDir(dir); err != nil {
		return rep, err
	}
	var (
		sk  sink
		err error
	)
	switch o.Format {
	case HFParquet:
		sk, err = newParquetSink(dir)
	case AgentNet:
		sk, err = newAgentNetSink(dir)
	case OpenAIChat:
		sk, err = newChatSink(dir, o.Images)
	default:
		return rep, fmt.Errorf("dataset: unknown format %q (formats: hf-parquet, agentnet, openai-chat)", o.Format)
	}
	if err != nil {
		return rep, err
	}
	red := newTextRedactor(o.Secrets)
	var dd deduper
	ids := map[string]int{}
	for i, src := range srcs {
		if err := ctx.Err(); err != nil {
			sk.close()
			return rep, err
		}
		if err := addRun(sk, src, &o, red, &dd, ids, &rep); err != nil {
			sk.close()
			return rep, err
		}
		if o.Progress != nil {
			o.Progress(Progress{Runs: i + 1, TotalRuns: len(srcs), Steps: rep.Steps})
		}
	}
	files, err := sk.close()
	if err != nil {
		return rep, err
	}
	rep.Files = append(files, CardFile)
	sort.Strings(rep.Files)
	if err := writeCard(dir, rep, o); err != nil {
		return rep, err
	}
	return rep, nil
}

// addRun reads one run and writes what is kept of it.
func addRun(sk sink, src Source, o *Options, red textRedactor, dd *deduper, ids map[string]int, rep *Report) error {
	t, err := trace.Read(src.Trace)
	if err != nil {
		rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: %v", red.name(src.Trace), err))
		return nil
	}
	if o.Traits != nil {
		t.FillTraits(o.Traits)
	}
	tr, err := build(src, t, o, red, &rep.Skipped)
	if err != nil {
		return err
	}
	if n := ids[tr.ID]; n > 0 { // two folders of one name (two evaluations)
		ids[tr.ID] = n + 1
		tr.ID = fmt.Sprintf("%s-%d", tr.ID, n+1)
	} else {
		ids[tr.ID] = 1
	}
	if !o.KeepDuplicates && dd.duplicate(tr) {
		rep.Duplicates++
		return nil
	}
	tr.Steps = slices.DeleteFunc(tr.Steps, func(s Step) bool {
		for _, l := range o.Drop {
			if s.Has(l) {
				rep.Dropped[l]++
				return true
			}
		}
		return false
	})
	if len(tr.Steps) == 0 {
		rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s: no step left", tr.ID))
		return nil
	}
	if err := sk.add(tr); err != nil {
		return err
	}
	rep.Trajectories++
	rep.Steps += len(tr.Steps)
	rep.Models[orUnknown(tr.Model)]++
	rep.Dialects[tr.Dialect]++
	rep.Licences[orUnknown(tr.Licence)]++
	rep.Tasks[tr.TaskID+"\x00"+tr.Task] = tr.Task
	if tr.Completed {
		rep.Completed++
	}
	if tr.Score != nil {
		rep.Scored++
	}
	for _, s := range tr.Steps {
		for _, l := range s.Labels {
			rep.Labels[l]++
		}
		if len(s.Redacted) > 0 {
			rep.Redacted++
		}
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// sink writes one layout.
type sink interface {
	add(t *Trajectory) error
	// close finishes the files and returns their names relative to the folder.
	close() ([]string, error)
}

// emptyDir makes dir, or checks that it is an empty folder.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("dataset: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("dataset: %s is not empty: a dataset is built whole, into a new folder", dir)
	}
	return nil
}

// create opens a new private file in dir.
func create(dir, rel string) (*os.File, error) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return f, nil
}

// writeFile writes a new private file in dir.
func writeFile(dir, rel string, data []byte) error {
	f, err := create(dir, rel)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return nil
}
