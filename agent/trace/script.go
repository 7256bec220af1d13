package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.starlark.net/syntax"
)

// ScriptFileOptions are the Starlark dialect of deskpilot's code (the
// executor's): scripts written by WriteScript parse with them.
func ScriptFileOptions() *syntax.FileOptions {
	return &syntax.FileOptions{While: true, Recursion: true, Set: true, GlobalReassign: true, TopLevelControl: true}
}

// The header lines of a script that ReadScriptHeader reads back.
const (
	scriptTraceKey  = "# deskpilot-trace: "  // then the trace folder, a quoted Go string
	scriptCoordsKey = "# deskpilot-coords: " // then "pixels 1366x854" or "norm1000 1366x854"
)

// ScriptHeader is what a script written by WriteScript says about the run it
// came from.
type ScriptHeader struct {
	// Trace is the recorded run's folder: `deskpilot play` compares the
	// screen with its frames at each checkpoint. "" when not stated.
	Trace string
	// CoordMode is how the code writes points ("pixels", "norm1000"); "" when
	// not stated.
	CoordMode string
	// Image is the size of the screenshots the points refer to; zero when not
	// stated.
	Image image.Point
}

// WriteScript writes the code of t as one Starlark file a person can edit
// and `deskpilot play` can run without a model: a header naming the trace
// folder (tracePath; the frames stay there) and its coordinate space, then
// each step that ran code: its thought as comments, checkpoint(N) when a
// frame was recorded for it, and its code. Text from the trace is never
// able to break out of a comment: control characters, line and paragraph
// separators and bidirectional controls are written as escapes, in the
// code's strings too (as Starlark escapes, so the code does the same), and
// `cat` of the file shows every line as it is. A step
// whose code does not compile on its own, or that failed when recorded, is
// written commented out with the reason, so the file always parses.
func WriteScript(w io.Writer, t *Trace, tracePath string) error {
	bw := bufio.NewWriter(w)
	comment(bw, "", "deskpilot script: the code of a recorded run, to edit and run again with `deskpilot play`.")
	// The lines play reads come before any text from the trace: only their
	// first occurrence counts, so a task or a model name cannot forge them.
	fmt.Fprintf(bw, "%s%s\n", scriptTraceKey, strconv.QuoteToASCII(tracePath))
	mode := t.Start.CoordMode
	if mode == "" {
		mode = "pixels"
	}
	if img := t.Start.Image; img != nil && img.W > 0 && img.H > 0 && (mode == "pixels" || mode == "norm1000") {
		fmt.Fprintf(bw, "%s%s %dx%d\n", scriptCoordsKey, mode, img.W, img.H)
	}
	comment(bw, "task: ", t.Start.Task)
	rec := "recorded " + t.Start.T.UTC().Format("2006-01-02 15:04:05 UTC")
	if t.Start.Model != "" {
		rec += " by " + t.Start.Model
	}
	if t.End != nil {
		rec += ", " + t.End.Outcome
	}
	comment(bw, "", rec)
	bw.WriteString(`#
# checkpoint(n) compares the screen with the frame step n saw when it was recorded
# (read from the trace folder above) and the neighbourhood of each point step n
# aimed at; when they differ, play stops before acting (exit 4). Delete one to skip
# that check. Points are in the coordinate space above.
`)
	for _, s := range t.Steps {
		if s.Number < 1 || strings.TrimSpace(s.Code) == "" {
			continue
		}
		writeStep(bw, s)
	}
	return bw.Flush()
}

// writeStep writes one step of the script.
func writeStep(bw *bufio.Writer, s Step) {
	fmt.Fprintf(bw, "\n# ── step %d ──\n", s.Number)
	for _, line := range strings.Split(strings.TrimSpace(s.Thought), "\n") {
		if strings.TrimSpace(line) != "" {
			comment(bw, "", line)
		}
	}
	stopped := ""
	if o := s.Observation; o != nil {
		stopped = o.Error
	}
	code, why := ScriptCode(s.Code, stopped)
	if why != "" {
		WriteCommentedCode(bw, why, code)
		return
	}
	if s.Frame != "" {
		fmt.Fprintf(bw, "checkpoint(%d)\n", s.Number)
	}
	bw.WriteString(code)
	bw.WriteByte('\n')
}

// ScriptCode is code as a script holds it: newlines as Starlark reads them
// (it reads "\r\n" and "\r" as "\n", in string literals too), trailing
// space cut, characters a terminal would not show escaped inside its
// strings. why says why it must be written commented out instead (see
// WriteCommentedCode): it holds a NUL, does not compile, stopped with the
// error stopped when it ran, or holds such characters outside its strings.
func ScriptCode(code, stopped string) (_ string, why string) {
	code = strings.TrimRight(NormalizeNewlines(code), " \t\n")
	if strings.ContainsRune(code, 0) {
		// The scanner takes NUL for the end of the file: the rest would vanish.
		return code, "this code holds a NUL character, which Starlark reads as the end of the file"
	}
	if _, err := ScriptFileOptions().Parse("step", code+"\n", 0); err != nil {
		return code, "this code did not compile: " + err.Error()
	}
	if stopped != "" {
		return code, "when recorded, this code stopped with: " + stopped
	}
	if vc, ok := visibleCode(code); ok {
		return vc, ""
	}
	return code, "this code holds characters a terminal or an editor would not show as themselves (escape sequences, bidirectional controls) outside its strings"
}

// WriteCommentedCode writes code as comments after why, each line escaped
// as a comment's (VisibleLine): a script keeps it without running it.
func WriteCommentedCode(bw *bufio.Writer, why, code string) {
	for _, line := range strings.Split(why, "\n") {
		comment(bw, "", line)
	}
	comment(bw, "", "Its code is kept below as comments; restore what should run.")
	for _, line := range strings.Split(code, "\n") {
		comment(bw, "    ", line)
	}
}

// comment writes prefix+text as comment lines, one per line of text, with
// everything that could end a comment or hide text escaped.
func comment(bw *bufio.Writer, prefix, text string) {
	for _, line := range strings.Split(text, "\n") {
		bw.WriteString("# ")
		bw.WriteString(prefix)
		bw.WriteString(VisibleLine(line))
		bw.WriteByte('\n')
	}
}

// VisibleLine returns s with every character that a terminal or an editor
// would not show as itself written as an escape: control characters (a
// carriage return ends a line in Starlark and moves a terminal's cursor),
// line and paragraph separators, bidirectional controls and other format
// characters (which reorder or hide text), and invalid UTF-8. Tabs stay;
// a backslash stays as is.
func VisibleLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// ReadScriptHeader reads what the leading comment lines of a script say
// about its recording (see WriteScript); of each kind of line the first
// one counts. Lines it cannot read are ignored: a person may have edited
// them.
func ReadScriptHeader(src []byte) ScriptHeader {
	var h ScriptHeader
	var seenTrace, seenCoords bool
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if !strings.HasPrefix(line, "#") {
			break
		}
		if v, ok := strings.CutPrefix(line, scriptTraceKey); ok && !seenTrace {
			seenTrace = true
			if p, err := strconv.Unquote(strings.TrimSpace(v)); err == nil {
				h.Trace = p
			}
		}
		if v, ok := strings.CutPrefix(line, scriptCoordsKey); ok && !seenCoords {
			seenCoords = true
			var mode string
			var w, ht int
			if n, _ := fmt.Sscanf(strings.TrimSpace(v), "%s %dx%d", &mode, &w, &ht); n == 3 && w > 0 && ht > 0 {
				h.CoordMode, h.Image = mode, image.Pt(w, ht)
			}
		}
	}
	return h
}

// NormalizeNewlines turns "\r\n" and lone "\r" into "\n", as the Starlark
// scanner reads them.
func NormalizeNewlines(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}
