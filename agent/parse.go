package agent

import (
	"regexp"
	"strings"
)

// Code extraction from model replies (DESIGN.md §2): fenced ```python / ```py blocks
// (a bare ``` fence is accepted when the block parses as a statement list is not
// known here, so it is taken only when no tagged block exists), or <code>...</code>
// tags. Several blocks are joined with a blank line. A reply cut off inside a block
// (the stop sequence or max tokens ended it) keeps the open block.

var (
	fenceRe    = regexp.MustCompile("(?s)```[ \\t]*(python|py|starlark|python3)?[ \\t]*\\r?\\n(.*?)(?:```|$)")
	codeTagRe  = regexp.MustCompile(`(?s)<code>(.*?)(?:</code>|$)`)
	answerLike = regexp.MustCompile(`(?i)\b(final[ _]answer|the answer is|answer:)`)
)

// ParseReply returns the code in a model reply, or "" when there is none.
func ParseReply(reply string) string {
	var blocks []string
	if m := codeTagRe.FindAllStringSubmatch(reply, -1); len(m) > 0 {
		for _, b := range m {
			blocks = appendBlock(blocks, b[1])
		}
	}
	if len(blocks) == 0 {
		tagged, bare := []string{}, []string{}
		for _, b := range fenceRe.FindAllStringSubmatch(reply, -1) {
			if b[1] != "" {
				tagged = appendBlock(tagged, b[2])
			} else {
				bare = appendBlock(bare, b[2])
			}
		}
		blocks = tagged
		if len(blocks) == 0 {
			blocks = bare
		}
	}
	return strings.Join(blocks, "\n\n")
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
