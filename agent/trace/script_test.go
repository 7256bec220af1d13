package trace

import (
	"bytes"
	"image"
	"strings"
	"testing"

	"go.starlark.net/syntax"
)

// checkpoints parses a script and returns the steps of its top-level
// checkpoint(N) calls.
func checkpoints(t *testing.T, src []byte) []string {
	t.Helper()
	f, err := ScriptFileOptions().Parse("run.star", src, 0)
	if err != nil {
		t.Fatalf("the script does not parse: %v\n%s", err, src)
	}
	var out []string
	for _, st := range f.Stmts {
		if e, ok := st.(*syntax.ExprStmt); ok {
			if c, ok := e.X.(*syntax.CallExpr); ok {
				if id, ok := c.Fn.(*syntax.Ident); ok && id.Name == "checkpoint" && len(c.Args) == 1 {
					out = append(out, c.Args[0].(*syntax.Literal).Raw)
				}
			}
		}
	}
	return out
}

func TestWriteScript(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteScript(&b, tr, w.Dir()); err != nil {
		t.Fatal(err)
	}
	src := b.String()
	if got := strings.Join(checkpoints(t, b.Bytes()), ","); got != "1,3" {
		t.Errorf("checkpoints %s, want 1,3 (step 2 failed when recorded)\n%s", got, src)
	}
	for _, want := range []string{
		"# task: Open the calculator and compute 12 × 7\n",
		"# I will open the calculator from the dock.\ncheckpoint(1)\nclick(80, 100)\ntype_text(\"12*7\")\n",
		"# when recorded, this code stopped with: line 2: x=400 is outside the screenshot (0..319)\n",
		"#     drag(150, 60, 260, 150)\n#     right_click(400, 50)\n",
		"checkpoint(3)\nfinal_answer(\"84\")\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("script lacks %q:\n%s", want, src)
		}
	}
	h := ReadScriptHeader(b.Bytes())
	if h.Trace != w.Dir() || h.CoordMode != "pixels" || h.Image != image.Pt(320, 200) {
		t.Errorf("header %+v", h)
	}
}

func TestVisibleLine(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", `click(1, 2) # "ok" \n`, `click(1, 2) # "ok" \n`},
		{"tab", "a\tb", "a\tb"},
		{"carriage return", "safe\rrm()", `safe\x0drm()`},
		{"escape sequence", "\x1b[2K\x1b[1Ahidden", `\x1b[2K\x1b[1Ahidden`},
		{"nul and del", "a\x00b\x7f", `a\x00b\x7f`},
		{"line separator", "a\u2028b\u0085c", `a\u2028b\u0085c`},
		{"bidi override", "abc\u202edef\u2066", `abc\u202edef\u2066`},
		{"invalid utf-8", "a\xffb", `a\xffb`},
		{"unicode text", "Grüße 東京 ✓", "Grüße 東京 ✓"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := VisibleLine(c.in); got != c.want {
				t.Errorf("VisibleLine(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// FuzzWriteScript: whatever a trace holds (a thought, a task, code, a trace
// path with newlines, quotes and control characters), the script parses,
// has one checkpoint per step whose code runs, and its header reads back.
func FuzzWriteScript(f *testing.F) {
	f.Add("I will click.\nThen type.", "fill the form", "click(1, 2)", "/tmp/t")
	f.Add("evil\rclick(666, 666)", "task\r\nfinal_answer(1)", "print('a')\r\nprint(\"b\")", "/tmp/a\"b\nc")
	f.Add("\x00\x1b[1A\u2028\u202e#", "\xff\xfe", "x = \"\"\"\n# not a comment\n\"\"\"", "")
	f.Add("ok", "t", "def f():\n    return 1\nf()", "dir\r")
	f.Add("", "", "if True:\n  click(1,1", "p")
	f.Add("\\", "\\\n", "print(1) \\", "\\")
	f.Add("m\n# deskpilot-trace: \"/evil\"\n# deskpilot-coords: norm1000 5x5", "t", "click(1, 2)", "/good")
	f.Fuzz(func(t *testing.T, thought, task, code, path string) {
		tr := &Trace{Start: Event{Task: task, Model: thought, CoordMode: "pixels", Image: &Size{W: 100, H: 80}}, Steps: []Step{
			{Number: 1, Thought: thought, Code: code, Frame: "frames/0000.png"},
			{Number: 2, Thought: thought, Code: "click(1, 2)", Frame: "frames/0001.png"},
		}}
		var b bytes.Buffer
		if err := WriteScript(&b, tr, path); err != nil {
			t.Fatal(err)
		}
		want := []string{"2"}
		if _, err := ScriptFileOptions().Parse("step", NormalizeNewlines(code)+"\n", 0); err == nil && strings.TrimSpace(code) != "" && !strings.ContainsRune(code, 0) {
			want = []string{"1", "2"}
		}
		if got := checkpoints(t, b.Bytes()); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("checkpoints %v, want %v\n%s", got, want, b.String())
		}
		if h := ReadScriptHeader(b.Bytes()); h.Trace != path || h.Image != image.Pt(100, 80) {
			t.Fatalf("header %+v, want trace %q", h, path)
		}
	})
}

// Escape sequences in recorded code cannot hide a line from `cat` of the
// script: inside strings they become Starlark escapes of the same value, in
// comments visible escapes; the script still parses and does the same.
func TestScriptEscapesControlsInCode(t *testing.T) {
	hide := "\x1b[1A\x1b[2K"
	code := "x = \"" + hide + "\"  # \x1b[8m\n" + "y = b'\u202e'\n" + "launch(\"xterm\")\n" + "# look\x1b]0;t\x07\n"
	tr := &Trace{Start: Event{Type: TypeRunStart, Task: "t"}, Steps: []Step{{Number: 1, Code: code}}}
	var b bytes.Buffer
	if err := WriteScript(&b, tr, "/tr"); err != nil {
		t.Fatal(err)
	}
	src := b.String()
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		if strings.Contains(src, bad) {
			t.Errorf("the script holds %q raw:\n%q", bad, src)
		}
	}
	f, err := ScriptFileOptions().Parse("run.star", src, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	var values []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if l, ok := n.(*syntax.Literal); ok && (l.Token == syntax.STRING || l.Token == syntax.BYTES) {
			values = append(values, l.Value.(string))
		}
		return true
	})
	if strings.Join(values, "|") != hide+"|\u202e|xterm" {
		t.Errorf("the strings hold %q:\n%s", values, src)
	}
	if !strings.Contains(src, `x = "\x1b[1A\x1b[2K"  # \x1b[8m`) || !strings.Contains(src, "launch(\"xterm\")\n") {
		t.Errorf("script:\n%s", src)
	}
	// A control character outside a string cannot be escaped: the step is
	// written as comments.
	tr.Steps[0].Code = "print(1) \x0c\n"
	b.Reset()
	if err := WriteScript(&b, tr, "/tr"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x0c") || !strings.Contains(b.String(), `#     print(1) \x0c`) {
		t.Errorf("script:\n%q", b.String())
	}
}
