package dataset

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The openai-chat layout's files: ChatFile holds one fine-tuning example
// per line ({"messages": [...]}, nothing else: the fine-tuning API takes no
// other keys), ChatMetaFile the same lines' run, step and labels.
const (
	ChatFile     = "train.jsonl"
	ChatMetaFile = "metadata.jsonl"
)

// chatHistory is how many earlier steps an example recalls in words.
const chatHistory = 8

// ChatExample is one line of train.jsonl: one step, as the conversation
// that led to the model's reply: the system prompt, the task with the
// steps so far and the screenshot, and the reply.
type ChatExample struct {
	Messages []ChatMessage `json:"messages"`
}

// ChatMessage is a message of the fine-tuning format; Content is a string
// (system, assistant) or a list of ChatPart (user).
type ChatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// ChatPart is a content part: text, or an image by URL.
type ChatPart struct {
	Type     string   `json:"type"` // "text" | "image_url"
	Text     string   `json:"text,omitempty"`
	ImageURL *ChatURL `json:"image_url,omitempty"`
}

// ChatURL is an image: a data URL, or with --images files a path relative
// to the dataset folder.
type ChatURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// ChatMeta is one line of metadata.jsonl.
type ChatMeta struct {
	Trace  string   `json:"trace"`
	TaskID string   `json:"task_id"`
	Step   int      `json:"step"`
	Labels []string `json:"labels"`
	Score  *float64 `json:"score"`
	Model  string   `json:"model"`
}

const chatSystem = "You operate a computer to do the user's task. Each turn you see a screenshot; " +
	"answer with a short thought and the code of the next step."

type chatSink struct {
	dir        string
	images     ImageMode
	f, mf      *os.File
	w, mw      *bufio.Writer
	wroteImage bool
}

func newChatSink(dir string, images ImageMode) (*chatSink, error) {
	if images != ImagesFiles && images != ImagesInline {
		return nil, fmt.Errorf("dataset: --images %q: use files or inline", images)
	}
	f, err := create(dir, ChatFile)
	if err != nil {
		return nil, err
	}
	mf, err := create(dir, ChatMetaFile)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &chatSink{dir: dir, images: images, f: f, mf: mf, w: bufio.NewWriter(f), mw: bufio.NewWriter(mf)}, nil
}

func (c *chatSink) add(t *Trajectory) error {
	for i, s := range t.Steps {
		url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(s.PNG)
		if c.images == ImagesFiles {
			name := fmt.Sprintf("%s/%s-%04d.png", ImagesDir, t.ID, s.Number)
			if err := writeFile(c.dir, name, s.PNG); err != nil {
				return err
			}
			c.wroteImage = true
			url = name
		}
		ex := ChatExample{Messages: []ChatMessage{
			{Role: "system", Content: chatSystem},
			{Role: "user", Content: []ChatPart{
				{Type: "text", Text: chatPrompt(t, i)},
				{Type: "image_url", ImageURL: &ChatURL{URL: url, Detail: "high"}},
			}},
			{Role: "assistant", Content: chatReply(s)},
		}}
		if err := writeLine(c.w, ex); err != nil {
			return err
		}
		if err := writeLine(c.mw, ChatMeta{Trace: t.ID, TaskID: t.TaskID, Step: s.Number,
			Labels: labelStrings(s.Labels), Score: t.Score, Model: t.Model}); err != nil {
			return err
		}
	}
	return nil
}

// chatPrompt is the user's text before step i: the task and the steps so far.
func chatPrompt(t *Trajectory, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task: %s\n", t.Task)
	if i == 0 {
		b.WriteString("No steps yet.")
		return b.String()
	}
	b.WriteString("Steps so far:")
	for j := max(0, i-chatHistory); j < i; j++ {
		s := t.Steps[j]
		fmt.Fprintf(&b, "\n%d. %s (%s", j+1, oneLine(s.Code), strings.ReplaceAll(s.Effect(), "_", " "))
		if s.Error != "" {
			fmt.Fprintf(&b, "; error: %s", oneLine(s.Error))
		}
		b.WriteString(")")
	}
	return b.String()
}

// chatReply is what the model answered: its thought and its code.
func chatReply(s Step) string {
	th := strings.TrimSpace(s.Thought)
	if s.Code == "" {
		return th
	}
	if th != "" {
		th += "\n"
	}
	return th + "```python\n" + strings.TrimRight(s.Code, "\n") + "\n```"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

func writeLine(w *bufio.Writer, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	w.Write(line)
	if err := w.WriteByte('\n'); err != nil {
		return fmt.Errorf("dataset: %w", err)
	}
	return nil
}

func (c *chatSink) close() ([]string, error) {
	var err error
	for _, x := range []func() error{c.w.Flush, c.f.Close, c.mw.Flush, c.mf.Close} {
		if e := x(); err == nil {
			err = e
		}
	}
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	files := []string{ChatFile, ChatMetaFile}
	if c.wroteImage {
		files = append(files, ImagesDir+"/")
	}
	return files, nil
}
