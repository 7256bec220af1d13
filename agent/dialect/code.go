package dialect

import (
	"bytes"
	"embed"
	"image"
	"regexp"
	"strings"
	"text/template"

	"deskpilot/vision"
)

// Code is deskpilot's own dialect, the default: a thought and a Starlark program
// over the builtins in fenced ```python / ```py blocks, or in <code>...</code> tags
// when the reply has no fence at all (a tag mentioned in prose next to a fence
// never runs). Several blocks are joined with a blank line. A bare ``` fence
// counts only when no tagged fence exists. A block the reply ends inside (a stop
// sequence, the token limit, or a reply still streaming) runs to the end.
// Coordinates are the run's mode (pixels of the screenshot, or 0..1000).
//
// SplitReply is the one parser of that format: the loop runs its code, the trace
// records its thought, and the app shows both while the reply streams in.
type Code struct{}

//go:embed prompts/*.tmpl
var promptFS embed.FS

// Name implements Dialect.
func (Code) Name() string { return "code" }

// Space implements Dialect: the display scaled to maxSide, in pixels of that
// image. A run configured for 0..1000 sets the Mapper's mode itself.
func (Code) Space(display image.Point, maxSide int) Space {
	return Space{Image: vision.ScaledSize(display.X, display.Y, maxSide), Mode: vision.CoordPixels}
}

// Stop implements Dialect: models trained on smolagents' format write the
// observation themselves; the reply ends before it.
func (Code) Stop() []string { return []string{"\nObservation:"} }

// SystemPrompt implements Dialect.
func (Code) SystemPrompt(p Prompt) (string, error) { return render("code.tmpl", p) }

// Parse implements Dialect. A reply without code is a *FormatError with the
// format help.
func (Code) Parse(reply string) (Reply, error) {
	thought, code := SplitReply(reply)
	r := Reply{Thought: thought, Code: code, Turn: closeBlock(reply)}
	if code == "" {
		return r, &FormatError{Dialect: "code", Reason: "no code block", Help: FormatHelp(reply)}
	}
	return r, nil
}

// render executes one embedded prompt template.
func render(name string, data any) (string, error) {
	t, err := template.ParseFS(promptFS, "prompts/"+name)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// closeBlock closes a reply cut off inside a code block, so later turns show the
// model well-formed examples of its own output.
func closeBlock(reply string) string {
	if strings.Count(reply, "```")%2 == 1 {
		return strings.TrimRight(reply, "\n") + "\n```"
	}
	if strings.Count(reply, "<code>") > strings.Count(reply, "</code>") {
		return reply + "</code>"
	}
	return reply
}

var (
	fenceRe    = regexp.MustCompile("(?s)```[ \\t]*(python|py|starlark|python3)?[ \\t]*\\r?\\n(.*?)(?:```|$)")
	codeTagRe  = regexp.MustCompile(`(?s)<code>(.*?)(?:</code>|$)`)
	openingRe  = regexp.MustCompile("```[A-Za-z0-9]*$") // a fence line still being written
	answerLike = regexp.MustCompile(`(?i)\b(final[ _]answer|the answer is|answer:)`)
)

// ParseReply returns the code in a model reply, or "" when there is none.
func ParseReply(reply string) string {
	_, code := SplitReply(reply)
	return code
}

// SplitReply separates a reply into its thought (the text outside every code block,
// without a leading "Thought:") and its code (what runs).
func SplitReply(reply string) (thought, code string) {
	var blocks [][]int // spans of every block, each [start, end, codeStart, codeEnd]
	var run []string
	if fences := fenceRe.FindAllStringSubmatchIndex(reply, -1); len(fences) > 0 {
		var tagged, bare []string
		for _, b := range fences {
			blocks = append(blocks, []int{b[0], b[1], b[4], b[5]})
			if b[2] >= 0 {
				tagged = appendBlock(tagged, reply[b[4]:b[5]])
			} else {
				bare = appendBlock(bare, reply[b[4]:b[5]])
			}
		}
		run = tagged
		if len(run) == 0 {
			run = bare
		}
	} else {
		for _, b := range codeTagRe.FindAllStringSubmatchIndex(reply, -1) {
			blocks = append(blocks, []int{b[0], b[1], b[2], b[3]})
			run = appendBlock(run, reply[b[2]:b[3]])
		}
	}
	var text strings.Builder
	at := 0
	for _, b := range blocks {
		text.WriteString(reply[at:b[0]])
		text.WriteByte('\n')
		at = b[1]
	}
	text.WriteString(openingRe.ReplaceAllString(reply[at:], ""))
	return cleanThought(text.String()), strings.Join(run, "\n\n")
}

// cleanThought drops the labels models put around their thought and blank lines.
func cleanThought(s string) string {
	s = strings.ReplaceAll(s, "<end_code>", "")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	s = strings.TrimSpace(strings.Join(lines, "\n"))
	s = strings.TrimSpace(strings.TrimPrefix(s, "Thought:"))
	return strings.TrimSpace(strings.TrimSuffix(s, "Code:"))
}

func appendBlock(blocks []string, b string) []string {
	b = strings.Trim(b, "\r\n")
	if strings.TrimSpace(b) == "" {
		return blocks
	}
	return append(blocks, dedent(b))
}

// dedent removes the indentation common to every non-blank line, so a block the
// model indented as a whole still parses.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if prefix == "" {
		return s
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, prefix)
	}
	return strings.Join(lines, "\n")
}

// FormatHelp is the observation for a reply without code. It shows the expected
// format and, when the text reads like an answer, how to give it.
func FormatHelp(reply string) string {
	var b strings.Builder
	b.WriteString("Your reply had no code block, so nothing was run. Reply with a short thought and then one code block:\n\n")
	b.WriteString("Thought: what I see and what I will do next.\n```python\nclick(640, 400)\n```\n")
	if answerLike.MatchString(reply) {
		b.WriteString("\nIt looks like you want to give the final answer. Do it in code:\n```python\nfinal_answer(\"YOUR ANSWER HERE\")\n```\n")
	}
	return b.String()
}
