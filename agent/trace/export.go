package trace

import (
	"deskpilot/actions"

	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
)

// ExportFormat names an export format.
type ExportFormat string

// Export formats.
const (
	// JSONL writes one ExportRecord per step and line: training data for a model that
	// looks at a screenshot and writes a thought and code.
	JSONL ExportFormat = "jsonl"
)

// ExportOptions configure Export. The zero value writes JSONL with image paths.
type ExportOptions struct {
	// Format is the output format; "" means JSONL.
	Format ExportFormat
	// InlineImages puts each image in its record as a base64 data URL instead of a path.
	InlineImages bool
}

// ExportRecord is one step of a trace as training data (one line of the JSONL export).
// See docs/trace-format.md for the schema.
type ExportRecord struct {
	Trace       string           `json:"trace"`            // trace folder name
	Task        string           `json:"task"`             // the task
	Model       string           `json:"model"`            // the model that wrote the step
	CoordMode   string           `json:"coord_mode"`       // coordinate mode of the code's points
	Step        int              `json:"step"`             // 1-based step number
	Image       string           `json:"image,omitempty"`  // what the model saw: a path or a data URL
	ImageSource string           `json:"image_source"`     // "model" (downscaled view), "screen" (full-res) or "none"
	Thought     string           `json:"thought"`          // reply without its code
	Code        string           `json:"code"`             // the code that ran
	Actions     []actions.Record `json:"actions"`          // primitives the code executed
	Observation string           `json:"observation"`      // what the model was told afterwards
	Error       string           `json:"error,omitempty"`  // the step's code error
	Answer      string           `json:"answer,omitempty"` // final answer given in this step
	Outcome     string           `json:"outcome"`          // the run's outcome ("" when it did not end)
}

// Export writes t's steps (step 1 on) to w in the given format.
func Export(t *Trace, w io.Writer, o ExportOptions) error {
	if o.Format != "" && o.Format != JSONL {
		return fmt.Errorf("trace: export: unknown format %q (valid: %q)", o.Format, JSONL)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, s := range t.Steps {
		if s.Number < 1 {
			continue
		}
		r, err := exportRecord(t, s, o.InlineImages)
		if err != nil {
			return err
		}
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("trace: export step %d: %w", s.Number, err)
		}
	}
	return nil
}

// exportRecord builds the record of one step.
func exportRecord(t *Trace, s Step, inline bool) (ExportRecord, error) {
	r := ExportRecord{
		Trace: filepath.Base(t.Dir), Task: t.Start.Task, Model: t.Start.Model,
		CoordMode: t.Start.CoordMode, Step: s.Number, Thought: s.Thought, Code: s.Code,
		Actions: s.Actions, Answer: s.Answer, ImageSource: "none",
	}
	if r.Actions == nil {
		r.Actions = []actions.Record{}
	}
	if t.End != nil {
		r.Outcome = t.End.Outcome
	}
	if o := s.Observation; o != nil {
		r.Observation, r.Error = o.Text, o.Error
	}
	rel := s.ModelFrame
	if rel != "" {
		r.ImageSource = "model"
	} else if s.Frame != "" {
		rel, r.ImageSource = s.Frame, "screen"
	}
	local, ok := framePath(rel)
	if !ok {
		r.ImageSource = "none"
		return r, nil
	}
	full := filepath.Join(t.Dir, local)
	if !inline {
		r.Image = full
		return r, nil
	}
	// Read inside the trace folder only: a frame that is a symbolic link to a
	// file elsewhere must not carry that file into the export.
	data, err := ReadFrame(t.Dir, rel)
	if err != nil {
		return r, fmt.Errorf("trace: export step %d: %w", s.Number, err)
	}
	r.Image = dataURL(full, data)
	return r, nil
}

// dataURL encodes an image file as a data URL, typed by its extension.
func dataURL(name string, data []byte) string {
	mime := "image/png"
	switch filepath.Ext(name) {
	case ".jpg", ".jpeg":
		mime = "image/jpeg"
	case ".webp":
		mime = "image/webp"
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}
