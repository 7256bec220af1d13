//go:build linux

package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"deskpilot/internal/smallfile"
)

// osTask is the part of an OSWorld task the harness acts on.
type osTask struct {
	dir    string // folder of the task file: relative paths in it resolve here
	config []step
	eval   evaluator
}

// command is a command as a task gives it, after the splitting OSWorld does.
type command struct {
	args       []string // with shell: the script, then its $0, $1, ...
	shell      bool
	expandHome bool // "~/" starting an argument means the task's home (lists only, as OSWorld)
}

// step is one config or postconfig step.
type step struct {
	kind           string // command, execute, launch, open, sleep, wait_window
	cmd            command
	stdout, stderr string // execute: files in the task's cache folder receiving the output
	until          *until
	path           string        // open
	sleep          time.Duration // sleep
	title          string        // wait_window
	timeout        time.Duration // wait_window

	files   []stepFile    // download, upload_file
	window  windowMatch   // activate_window, close_window
	urls    []string      // chrome_open_tabs, chrome_close_tabs
	history []historyItem // update_browse_history
	drive   *driveSetup   // googledrive
	login   string        // login: its settings file (email and password)
	// cannot says why a step OSWorld defines cannot be done here (OSWorld's
	// own controller does not implement tidy_desktop, act or replay): the
	// task is reported unsupported with it, never run.
	cannot string
}

// until repeats an execute step until one of its conditions holds.
type until struct {
	returnCode     *int
	stdout, stderr *string
}

// evaluator is OSWorld's evaluator: one metric, or several joined by conj.
type evaluator struct {
	funcs    []string
	conj     string // "and" or "or"
	result   []*getter
	expected []*getter // nil: the metric gets no expected value
	options  []map[string]any
	post     []step
}

// getter is a result or expected getter.
type getter struct {
	kind  string // vm_command_line, vm_command_error, vm_file, rule, answer
	cmd   command
	path  string
	rules any
}

// loadOSWorldFile reads one task file. Only what is not JSON at all fails;
// anything else wrong with the task becomes its Problem.
func loadOSWorldFile(s *Suite, path string) error {
	data, err := smallfile.Read(path, maxTaskFile)
	if err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("%s: not a JSON object: %w", path, err)
	}
	rel, err := filepath.Rel(s.Path, path)
	if err != nil || rel == "." {
		rel = filepath.Base(path)
	}
	t := &Task{Source: rel}
	if err := decodeOSWorld(t, top, filepath.Dir(path)); err != nil {
		if t.ID == "" {
			t.ID = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
		var u *UnsupportedError
		if errors.As(err, &u) {
			t.Problem = u
		} else {
			t.Problem = &TaskError{Source: rel, Err: err}
		}
	}
	s.Tasks = append(s.Tasks, t)
	return nil
}

// decodeOSWorld fills t from a task object. Known parts are decoded strictly:
// a field of a known step, getter or evaluator that this harness does not know is
// an *UnsupportedError rather than being ignored. Top-level fields other than
// id, instruction, config, evaluator and deskpilot (snapshot, source,
// related_apps, ...) do not change what is run or checked, and are ignored.
func decodeOSWorld(t *Task, top map[string]json.RawMessage, dir string) error {
	if err := str(top["id"], &t.ID); err != nil || strings.TrimSpace(t.ID) == "" {
		return errors.New(`"id" must be a non-empty string`)
	}
	if err := str(top["instruction"], &t.Instruction); err != nil || strings.TrimSpace(t.Instruction) == "" {
		return errors.New(`"instruction" must be a non-empty string`)
	}
	ot := &osTask{dir: dir}
	var err error
	if ot.config, err = decodeSteps(top["config"], "config"); err != nil {
		return err
	}
	if raw, ok := top["deskpilot"]; ok {
		if err := decodeOwnSettings(t, raw); err != nil {
			return err
		}
	}
	raw, ok := top["evaluator"]
	if !ok {
		return errors.New(`no "evaluator"`)
	}
	if ot.eval, err = decodeEvaluator(raw); err != nil {
		return err
	}
	t.os = ot
	return nil
}

// decodeOwnSettings reads deskpilot's own task settings:
// {"max_steps": 15, "timeout_seconds": 300, "screen": "1280x800"}.
func decodeOwnSettings(t *Task, raw json.RawMessage) error {
	m, err := object(raw, "deskpilot field", "max_steps", "timeout_seconds", "screen")
	if err != nil {
		return err
	}
	if v, ok := m["max_steps"]; ok {
		if err := json.Unmarshal(v, &t.MaxSteps); err != nil || t.MaxSteps < 1 {
			return errors.New("deskpilot.max_steps must be a positive integer")
		}
	}
	if v, ok := m["timeout_seconds"]; ok {
		var sec float64
		if err := json.Unmarshal(v, &sec); err != nil || sec <= 0 || sec > 24*3600 {
			return errors.New("deskpilot.timeout_seconds must be a number of seconds in (0, 86400]")
		}
		t.Timeout = time.Duration(sec * float64(time.Second))
	}
	if v, ok := m["screen"]; ok {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return errors.New(`deskpilot.screen must be a string like "1280x800"`)
		}
		if t.Screen, err = ParseScreen(s); err != nil {
			return fmt.Errorf("deskpilot.screen: %w", err)
		}
	}
	return nil
}

// ParseScreen reads a screen size "WxH" (e.g. 1920x1080); each side 64..8192.
func ParseScreen(s string) (image.Point, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w < 64 || h < 64 || w > 8192 || h > 8192 {
		return image.Point{}, fmt.Errorf("screen %q: want WxH with sides from 64 to 8192, e.g. 1920x1080", s)
	}
	return image.Pt(w, h), nil
}

// decodeSteps reads a list of {"type", "parameters"} steps; absent means none.
func decodeSteps(raw json.RawMessage, what string) ([]step, error) {
	if isNull(raw) {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%s must be a list of steps", what)
	}
	steps := make([]step, 0, len(list))
	for i, r := range list {
		s, err := decodeStep(r)
		if err != nil {
			var u *UnsupportedError
			if errors.As(err, &u) {
				return nil, err
			}
			return nil, fmt.Errorf("%s[%d]: %w", what, i, err)
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// decodeStep reads one step; its parameters are decoded by type.
func decodeStep(raw json.RawMessage) (step, error) {
	m, err := object(raw, "config step field", "type", "parameters")
	if err != nil {
		return step{}, err
	}
	var s step
	if err := str(m["type"], &s.kind); err != nil {
		return s, errors.New(`"type" must be a string`)
	}
	var p map[string]json.RawMessage
	switch s.kind {
	case "command", "execute":
		return s, decodeExecute(&s, m["parameters"])
	case "launch":
		if p, err = object(m["parameters"], "launch parameter", "command", "shell"); err != nil {
			return s, err
		}
		s.cmd, err = decodeCommand(p, true)
		return s, err
	case "open":
		if p, err = object(m["parameters"], "open parameter", "path"); err != nil {
			return s, err
		}
		if err := str(p["path"], &s.path); err != nil || s.path == "" {
			return s, errors.New("open: path must be a non-empty string")
		}
	case "sleep":
		if p, err = object(m["parameters"], "sleep parameter", "seconds"); err != nil {
			return s, err
		}
		var sec float64
		if err := json.Unmarshal(p["seconds"], &sec); err != nil || sec < 0 || sec > 600 {
			return s, errors.New("sleep: seconds must be a number from 0 to 600")
		}
		s.sleep = time.Duration(sec * float64(time.Second))
	case "wait_window":
		return s, decodeWaitWindow(&s, m["parameters"])
	default:
		return s, decodeControllerStep(&s, m["parameters"])
	}
	return s, nil
}

// decodeExecute reads the parameters of an execute or command step.
func decodeExecute(s *step, raw json.RawMessage) error {
	p, err := object(raw, s.kind+" parameter", "command", "shell", "stdout", "stderr", "until")
	if err != nil {
		return err
	}
	if s.cmd, err = decodeCommand(p, false); err != nil {
		return err
	}
	for name, dst := range map[string]*string{"stdout": &s.stdout, "stderr": &s.stderr} {
		if err := optStr(p[name], dst); err != nil || (*dst != "" && !filepath.IsLocal(*dst)) {
			return fmt.Errorf("%s must be a file name", name)
		}
	}
	if raw, ok := p["until"]; ok && !isNull(raw) {
		if s.until, err = decodeUntil(raw); err != nil {
			return err
		}
	}
	return nil
}

// decodeWaitWindow reads the parameters of deskpilot's wait_window step.
func decodeWaitWindow(s *step, raw json.RawMessage) error {
	p, err := object(raw, "wait_window parameter", "title", "timeout")
	if err != nil {
		return err
	}
	if err := str(p["title"], &s.title); err != nil || s.title == "" {
		return errors.New("wait_window: title must be a non-empty string")
	}
	s.timeout = 30 * time.Second
	if raw, ok := p["timeout"]; ok {
		var sec float64
		if err := json.Unmarshal(raw, &sec); err != nil || sec <= 0 || sec > 600 {
			return errors.New("wait_window: timeout must be a number of seconds in (0, 600]")
		}
		s.timeout = time.Duration(sec * float64(time.Second))
	}
	return nil
}

// decodeCommand reads "command" (a string or a list of strings) and "shell", and
// splits a string the way OSWorld's server does: with shlex when there is no
// shell; a launch step's client first splits a string of several words on blanks.
func decodeCommand(p map[string]json.RawMessage, launch bool) (command, error) {
	var c command
	if raw, ok := p["shell"]; ok {
		c.shell = pyTruthy(raw) // OSWorld passes it to subprocess as is: "true" is true
	}
	raw := p["command"]
	var one string
	if err := json.Unmarshal(raw, &one); err == nil && !isNull(raw) {
		switch {
		case c.shell:
			c.args = []string{one}
		case launch && len(strings.Fields(one)) > 1:
			c.args, c.expandHome = strings.Fields(one), true
		default:
			args, err := shlexSplit(one)
			if err != nil {
				return c, fmt.Errorf("command %q: %w", one, err)
			}
			c.args, c.expandHome = args, true
		}
	} else if err := json.Unmarshal(raw, &c.args); err != nil || isNull(raw) {
		return c, errors.New("command must be a string or a list of strings")
	} else {
		c.expandHome = true
	}
	if len(c.args) == 0 || c.args[0] == "" {
		return c, errors.New("empty command")
	}
	return c, nil
}

// decodeUntil reads an execute step's "until": {"returncode", "stdout", "stderr"}.
func decodeUntil(raw json.RawMessage) (*until, error) {
	m, err := object(raw, "until field", "returncode", "stdout", "stderr")
	if err != nil {
		return nil, err
	}
	u := &until{}
	if v, ok := m["returncode"]; ok {
		u.returnCode = new(int)
		if err := json.Unmarshal(v, u.returnCode); err != nil {
			return nil, errors.New("until.returncode must be an integer")
		}
	}
	for name, dst := range map[string]**string{"stdout": &u.stdout, "stderr": &u.stderr} {
		if v, ok := m[name]; ok {
			*dst = new(string)
			if err := json.Unmarshal(v, *dst); err != nil {
				return nil, fmt.Errorf("until.%s must be a string", name)
			}
		}
	}
	if u.returnCode == nil && u.stdout == nil && u.stderr == nil {
		return nil, errors.New("until needs returncode, stdout or stderr")
	}
	return u, nil
}

// object decodes raw as a JSON object whose keys are all in allowed; an unknown
// key is an *UnsupportedError whose What is what ("sleep parameter",
// "evaluator field", ...).
func object(raw json.RawMessage, what string, allowed ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		owner := strings.TrimSuffix(strings.TrimSuffix(what, " field"), " parameter")
		return nil, fmt.Errorf("%s: want a JSON object", owner)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return nil, &UnsupportedError{What: what, Name: k}
		}
	}
	return m, nil
}

// pyTruthy is Python's bool() of a JSON value: false, null, 0, "", [] and {}
// are false, anything else true (so "shell": "true", and even "false", are true,
// as OSWorld's server takes them).
func pyTruthy(raw json.RawMessage) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// str decodes a required JSON string.
func str(raw json.RawMessage, dst *string) error {
	if isNull(raw) {
		return errors.New("missing")
	}
	return json.Unmarshal(raw, dst)
}

// optStr decodes an optional JSON string.
func optStr(raw json.RawMessage, dst *string) error {
	if isNull(raw) {
		return nil
	}
	return json.Unmarshal(raw, dst)
}
