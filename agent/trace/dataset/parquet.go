package dataset

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
)

// ParquetFile is the hf-parquet layout's file: Hugging Face reads
// data/train-*.parquet as the train split.
const ParquetFile = "data/train-00000.parquet"

// ParquetRow is one row of the hf-parquet layout: one trajectory, with the
// per-step columns as parallel lists (element i of each is step i).
type ParquetRow struct {
	ID           string     `parquet:"id"`
	TaskID       string     `parquet:"task_id"`
	Task         string     `parquet:"task"`
	Domain       string     `parquet:"domain"`
	Suite        string     `parquet:"suite"`
	Licence      string     `parquet:"license"`
	Score        *float64   `parquet:"score,optional"`
	Completed    bool       `parquet:"task_completed"`
	Model        string     `parquet:"model"`
	Dialect      string     `parquet:"dialect"`
	CoordMode    string     `parquet:"coord_mode"`
	Outcome      string     `parquet:"outcome"`
	Answer       string     `parquet:"answer"`
	ScreenWidth  int32      `parquet:"screen_width"`
	ScreenHeight int32      `parquet:"screen_height"`
	Steps        int32      `parquet:"steps"`
	StepNumbers  []int32    `parquet:"step_numbers,list"`
	Images       []HFImage  `parquet:"images,list"`
	Thoughts     []string   `parquet:"thoughts,list"`
	Code         []string   `parquet:"code,list"`
	PyAutoGUI    []string   `parquet:"pyautogui,list"`
	Actions      []string   `parquet:"actions,list"`
	Observations []string   `parquet:"observations,list"`
	Effects      []string   `parquet:"effects,list"`
	Errors       []string   `parquet:"errors,list"`
	Labels       [][]string `parquet:"labels,list"`
}

// HFImage is an image as Hugging Face's Image feature stores it.
type HFImage struct {
	Bytes []byte `parquet:"bytes"`
	Path  string `parquet:"path"`
}

// rowGroupBytes is about how much image data a row group holds before it
// is written out: what the writer buffers at most, whatever the dataset's size.
const rowGroupBytes = 32 << 20

type parquetSink struct {
	f        *os.File
	w        *parquet.GenericWriter[ParquetRow]
	buffered int
}

func newParquetSink(dir string) (*parquetSink, error) {
	f, err := create(dir, ParquetFile)
	if err != nil {
		return nil, err
	}
	w := parquet.NewGenericWriter[ParquetRow](f,
		parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("deskpilot", "", ""),
		parquet.PageBufferSize(1<<20),
	)
	return &parquetSink{f: f, w: w}, nil
}

func (p *parquetSink) add(t *Trajectory) error {
	row := ParquetRow{
		ID: t.ID, TaskID: t.TaskID, Task: t.Task, Domain: t.Domain, Suite: t.Suite, Licence: t.Licence,
		Score: t.Score, Completed: t.Completed, Model: t.Model, Dialect: t.Dialect, CoordMode: t.CoordMode,
		Outcome: t.Outcome, Answer: t.Answer, ScreenWidth: int32(t.Screen.W), ScreenHeight: int32(t.Screen.H),
		Steps: int32(len(t.Steps)),
	}
	size := 0
	for _, s := range t.Steps {
		acts, err := json.Marshal(nonNil(s.Actions))
		if err != nil {
			return fmt.Errorf("dataset: %w", err)
		}
		code, _ := PyAutoGUI(s.Actions, t.Outcome)
		labels := make([]string, len(s.Labels))
		for i, l := range s.Labels {
			labels[i] = string(l)
		}
		row.StepNumbers = append(row.StepNumbers, int32(s.Number))
		row.Images = append(row.Images, HFImage{Bytes: s.PNG, Path: fmt.Sprintf("%s-%04d.png", t.ID, s.Number)})
		row.Thoughts = append(row.Thoughts, s.Thought)
		row.Code = append(row.Code, s.Code)
		row.PyAutoGUI = append(row.PyAutoGUI, code)
		row.Actions = append(row.Actions, string(acts))
		row.Observations = append(row.Observations, s.Observation)
		row.Effects = append(row.Effects, s.Effect())
		row.Errors = append(row.Errors, s.Error)
		row.Labels = append(row.Labels, labels)
		size += len(s.PNG)
	}
	if _, err := p.w.Write([]ParquetRow{row}); err != nil {
		return fmt.Errorf("dataset: parquet: %w", err)
	}
	p.buffered += size
	if p.buffered >= rowGroupBytes {
		p.buffered = 0
		if err := p.w.Flush(); err != nil {
			return fmt.Errorf("dataset: parquet: %w", err)
		}
	}
	return nil
}

func (p *parquetSink) close() ([]string, error) {
	err := p.w.Close()
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: parquet: %w", err)
	}
	return []string{ParquetFile}, nil
}

func nonNil(a []Action) []Action {
	if a == nil {
		return []Action{}
	}
	return a
}
