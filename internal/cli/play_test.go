package cli

import (
	"strings"
	"testing"

	"deskpilot/agent/trace"
)

func TestSplitScript(t *testing.T) {
	src := "# header\n\ndef f():\n    return 1\n\ncheckpoint(1)\nclick(1, 2)\n# step 2\ncheckpoint(2); print(f())\nif True:\n    checkpoint(3)\ncheckpoint(4)\n"
	segs, checks, err := splitScript("run.star", src)
	if err != nil {
		t.Fatal(err)
	}
	if !checks {
		t.Error("the checkpoint calls were not seen")
	}
	var lines []int
	for _, s := range segs {
		lines = append(lines, s.line)
	}
	// Cut before checkpoint(1), checkpoint(2) and checkpoint(4); checkpoint(3)
	// is inside an if.
	if got := len(lines); got != 4 || lines[0] != 3 || lines[1] != 6 || lines[2] != 9 || lines[3] != 12 {
		t.Fatalf("segments start at lines %v, want [3 6 9 12]", lines)
	}
	if want := strings.Repeat("\n", 5) + "checkpoint(1)\nclick(1, 2)\n# step 2\n"; segs[1].code != want {
		t.Errorf("segment 2 = %q, want %q (the file's line numbers kept)", segs[1].code, want)
	}
	if _, _, err := splitScript("bad.star", "click(1,\n"); err == nil {
		t.Error("a script that does not parse was split")
	}
	if _, checks, _ := splitScript("none.star", "print(1)\n"); checks {
		t.Error("a script without checkpoints was said to have some")
	}
}

// FuzzSplitScript: the segments of any script that parses parse, keep the
// file's line numbers, and together are the file from its first statement.
func FuzzSplitScript(f *testing.F) {
	f.Add("checkpoint(1)\nclick(1, 2)\ncheckpoint(2)\n")
	f.Add("x = 1; checkpoint(1)\ncheckpoint(2)\n")
	f.Add("# a\ndef g():\n    checkpoint(1)\n\ncheckpoint(2)\ng()")
	f.Add("checkpoint(\n1)\ncheckpoint(2) # c\n")
	f.Add("s = \"\"\"\ncheckpoint(9)\n\"\"\"\ncheckpoint(1)\n")
	f.Fuzz(func(t *testing.T, src string) {
		if strings.ContainsRune(src, 0) {
			return // readScript refuses NUL
		}
		src = trace.NormalizeNewlines(src)
		segs, _, err := splitScript("f.star", src)
		if err != nil {
			return
		}
		var joined strings.Builder
		for i, s := range segs {
			pad := strings.Repeat("\n", s.line-1)
			if !strings.HasPrefix(s.code, pad) {
				t.Fatalf("segment %d does not keep line %d", i, s.line)
			}
			joined.WriteString(s.code[len(pad):])
			if _, err := trace.ScriptFileOptions().Parse("seg", s.code, 0); err != nil {
				t.Fatalf("segment %d does not parse: %v\n%q", i, err, s.code)
			}
		}
		if !strings.HasSuffix(src, joined.String()) {
			t.Fatalf("segments %q are not the end of %q", joined.String(), src)
		}
	})
}
