package dialect

import (
	"strings"
	"testing"
)

func TestParseReply(t *testing.T) {
	cases := []struct {
		name, reply, want string
	}{
		{"python fence", "Thought: click it\n```python\nclick(1, 2)\n```\n", "click(1, 2)"},
		{"py fence", "```py\nprint(1)\n```", "print(1)"},
		{"code tags", "x\n<code>\nprint(1)\n</code>\n", "print(1)"},
		{"several tags joined", "<code>a = 1</code> and <code>b = 2</code>", "a = 1\n\nb = 2"},
		{"several fences joined", "```python\na = 1\n```\ntext\n```python\nb = 2\n```", "a = 1\n\nb = 2"},
		{"unterminated fence kept", "Thought\n```python\nclick(3, 4)\n", "click(3, 4)"},
		{"bare fence when no tagged one", "```\npress(\"enter\")\n```", "press(\"enter\")"},
		{"tagged preferred over bare", "```\nnot this\n```\n```python\nthis\n```", "this"},
		{"indented block dedented", "```python\n    x = 1\n    if x:\n        print(x)\n```", "x = 1\nif x:\n    print(x)"},
		{"no code", "Thought: I am done, final answer is 3", ""},
		{"empty block", "```python\n\n```", ""},
		{"crlf", "```python\r\nprint(1)\r\n```", "print(1)"},
		{"a tag in prose never beats a fence", "I could <code>press(\"alt+f4\")</code> but\n```python\nclick(1, 2)\n```", "click(1, 2)"},
		{"tags alone run", "plan <code>click(1, 2)</code>", "click(1, 2)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ParseReply(c.reply); got != c.want {
				t.Errorf("ParseReply(%q) = %q, want %q", c.reply, got, c.want)
			}
		})
	}
}

func TestFormatHelp(t *testing.T) {
	if h := FormatHelp("Thought: the final answer is 3"); !strings.Contains(h, "final_answer(") {
		t.Errorf("answer-like reply gets no final_answer hint:\n%s", h)
	}
	if h := FormatHelp("I will click the button"); strings.Contains(h, "final_answer(") {
		t.Errorf("non-answer reply gets a final_answer hint:\n%s", h)
	}
}

func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"```python\nx\n```", "<code>a</code>", "```", "<code>", "```py\n\t \n  a\n b\n```", "\x00```python\n\xff\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code := ParseReply(s)
		if code != "" && strings.TrimSpace(code) == "" {
			t.Errorf("blank code returned for %q", s)
		}
		_ = FormatHelp(s)
	})
}

func TestSplitReply(t *testing.T) {
	cases := []struct {
		name, reply, thought, code string
	}{
		{"fenced", "Thought: click it\n```python\nclick(1, 2)\n```", "click it", "click(1, 2)"},
		{"code tags", "ok <code>press(\"enter\")</code> done", "ok\ndone", `press("enter")`},
		{"smolagents labels", "Thought: done\nCode:\n```py\nfinal_answer(1)\n```<end_code>", "done", "final_answer(1)"},
		{"streaming: inside a block", "I will type\n```py\ntype_te", "I will type", "type_te"},
		{"streaming: fence line being written", "I will type\n```pyth", "I will type", ""},
		{"two bare blocks", "a\n```\nx = 1\n```\nb\n```\ny = 2\n```\nc", "a\nb\nc", "x = 1\n\ny = 2"},
		{"unused bare block is not thought", "a\n```\nnot run\n```\n```python\nrun()\n```", "a", "run()"},
		{"no code", "The answer is 4.", "The answer is 4.", ""},
		{"empty", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			th, code := SplitReply(c.reply)
			if th != c.thought || code != c.code {
				t.Errorf("SplitReply(%q) = %q, %q; want %q, %q", c.reply, th, code, c.thought, c.code)
			}
		})
	}
}
