package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"deskpilot/actions"
	"deskpilot/agent/secret"
)

// The files of a dataset folder (Hugging Face ImageFolder layout).
const (
	DatasetMetadata = "metadata.jsonl" // one DatasetRow per line
	DatasetCard     = "README.md"      // the dataset card: what the columns mean
	DatasetImages   = "images"         // the images the rows name
)

// DatasetOptions configure ExportDataset.
type DatasetOptions struct {
	// Redact flattens, in every image, the places where the trace knows a
	// secret is shown: the field a type_secret typed into (the region around
	// the last point the run clicked before it, in every later image).
	Redact bool
	// Secrets are values no column and no file name may hold: each
	// occurrence becomes Redacted (whether or not Redact is set). Runs
	// already keep the secrets they know out of their traces; these catch
	// the ones they did not know.
	Secrets []string
}

// DatasetReport says what ExportDataset did.
type DatasetReport struct {
	Added    int      // rows appended
	Replaced int      // rows of steps already in the dataset, written again
	Rows     int      // rows in the dataset now
	Skipped  []string // steps left out, and why (no image recorded, an unreadable frame)
	Card     string   // "" when the card was written; otherwise why it was left alone
}

// DatasetRow is one line of a dataset's metadata.jsonl: one step of a run
// and the image the model looked at when it wrote the step. Every column is
// always present (null or empty when unknown), so that the columns have one
// type across rows. docs/trace-format.md has the schema.
type DatasetRow struct {
	FileName    string          `json:"file_name"`    // the image, relative to the dataset folder
	Trace       string          `json:"trace"`        // trace folder name; with Step, the row's key
	Started     time.Time       `json:"started"`      // when the run started
	Task        string          `json:"task"`         // the task
	Model       string          `json:"model"`        // the model that wrote the step
	CoordMode   string          `json:"coord_mode"`   // how the code's points are written: "pixels" | "norm1000"
	Screen      Rect            `json:"screen"`       // the display, root pixels
	ImageSource string          `json:"image_source"` // "model" (the view the model saw) | "screen" (full resolution)
	ImageWidth  int             `json:"image_width"`  // pixels
	ImageHeight int             `json:"image_height"` // pixels
	Step        int             `json:"step"`         // 1-based
	Steps       int             `json:"steps"`        // steps in the run
	Thought     string          `json:"thought"`      // the reply without its code
	Code        string          `json:"code"`         // the code that ran
	Actions     []DatasetAction `json:"actions"`      // what the code did, in order
	Observation string          `json:"observation"`  // what the model was told afterwards
	Error       string          `json:"error"`        // the code's error
	Answer      string          `json:"answer"`       // the final answer, when given in this step
	Outcome     string          `json:"outcome"`      // how the run ended ("" when it did not)
	Redacted    []Rect          `json:"redacted"`     // regions flattened in the image, image pixels
}

// DatasetAction is one primitive of a step, with its point in three spaces.
type DatasetAction struct {
	Name   string      `json:"name"`   // builtin, e.g. "click"
	Args   string      `json:"args"`   // arguments as written; secrets never appear
	Model  *[2]float64 `json:"model"`  // the point as the model wrote it (coord_mode)
	Screen *[2]int     `json:"screen"` // the same point on the screen, root pixels
	Image  *[2]int     `json:"image"`  // the same point in the row's image, pixels
	To     *[2]int     `json:"to"`     // a drag's end, root pixels
	Result string      `json:"result"` // short result
	Error  string      `json:"error"`  // why it failed
}

// ExportDataset adds the steps (1 on) of each trace to the dataset in dir,
// creating it when needed: the image each step's model saw is copied to
// dir/images and a row appended to dir/metadata.jsonl. A step already in
// the dataset (same trace folder name and step) is written again in place,
// so exporting a trace twice duplicates nothing and the latest options win
// (export again with Redact to redact rows exported without). Steps without
// a readable image are skipped and listed in the report. The dataset card
// dir/README.md is (re)written unless it is someone else's.
//
// Files are private (0600, folders 0700): frames show the desktop. Every
// file is written to a temporary name and renamed, so an interrupted export
// leaves the previous dataset whole.
func ExportDataset(dir string, traces []*Trace, o DatasetOptions) (DatasetReport, error) {
	var rep DatasetReport
	if err := os.MkdirAll(filepath.Join(dir, DatasetImages), 0o700); err != nil {
		return rep, fmt.Errorf("trace: dataset: %w", err)
	}
	rows, err := readMetadata(filepath.Join(dir, DatasetMetadata))
	if err != nil {
		return rep, err
	}
	index := map[string]int{}
	for i, r := range rows {
		index[r.key] = i
	}
	sec := newSecretText(o.Secrets)
	for _, t := range traces {
		for _, out := range datasetRows(t, o, sec, &rep) {
			if err := writeFileAtomic(filepath.Join(dir, filepath.FromSlash(out.row.FileName)), out.image); err != nil {
				return rep, fmt.Errorf("trace: dataset: %w", err)
			}
			line, err := json.Marshal(out.row)
			if err != nil {
				return rep, fmt.Errorf("trace: dataset: %w", err)
			}
			k := rowKey(out.row.Trace, out.row.Step)
			if i, ok := index[k]; ok {
				rows[i].line = line
				rep.Replaced++
				continue
			}
			index[k] = len(rows)
			rows = append(rows, metaLine{key: k, line: line})
			rep.Added++
		}
	}
	var b bytes.Buffer
	for _, r := range rows {
		b.Write(r.line)
		b.WriteByte('\n')
	}
	if err := writeFileAtomic(filepath.Join(dir, DatasetMetadata), b.Bytes()); err != nil {
		return rep, fmt.Errorf("trace: dataset: %w", err)
	}
	rep.Rows = len(rows)
	rep.Card = writeCard(filepath.Join(dir, DatasetCard), len(rows))
	return rep, nil
}

// metaLine is one line of an existing metadata.jsonl, kept byte for byte.
type metaLine struct {
	key  string
	line []byte
}

func rowKey(trace string, step int) string { return fmt.Sprintf("%s\x00%d", trace, step) }

// maxMetadataLine bounds one line of an existing metadata.jsonl.
const maxMetadataLine = 64 << 20

// readMetadata reads the rows already in a dataset; a missing file is an
// empty dataset. A line that is not a JSON object with trace and step stops
// the export: rewriting the file would lose it.
func readMetadata(path string) ([]metaLine, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trace: dataset: %w", err)
	}
	var out []metaLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxMetadataLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var k struct {
			Trace *string `json:"trace"`
			Step  *int    `json:"step"`
		}
		if err := json.Unmarshal(line, &k); err != nil || k.Trace == nil || k.Step == nil {
			return nil, fmt.Errorf("trace: dataset: %s line %d is not a row of a deskpilot dataset (a JSON object with trace and step); fix or remove it", path, n)
		}
		out = append(out, metaLine{key: rowKey(*k.Trace, *k.Step), line: slices.Clone(line)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace: dataset: %s: %w", path, err)
	}
	return out, nil
}

// exported is one row and the bytes of its image.
type exported struct {
	row   DatasetRow
	image []byte
}

// runInfo is what every row of one trace shares.
type runInfo struct {
	t       *Trace
	name    string // the trace folder name as written in rows
	screen  Rect
	outcome string
	fields  map[int][]image.Rectangle // typed-secret fields by step (secretFields)
}

// datasetRows builds the rows of t, noting skipped steps in rep.
func datasetRows(t *Trace, o DatasetOptions, sec secretText, rep *DatasetReport) []exported {
	run := runInfo{t: t, name: sec.name(filepath.Base(t.Dir)), fields: secretFields(t)}
	if t.Start.Screen != nil {
		run.screen = *t.Start.Screen
	}
	if t.End != nil {
		run.outcome = t.End.Outcome
	}
	var out []exported
	for _, s := range t.Steps {
		if s.Number < 1 {
			continue
		}
		e, err := stepRow(run, s, o, sec)
		if err != nil {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("%s step %d: %v", run.name, s.Number, err))
			continue
		}
		out = append(out, e)
	}
	return out
}

// stepRow builds the row of one step and its image's bytes.
func stepRow(run runInfo, s Step, o DatasetOptions, sec secretText) (exported, error) {
	rel, source := s.ModelFrame, "model"
	if rel == "" {
		rel, source = s.Frame, "screen"
	}
	if rel == "" {
		return exported{}, errors.New("no image was recorded")
	}
	img, format, data, err := DecodeFrame(run.t.Dir, rel)
	if err != nil {
		return exported{}, err
	}
	size := img.Bounds().Size()
	var redacted []image.Rectangle
	if o.Redact {
		redacted = imageRects(run.fields[s.Number], run.screen, size)
	}
	if len(redacted) > 0 {
		if data, err = flatten(img, redacted); err != nil {
			return exported{}, fmt.Errorf("redact: %w", err)
		}
		format = "png"
	}
	ext := "png"
	if format == "jpeg" {
		ext = "jpg"
	}
	t := run.t
	row := DatasetRow{
		FileName: fmt.Sprintf("%s/%s-%04d.%s", DatasetImages, run.name, s.Number, ext),
		Trace:    run.name, Started: t.Start.T, Task: sec.str(t.Start.Task), Model: sec.str(t.Start.Model),
		CoordMode: t.Start.CoordMode, Screen: run.screen, ImageSource: source,
		ImageWidth: size.X, ImageHeight: size.Y, Step: s.Number, Steps: t.StepCount(),
		Thought: sec.str(s.Thought), Code: sec.str(s.Code), Answer: sec.str(s.Answer), Outcome: run.outcome,
		Actions: datasetActions(s.Actions, run.screen, size, sec), Redacted: []Rect{},
	}
	if ob := s.Observation; ob != nil {
		row.Observation, row.Error = sec.str(ob.Text), sec.str(ob.Error)
	}
	for _, r := range redacted {
		row.Redacted = append(row.Redacted, *RectOf(r))
	}
	return exported{row: row, image: data}, nil
}

// datasetActions converts a step's actions, adding each point's place in
// an image of size img showing the screen.
func datasetActions(acts []actions.Record, screen Rect, img image.Point, sec secretText) []DatasetAction {
	out := make([]DatasetAction, 0, len(acts))
	for _, a := range acts {
		d := DatasetAction{Name: a.Name, Args: sec.str(a.Args), Model: a.Model, Screen: a.Screen, To: a.To,
			Result: sec.str(a.Result), Error: sec.str(a.Error)}
		if a.Screen != nil && screen.W > 0 && screen.H > 0 {
			d.Image = &[2]int{
				(a.Screen[0] - screen.X) * img.X / screen.W,
				(a.Screen[1] - screen.Y) * img.Y / screen.H,
			}
		}
		out = append(out, d)
	}
	return out
}

// secretText replaces configured secrets in text, as the agent's redactor
// does (secret.Redactor): any run of secret.FragmentLen characters of one,
// and the same reversed.
type secretText struct {
	r     *secret.Redactor
	lower *secret.Redactor // the values lower-cased too, for folder names (a slug of the task)
}

func newSecretText(secrets []string) secretText {
	s := secretText{r: secret.New(nil, secrets...), lower: secret.New(nil, secrets...)}
	for _, v := range secrets {
		s.lower.AddKey(strings.ToLower(v))
	}
	return s
}

func (s secretText) str(v string) string { return s.r.Text(v) }

// name makes a trace folder name safe as a file name and free of secrets
// (the folder's slug comes from the task, lowercased).
func (s secretText) name(v string) string {
	return SafeName(strings.ReplaceAll(s.lower.Text(v), Redacted, "redacted"))
}

// SafeName makes v safe as a file name: letters, digits, '-', '_' and '.'
// stay, anything else becomes '-', and a name of only dots is "trace".
func SafeName(v string) string {
	v = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, v)
	if strings.Trim(v, ".") == "" {
		return "trace"
	}
	return v
}

// writeFileAtomic writes data to a new file next to path and renames it
// over path: a symbolic link at path is replaced, never followed.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// flatten paints each rectangle of img with the mean colour of its pixels
// and encodes the result as PNG. A mean, unlike a blur or a mosaic, keeps
// nothing of the text that was there to be recovered.
func flatten(img image.Image, rects []image.Rectangle) ([]byte, error) {
	return encodePNG(flattenRGBA(img, rects))
}
