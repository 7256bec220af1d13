package script

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"deskpilot/internal/editdist"
)

const (
	nothingRan  = "Nothing in this block ran; send the corrected block."
	loadRefusal = "load() is not available: there are no modules to load. " +
		"math and json are already loaded and the tools are builtins; " +
		"there is no file, network or OS access"
)

// syntaxError turns a parse error into an Error that shows the line and
// a caret, with a hint for Python features Starlark lacks.
func syntaxError(err error, src string) *Error {
	var se syntax.Error
	if !errors.As(err, &se) {
		return &Error{Kind: KindSyntax, Msg: "syntax error: " + err.Error() + "\n" + nothingRan}
	}
	line, col := int(se.Pos.Line), int(se.Pos.Col)
	var b strings.Builder
	fmt.Fprintf(&b, "syntax error at line %d, column %d: %s\n", line, col, se.Msg)
	text := sourceLine(src, line)
	if text != "" {
		writeSource(&b, line, text)
		fmt.Fprintf(&b, "    %s | %s^\n", strings.Repeat(" ", len(fmt.Sprint(line))), caretPad(text, col))
	}
	if h := syntaxHint(text, se.Msg); h != "" {
		b.WriteString("hint: " + h + "\n")
	}
	b.WriteString(nothingRan)
	return &Error{Kind: KindSyntax, Line: line, Col: col, Msg: b.String()}
}

// staticError is an Error found before running: a bad name, a load, an
// assignment to a builtin.
func staticError(pos syntax.Position, src, msg, hint string) *Error {
	line, col := int(pos.Line), int(pos.Col)
	var b strings.Builder
	fmt.Fprintf(&b, "line %d, column %d: %s\n", line, col, msg)
	if text := sourceLine(src, line); text != "" {
		writeSource(&b, line, text)
	}
	if hint != "" {
		b.WriteString("hint: " + hint + "\n")
	}
	b.WriteString(nothingRan)
	return &Error{Kind: KindSyntax, Line: line, Col: col, Msg: b.String()}
}

// resolveFailedOutside reports whether err is a name-resolution error in a
// file other than the block named name (a refreshed definition).
func resolveFailedOutside(err error, name string) bool {
	var list resolve.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return false
	}
	for _, e := range list {
		if e.Pos.Filename() == name {
			return false
		}
	}
	return true
}

// classify turns the error ExecREPLChunk returned into an Error for the
// model.
func (e *Executor) classify(r *run, err error, src string) *Error {
	var list resolve.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		first := list[0]
		msg := first.Msg
		if len(list) > 1 {
			msg += fmt.Sprintf(" (and %d more errors)", len(list)-1)
		}
		return staticError(first.Pos, src, msg, e.nameHint(first.Msg))
	}
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return &Error{Kind: KindRuntime, Msg: "error: " + err.Error()}
	}
	at, inner := e.frames(ee.CallStack, r.name)
	res := &Error{Kind: KindRuntime, Line: int(at.Pos.Line), Col: int(at.Pos.Col)}
	var b strings.Builder
	switch stopKind(r.reason.Load()) {
	case stopTime:
		res.Kind = KindLimit
		fmt.Fprintf(&b, "time limit: the block ran for more than %s (time in wait() does not count) and was stopped at line %d", e.timeout(), res.Line)
	case stopSteps:
		res.Kind = KindLimit
		fmt.Fprintf(&b, "step limit: the block used more than %d execution steps and was stopped at line %d; is there an endless loop?", e.maxSteps(), res.Line)
	case stopCancel:
		res.Kind = KindCancelled
		fmt.Fprintf(&b, "cancelled: the run was stopped at line %d", res.Line)
	default:
		fmt.Fprintf(&b, "error at line %d: %s", res.Line, ee.Msg)
	}
	b.WriteByte('\n')
	if text := sourceLine(src, res.Line); text != "" && res.Line > 0 {
		writeSource(&b, res.Line, text)
	}
	if inner != nil && inner.Pos != at.Pos {
		where := fmt.Sprintf("line %d", inner.Pos.Line)
		if inner.Pos.Filename() != r.name {
			where += " of a function defined in an earlier block"
		}
		fmt.Fprintf(&b, "  in %s, %s:\n", inner.Name, where)
		text := sourceLine(src, int(inner.Pos.Line))
		if inner.Pos.Filename() != r.name {
			text = e.defs.sourceLine(inner.Pos.Filename(), int(inner.Pos.Line))
		}
		if text != "" {
			writeSource(&b, int(inner.Pos.Line), text)
		}
	}
	if res.Kind == KindRuntime && res.Line > 1 {
		fmt.Fprintf(&b, "The lines before line %d ran; their output and variables are kept.", res.Line)
	}
	res.Msg = strings.TrimRight(b.String(), "\n")
	return res
}

// frames picks, from a Starlark call stack, the innermost frame in the
// block itself (at) and the innermost frame of Starlark code anywhere
// (inner), skipping builtins.
func (e *Executor) frames(stack starlark.CallStack, name string) (at starlark.CallFrame, inner *starlark.CallFrame) {
	for i := len(stack) - 1; i >= 0; i-- {
		fr := stack[i]
		file := fr.Pos.Filename()
		if file == "<builtin>" {
			continue
		}
		if inner == nil {
			inner = &stack[i]
		}
		if file == name {
			return fr, inner
		}
	}
	return at, inner
}

// forbiddenHint tells, for a name a model reaches for in vain, what the
// sandbox lacks or what to use instead; "" for other names.
func forbiddenHint(name string) string {
	switch name {
	case "open", "shutil", "pathlib", "io":
		return "there is no file access"
	case "__import__", "importlib":
		return "there are no imports"
	case "eval", "exec", "compile":
		return "there is no eval or exec"
	case "globals", "locals", "vars":
		return "there is no globals() or locals(): use the variables directly"
	case "input":
		return "there is no console input"
	case "os", "sys", "subprocess", "signal", "ctypes":
		return "there is no OS access"
	case "socket", "requests", "urllib", "http", "httpx", "ssl":
		return "there is no network access"
	case "time":
		return "there is no time module: use wait(seconds) to pause"
	case "re":
		return "there is no re module: use string methods (find, split, replace, startswith)"
	case "random", "datetime", "collections", "itertools":
		return "there is no " + name + " module"
	case "Exception", "ValueError", "RuntimeError":
		return "there are no exceptions: use fail(message) to stop with an error"
	case "isinstance":
		return `there is no isinstance: compare type(x) == "string" (or "int", "list", "dict")`
	}
	return ""
}

// nameHint explains an undefined name: a sandbox refusal or the nearest
// known name.
func (e *Executor) nameHint(msg string) string {
	name, ok := strings.CutPrefix(msg, "undefined: ")
	if !ok {
		return ""
	}
	if h := forbiddenHint(name); h != "" {
		return h + ". The sandbox has only the tools listed, Starlark's builtins and the math and json modules."
	}
	if near := e.nearest(name); near != "" {
		return fmt.Sprintf("did you mean %s?", near)
	}
	return ""
}

// nearest returns the known global or builtin name closest to name, or ""
// when none is close.
func (e *Executor) nearest(name string) string {
	cands := make([]string, 0, len(e.globals)+len(starlark.Universe))
	for k := range e.globals {
		cands = append(cands, k)
	}
	for k := range starlark.Universe {
		cands = append(cands, k)
	}
	sort.Strings(cands)
	best, bestD := "", max(2, len(name)/3)+1
	for _, c := range cands {
		if d := editdist.Distance(strings.ToLower(name), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// syntaxHint explains, from the parser's message and the failing line, a
// Python feature Starlark lacks; "" when none applies.
func syntaxHint(line, msg string) string {
	got := ""
	if rest, ok := strings.CutPrefix(msg, "got "); ok {
		got, _, _ = strings.Cut(rest, ",")
	}
	code := stripStrings(line)
	words := strings.FieldsFunc(code, func(r rune) bool { return !isWordRune(r) })
	first := ""
	if len(words) > 0 && strings.HasPrefix(strings.TrimSpace(code), words[0]) {
		first = words[0]
	}
	switch {
	case got == "import" || got == "from":
		return "there are no imports: math and json are already loaded, and the tools are builtins; there is no file, network or OS access"
	case got == "try" || got == "except" || got == "finally":
		return "there is no try/except: check values first (if key in d: ...), or let the error stop the block"
	case got == "class":
		return "there are no classes: use dicts and functions"
	case got == "with":
		return "there is no with statement"
	case got == "raise":
		return `use fail("message") to stop with an error`
	case got == "global" || got == "nonlocal":
		return "there is no global statement: functions cannot reassign globals; return a value, or change a dict or list in place"
	case got == "del" || first == "assert":
		return "there is no del or assert statement"
	case got == "yield" || got == "async" || got == "await":
		return "there are no generators or async functions"
	case got == "else" && first == "else":
		return "for and while loops cannot have an else clause (if/else is fine)"
	case hasFString(line):
		return `Starlark has no f-strings: use "x=%s" % x or "x={}".format(x)`
	case got == "is" || slices.Contains(words, "is"):
		return "Starlark has no is operator: compare with == and != (x == None)"
	case strings.Contains(code, ":="):
		return "there is no := operator: assign on its own line"
	case strings.Contains(msg, "indent"):
		return "check the indentation: blocks are indented consistently with spaces"
	}
	return ""
}

// stripStrings returns line with the contents of its string literals
// removed (the quotes stay), so words inside strings do not count.
func stripStrings(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		b.WriteByte(c)
		if c != '"' && c != '\'' {
			continue
		}
		for i++; i < len(line) && line[i] != c; i++ {
			if line[i] == '\\' {
				i++
			}
		}
		if i < len(line) {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// hasFString reports whether line holds an f-string prefix (f"...", rf'...').
func hasFString(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] != '"' && line[i] != '\'' {
			continue
		}
		j := i
		for j > 0 && i-j < 2 && strings.IndexByte("rRbBfF", line[j-1]) >= 0 {
			j--
		}
		if strings.ContainsAny(line[j:i], "fF") && (j == 0 || !isWordRune(rune(line[j-1]))) {
			return true
		}
	}
	return false
}

// sourceLine returns line n (1-based) of src without its newline, tabs shown
// as spaces; "" when out of range.
func sourceLine(src string, n int) string {
	if n < 1 {
		return ""
	}
	for i := 1; i < n; i++ {
		j := strings.IndexByte(src, '\n')
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	if j := strings.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	src = strings.TrimRight(src, "\r")
	if len(src) > 300 {
		src = cutUTF8(src, 300) + "…"
	}
	return src
}

func writeSource(b *strings.Builder, line int, text string) {
	fmt.Fprintf(b, "    %d | %s\n", line, text)
}

// caretPad returns the spaces (or tabs, to line up) before column col of
// text.
func caretPad(text string, col int) string {
	var b strings.Builder
	for i := 0; i < col-1 && i < len(text); i++ {
		if text[i] == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
