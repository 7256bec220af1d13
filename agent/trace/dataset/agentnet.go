package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// The agentnet layout's files: one task per line of AgentNetFile, the
// images in ImagesDir, named by each step's image field.
const (
	AgentNetFile = "agentnet.jsonl"
	ImagesDir    = "images"
)

// AgentNetTask is one line of agentnet.jsonl: AgentNet's task fields
// (task_id, instruction, task_completed, traj), then deskpilot's.
type AgentNetTask struct {
	TaskID        string         `json:"task_id"`
	Instruction   string         `json:"instruction"`
	TaskCompleted bool           `json:"task_completed"`
	Traj          []AgentNetStep `json:"traj"`
	Domain        string         `json:"domain"`
	Score         *float64       `json:"score"`
	Model         string         `json:"model"`
	Dialect       string         `json:"dialect"`
	Licence       string         `json:"license"`
	Trace         string         `json:"trace"` // the run's id in the dataset
}

// AgentNetStep is one entry of traj: AgentNet's index, image and value.
type AgentNetStep struct {
	Index int           `json:"index"`
	Image string        `json:"image"` // the file in images/
	Value AgentNetValue `json:"value"`
}

// AgentNetValue is a step's content. AgentNet's fields come first; its
// last_step_correct and last_step_redundant say, as measured, whether the
// step before had no error and changed the screen, and whether it
// changed nothing or repeated the one before it. Reflection is left empty:
// deskpilot does not write one.
type AgentNetValue struct {
	Code              string   `json:"code"` // pyautogui, 0–1 coordinates
	Observation       string   `json:"observation"`
	Thought           string   `json:"thought"`
	Action            string   `json:"action"` // the code in words
	LastStepCorrect   bool     `json:"last_step_correct"`
	LastStepRedundant bool     `json:"last_step_redundant"`
	Reflection        string   `json:"reflection"`
	Labels            []string `json:"labels"`         // deskpilot's measured labels
	DeskpilotCode     string   `json:"deskpilot_code"` // the code as the model wrote it
	Step              int      `json:"step"`           // the step in the run
}

type agentNetSink struct {
	dir string
	f   *os.File
	w   *bufio.Writer
	n   int
}

func newAgentNetSink(dir string) (*agentNetSink, error) {
	f, err := create(dir, AgentNetFile)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dirOf(dir, ImagesDir), 0o700); err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return &agentNetSink{dir: dir, f: f, w: bufio.NewWriter(f)}, nil
}

func (a *agentNetSink) add(t *Trajectory) error {
	task := AgentNetTask{TaskID: t.ID, Instruction: t.Task, TaskCompleted: t.Completed, Domain: t.Domain,
		Score: t.Score, Model: t.Model, Dialect: t.Dialect, Licence: t.Licence, Trace: t.ID, Traj: []AgentNetStep{}}
	if t.TaskID != "" {
		task.TaskID = t.TaskID + "/" + t.ID // AgentNet's task_id names one trajectory
	}
	for i, s := range t.Steps {
		name := fmt.Sprintf("%s-%04d.png", t.ID, s.Number)
		if err := writeFile(a.dir, ImagesDir+"/"+name, s.PNG); err != nil {
			return err
		}
		a.n++
		code, desc := PyAutoGUI(s.Actions, t.Outcome)
		v := AgentNetValue{Code: code, Observation: s.Observation, Thought: s.Thought, Action: desc,
			LastStepCorrect: true, Labels: labelStrings(s.Labels), DeskpilotCode: s.Code, Step: s.Number}
		if i > 0 {
			p := t.Steps[i-1]
			v.LastStepCorrect = !p.Has(Error) && !p.Has(Refused) && p.Has(Changed)
			v.LastStepRedundant = p.Has(NoChange) || p.Has(Repeated)
		}
		task.Traj = append(task.Traj, AgentNetStep{Index: i, Image: name, Value: v})
	}
	line, err := json.Marshal(task)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	a.w.Write(line)
	if err := a.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return nil
}

func (a *agentNetSink) close() ([]string, error) {
	err := a.w.Flush()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	return []string{AgentNetFile, ImagesDir + "/"}, nil
}

func labelStrings(ls []Label) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = string(l)
	}
	return out
}
