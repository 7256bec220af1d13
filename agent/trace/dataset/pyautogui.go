package dataset

import (
	"fmt"
	"strconv"
	"strings"

	"go.starlark.net/syntax"

	"deskpilot/actions"
)

// PyAutoGUI writes a step's actions as the pyautogui calls AgentNet uses,
// points as 0–1 fractions of the image (x=0.5, y=0.3): click, rightClick,
// doubleClick, moveTo, moveTo + dragTo, moveTo + scroll/hscroll, write,
// press, hotkey; computer.terminate for final_answer and computer.wait for
// wait. Actions with no GUI counterpart (launch, open_url, zoom, the
// research tools) and failed ones are left out: the code is what happened
// on the screen. desc describes the same calls in words (AgentNet's action).
func PyAutoGUI(acts []Action, outcome string) (code string, desc string) {
	var lines, words []string
	for _, a := range acts {
		if a.Error != "" {
			continue
		}
		l, w := pyCall(a, outcome)
		lines = append(lines, l...)
		if w != "" {
			words = append(words, w)
		}
	}
	return strings.Join(lines, "\n"), strings.Join(words, "; ")
}

func pyCall(a Action, outcome string) ([]string, string) {
	xy := func(p *[2]float64) string { return fmt.Sprintf("x=%s, y=%s", num(p[0]), num(p[1])) }
	at := func(p *[2]float64) string { return fmt.Sprintf("(%s, %s)", num(p[0]), num(p[1])) }
	args := parseArgs(a.Args)
	p := a.Point
	switch {
	case a.gesture == actions.GestureDrag && p != nil && a.To != nil:
		return []string{"pyautogui.moveTo(" + xy(p) + ")", "pyautogui.dragTo(" + xy(a.To) + ", button='left')"},
			"drag from " + at(p) + " to " + at(a.To)
	case a.gesture == actions.GestureClick && p != nil:
		button := args.str("button", 2)
		switch button {
		case "right":
			return []string{"pyautogui.rightClick(" + xy(p) + ")"}, "right-click at " + at(p)
		case "middle":
			return []string{"pyautogui.middleClick(" + xy(p) + ")"}, "middle-click at " + at(p)
		}
		return []string{"pyautogui.click(" + xy(p) + ")"}, "click at " + at(p)
	case a.gesture == actions.GestureDouble && p != nil:
		return []string{"pyautogui.doubleClick(" + xy(p) + ")"}, "double-click at " + at(p)
	case a.gesture == actions.GestureRight && p != nil:
		return []string{"pyautogui.rightClick(" + xy(p) + ")"}, "right-click at " + at(p)
	case a.gesture == actions.GestureMove && p != nil:
		return []string{"pyautogui.moveTo(" + xy(p) + ")"}, "move the pointer to " + at(p)
	case a.gesture == actions.GestureScroll:
		dir := args.str("direction", 2)
		if dir == "" {
			dir = "down"
		}
		n := args.int("amount", 3, 3)
		var out []string
		if p != nil {
			out = append(out, "pyautogui.moveTo("+xy(p)+")")
		}
		switch dir {
		case "up":
			out = append(out, fmt.Sprintf("pyautogui.scroll(%d)", n))
		case "left":
			out = append(out, fmt.Sprintf("pyautogui.hscroll(%d)", -n))
		case "right":
			out = append(out, fmt.Sprintf("pyautogui.hscroll(%d)", n))
		default:
			out = append(out, fmt.Sprintf("pyautogui.scroll(%d)", -n))
		}
		return out, fmt.Sprintf("scroll %s %d", dir, n)
	}
	switch a.types {
	case actions.TypesText:
		t := args.str("text", 0)
		return []string{"pyautogui.write(message=" + pyString(t) + ")"}, "type " + pyString(t)
	case actions.TypesSecret:
		// The value is never in a trace; the call keeps its place.
		return []string{"pyautogui.write(message=" + pyString("[secret:"+args.str("name", 0)+"]") + ")"}, "type the stored secret " + pyString(args.str("name", 0))
	}
	switch a.Name {
	case "press":
		k := args.str("keys", 0)
		keys := strings.Split(strings.ToLower(k), "+")
		for i := range keys {
			keys[i] = pyKey(strings.TrimSpace(keys[i]))
		}
		if len(keys) == 1 {
			return []string{"pyautogui.press(" + pyString(keys[0]) + ")"}, "press " + k
		}
		q := make([]string, len(keys))
		for i, k := range keys {
			q[i] = pyString(k)
		}
		return []string{"pyautogui.hotkey(" + strings.Join(q, ", ") + ")"}, "press " + k
	case "wait":
		return []string{"computer.wait()"}, "wait"
	case "final_answer":
		status := "success"
		if outcome != "" && outcome != "answered" {
			status = "failure"
		}
		return []string{"computer.terminate(status='" + status + "')"}, "finish the task"
	}
	return nil, ""
}

// pyKey is pyautogui's name of one of deskpilot's keys.
func pyKey(k string) string {
	switch k {
	case "control":
		return "ctrl"
	case "return":
		return "enter"
	case "escape":
		return "esc"
	case "super", "meta", "cmd":
		return "win"
	case "page_up", "pageup":
		return "pageup"
	case "page_down", "pagedown":
		return "pagedown"
	}
	return k
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// pyString is s as a Python string literal.
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// callArgs are a call's literal arguments as the trace wrote them.
type callArgs struct {
	pos []syntax.Expr
	kw  map[string]syntax.Expr
}

// parseArgs reads "ARGS" of a call as Starlark; arguments that are no
// literals read as absent.
func parseArgs(s string) callArgs {
	var out callArgs
	e, err := (&syntax.FileOptions{}).ParseExpr("args", "f("+s+")", 0)
	if err != nil {
		return out
	}
	call, ok := e.(*syntax.CallExpr)
	if !ok {
		return out
	}
	for _, a := range call.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			if id, ok := b.X.(*syntax.Ident); ok {
				if out.kw == nil {
					out.kw = map[string]syntax.Expr{}
				}
				out.kw[id.Name] = b.Y
				continue
			}
		}
		out.pos = append(out.pos, a)
	}
	return out
}

func (c callArgs) arg(name string, pos int) syntax.Expr {
	if e, ok := c.kw[name]; ok {
		return e
	}
	if pos < len(c.pos) {
		return c.pos[pos]
	}
	return nil
}

func (c callArgs) str(name string, pos int) string {
	if l, ok := c.arg(name, pos).(*syntax.Literal); ok && l.Token == syntax.STRING {
		s, _ := l.Value.(string)
		return s
	}
	return ""
}

func (c callArgs) int(name string, pos, def int) int {
	if l, ok := c.arg(name, pos).(*syntax.Literal); ok && l.Token == syntax.INT {
		if v, ok := l.Value.(int64); ok {
			return int(v)
		}
	}
	return def
}
