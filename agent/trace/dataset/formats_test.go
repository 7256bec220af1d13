package dataset

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// loadAgentNet reads an AgentNet folder the way OpenCUA's tools do
// (data/cot-generate/README.md: a JSONL of tasks, images looked up in the
// image folder by each step's image field), checking every documented
// field and its type: task_id, instruction (strings), task_completed
// (bool), traj (list); per step index (0, 1, ...), image (a file there),
// value.code (pyautogui calls, 0–1 coordinates), value.observation,
// value.thought, value.action, value.reflection (strings),
// value.last_step_correct and value.last_step_redundant (bools).
func loadAgentNet(t *testing.T, dir string) []map[string]any {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, AgentNetFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var task map[string]any
		if err := json.Unmarshal(sc.Bytes(), &task); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		for k, typ := range map[string]string{"task_id": "string", "instruction": "string", "task_completed": "bool", "traj": "list"} {
			if !isType(task[k], typ) {
				t.Errorf("line %d: %s is %T, want %s", n, k, task[k], typ)
			}
		}
		traj, _ := task["traj"].([]any)
		for i, s := range traj {
			step, _ := s.(map[string]any)
			if idx, ok := step["index"].(float64); !ok || int(idx) != i {
				t.Errorf("line %d step %d: index %v", n, i, step["index"])
			}
			img, _ := step["image"].(string)
			data, err := os.ReadFile(filepath.Join(dir, ImagesDir, img))
			if err != nil {
				t.Errorf("line %d step %d: image %q: %v", n, i, img, err)
			} else if _, err := png.Decode(bytes.NewReader(data)); err != nil {
				t.Errorf("line %d step %d: image %q is no PNG: %v", n, i, img, err)
			}
			v, _ := step["value"].(map[string]any)
			for k, typ := range map[string]string{"code": "string", "observation": "string", "thought": "string", "action": "string",
				"reflection": "string", "last_step_correct": "bool", "last_step_redundant": "bool"} {
				if !isType(v[k], typ) {
					t.Errorf("line %d step %d: value.%s is %T, want %s", n, i, k, v[k], typ)
				}
			}
			code, _ := v["code"].(string)
			if err := checkPyAutoGUI(code); err != nil {
				t.Errorf("line %d step %d: %v in %q", n, i, err, code)
			}
		}
		out = append(out, task)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func isType(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "bool":
		_, ok := v.(bool)
		return ok
	case "list":
		_, ok := v.([]any)
		return ok
	}
	return false
}

var (
	pyLine  = regexp.MustCompile(`^(pyautogui\.(click|rightClick|middleClick|doubleClick|moveTo|dragTo|scroll|hscroll|write|press|hotkey)|computer\.(terminate|wait))\((.*)\)$`)
	pyCoord = regexp.MustCompile(`\b([xy])=([-0-9.e]+)`)
)

// checkPyAutoGUI checks that code is pyautogui calls of AgentNet's action
// space with every coordinate a fraction in [0, 1].
func checkPyAutoGUI(code string) error {
	if code == "" {
		return nil
	}
	for _, line := range strings.Split(code, "\n") {
		m := pyLine.FindStringSubmatch(line)
		if m == nil {
			return fmt.Errorf("%q is no call of the action space", line)
		}
		for _, c := range pyCoord.FindAllStringSubmatch(m[4], -1) {
			v, err := strconv.ParseFloat(c[2], 64)
			if err != nil || v < 0 || v > 1 {
				return fmt.Errorf("%s=%s is not in [0, 1]", c[1], c[2])
			}
		}
	}
	return nil
}

// The agentnet layout loads with AgentNet's documented fields; its code is
// pyautogui with 0–1 coordinates, and its labels are the measured ones.
func TestAgentNetLoads(t *testing.T) {
	runs := fillRuns(t, t.TempDir())
	out := filepath.Join(t.TempDir(), "ds")
	if _, err := Build(t.Context(), out, sources(runs), Options{Format: AgentNet}); err != nil {
		t.Fatal(err)
	}
	tasks := loadAgentNet(t, out)
	if len(tasks) != 2 {
		t.Fatalf("%d tasks, want 2", len(tasks))
	}
	traj := tasks[0]["traj"].([]any)
	val := func(i int) map[string]any { return traj[i].(map[string]any)["value"].(map[string]any) }
	if c := val(0)["code"]; c != "pyautogui.click(x=0.125, y=0.25)" {
		t.Errorf("step 1: code %q", c)
	}
	if c := val(2)["code"]; c != "pyautogui.write(message='Ada')" { // the failed click is not in it
		t.Errorf("step 3: code %q", c)
	}
	if tasks[0]["instruction"] != "Fill in the form" || tasks[0]["task_completed"] != true {
		t.Errorf("task: %v %v", tasks[0]["instruction"], tasks[0]["task_completed"])
	}
	// Step 2 repeated step 1 and changed nothing: step 3 says so.
	if val(2)["last_step_redundant"] != true || val(2)["last_step_correct"] != false || val(1)["last_step_correct"] != true {
		t.Errorf("last_step fields: %v %v %v", val(2)["last_step_redundant"], val(2)["last_step_correct"], val(1)["last_step_correct"])
	}
}

// validateChat checks one line of a fine-tuning file against OpenAI's
// documented chat format for supervised (vision) fine-tuning: an object
// whose only key is messages; roles system, user, assistant; content a
// string, or for user messages a list of text and image_url parts; images
// only in user messages, as https or data:image/{png,jpeg,webp};base64
// URLs (or, with --images files, a path inside the folder), at most 10 per
// example and 10 MB each; the last message the assistant's. It returns
// the decoded images.
func validateChat(t *testing.T, dir string, line []byte, files bool) [][]byte {
	t.Helper()
	var ex map[string]json.RawMessage
	if err := json.Unmarshal(line, &ex); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	if len(ex) != 1 || ex["messages"] == nil {
		t.Fatalf("keys other than messages: %s", line)
	}
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(ex["messages"], &msgs); err != nil || len(msgs) == 0 {
		t.Fatalf("messages: %v", err)
	}
	var images [][]byte
	for i, m := range msgs {
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			continue
		}
		var parts []struct {
			Type     string `json:"type"`
			Text     *string
			ImageURL *struct {
				URL    string `json:"url"`
				Detail string `json:"detail"`
			} `json:"image_url"`
		}
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			t.Fatalf("message %d: content is neither a string nor parts: %v", i, err)
		}
		for _, p := range parts {
			switch {
			case p.Type == "text" && p.Text != nil:
			case p.Type == "image_url" && p.ImageURL != nil && m.Role == "user":
				if d := p.ImageURL.Detail; d != "" && d != "low" && d != "high" && d != "auto" {
					t.Errorf("detail %q", d)
				}
				images = append(images, chatImage(t, dir, p.ImageURL.URL, files))
			default:
				t.Errorf("message %d (%s): part %+v is not allowed", i, m.Role, p)
			}
		}
		switch m.Role {
		case "system", "user", "assistant":
		default:
			t.Errorf("message %d: role %q", i, m.Role)
		}
	}
	if msgs[len(msgs)-1].Role != "assistant" {
		t.Errorf("the last message is the %s's", msgs[len(msgs)-1].Role)
	}
	if len(images) > 10 {
		t.Errorf("%d images in one example", len(images))
	}
	return images
}

func chatImage(t *testing.T, dir, url string, files bool) []byte {
	t.Helper()
	var data []byte
	var err error
	if files {
		if strings.Contains(url, ":") || strings.Contains(url, "..") {
			t.Fatalf("image %q is not a path inside the folder", url)
		}
		data, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(url)))
	} else {
		const pre = "data:image/png;base64,"
		if !strings.HasPrefix(url, pre) {
			t.Fatalf("image URL %.40q is not a PNG data URL", url)
		}
		data, err = base64.StdEncoding.DecodeString(url[len(pre):])
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 10<<20 {
		t.Errorf("an image of %d bytes", len(data))
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("image: %v", err)
	}
	return data
}

// openai-chat writes one valid fine-tuning example per step, images as
// files or inline, with a metadata line per example.
func TestOpenAIChatValid(t *testing.T) {
	runs := fillRuns(t, t.TempDir())
	for _, mode := range []ImageMode{ImagesFiles, ImagesInline} {
		t.Run(string(mode), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "ds")
			if _, err := Build(t.Context(), out, sources(runs), Options{Format: OpenAIChat, Images: mode}); err != nil {
				t.Fatal(err)
			}
			lines := readLines(t, filepath.Join(out, ChatFile))
			meta := readLines(t, filepath.Join(out, ChatMetaFile))
			if len(lines) != 8 || len(meta) != 8 {
				t.Fatalf("%d examples, %d metadata lines; want 8", len(lines), len(meta))
			}
			for _, l := range lines {
				if imgs := validateChat(t, out, l, mode == ImagesFiles); len(imgs) != 1 {
					t.Errorf("%d images, want 1", len(imgs))
				}
			}
			_, err := os.Stat(filepath.Join(out, ImagesDir))
			if (mode == ImagesFiles) != (err == nil) {
				t.Errorf("images folder: %v", err)
			}
			var ex ChatExample
			json.Unmarshal(lines[1], &ex)
			if r := ex.Messages[2].Content; r != "I do click(40, 50)\n```python\nclick(40, 50)\n```" {
				t.Errorf("step 2's reply %q", r)
			}
			if p := ex.Messages[1].Content.([]any)[0].(map[string]any)["text"]; p != "Task: Fill in the form\nSteps so far:\n1. click(40, 50) (changed)" {
				t.Errorf("step 2's prompt %q", p)
			}
		})
	}
}

func readLines(t *testing.T, p string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}
