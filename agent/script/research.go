package script

import (
	"deskpilot/actions"

	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"deskpilot/actions/browser"
	"deskpilot/actions/inspect"

	"go.starlark.net/starlark"
)

// ResearchDeps are what the research tools need. A nil member leaves its
// tools out, so a run without a browser has no web_search and the like.
type ResearchDeps struct {
	// Browser answers web_search, visit_page, page_up, page_down,
	// find_on_page, find_next and archived_url. It keeps the current page
	// between calls and blocks, for the whole life of the Executor.
	Browser *browser.Browser
	// Inspector answers inspect_file.
	Inspector *inspect.Inspector
	// Read, when set, is told of every file inspect_file read (whether it was
	// under the home folder), for the policy on data leaving after that.
	Read func(r inspect.Result)
}

// Research returns the text browser and file inspector tools of the catalogue
// (groups "browser" and "files"): web_search, visit_page, page_up,
// page_down, find_on_page, find_next, archived_url and inspect_file. Each
// returns the text the browser or inspector answers with (the model prints
// it to read it) and logs an actions.Record whose Result sums the answer up, e.g.
// "Address: https://example.com/, page 1 of 3".
//
// Arguments are checked before anything is fetched, with messages naming
// what is valid. Waits on the network or on the model run untimed (they do
// not count toward the block's time limit) but end when the block is
// cancelled. Failures the packages report — a refused address, a timeout, a
// corrupt file — come back as the tool's error, which the model reads.
func Research(d ResearchDeps) []Tool {
	var ts []Tool
	if d.Browser != nil {
		ts = append(ts, browserTools(d.Browser)...)
	}
	if d.Inspector != nil {
		ts = append(ts, inspectTool(d.Inspector, d.Read))
	}
	return ts
}

func browserTools(b *browser.Browser) []Tool {
	return []Tool{
		textTool("web_search", func(c *Call, a *Args) (string, error) {
			query, year, err := searchArgs(c, a)
			if err != nil {
				return "", err
			}
			return netCall(c, summarizeSearch, func(ctx context.Context) (string, error) { return b.Search(ctx, query, year) })
		}),
		textTool("visit_page", func(c *Call, a *Args) (string, error) {
			u, err := nonEmpty(c, a, "url", `e.g. visit_page("https://example.com")`)
			if err != nil {
				return "", err
			}
			return netCall(c, summarizePage, func(ctx context.Context) (string, error) { return b.Visit(ctx, u) })
		}),
		textTool("page_down", func(c *Call, _ *Args) (string, error) { return quickCall(c, summarizePage, b.PageDown), nil }),
		textTool("page_up", func(c *Call, _ *Args) (string, error) { return quickCall(c, summarizePage, b.PageUp), nil }),
		textTool("find_on_page", func(c *Call, a *Args) (string, error) {
			text, err := nonEmpty(c, a, "text", `e.g. find_on_page("population")`)
			if err != nil {
				return "", err
			}
			return quickCall(c, summarizeFind, func() string { return b.Find(text) }), nil
		}),
		textTool("find_next", func(c *Call, _ *Args) (string, error) { return quickCall(c, summarizeFind, b.FindNext), nil }),
		textTool("archived_url", func(c *Call, a *Args) (string, error) {
			u, date, err := archiveArgs(c, a)
			if err != nil {
				return "", err
			}
			return netCall(c, summarizeArchive, func(ctx context.Context) (string, error) { return b.Archived(ctx, u, date) })
		}),
	}
}

func inspectTool(in *inspect.Inspector, read func(inspect.Result)) Tool {
	return textTool("inspect_file", func(c *Call, a *Args) (string, error) {
		path, err := nonEmpty(c, a, "path", `e.g. inspect_file("~/Downloads/report.pdf")`)
		if err != nil {
			return "", err
		}
		q, _ := a.OptString("question")
		if err := a.Err(); err != nil {
			return "", err
		}
		page, err := pageArg(c, a)
		if err != nil {
			return "", err
		}
		summarize := summarizeFile
		if strings.TrimSpace(q) != "" {
			summarize = func(s string) string { return "answered: " + firstLine(s, 80) }
		}
		return netCall(c, summarize, func(ctx context.Context) (string, error) {
			r, err := in.Read(ctx, inspect.Request{Path: path, Question: q, Page: page})
			if err == nil && read != nil {
				read(r)
			}
			return r.Text, err
		})
	})
}

// pageArg reads inspect_file's page: a whole number from 1 (None means 1).
func pageArg(c *Call, a *Args) (int, error) {
	if a.IsNone("page") {
		return 1, nil
	}
	v, ok := a.Value("page").(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s: page must be a whole number like 2; got %s", c.Name, typeName(a.Value("page")))
	}
	n, ok := v.Int64()
	if !ok || n < 1 || n > 1_000_000 {
		return 0, fmt.Errorf("%s: page %s is not a page number; pages start at 1", c.Name, v)
	}
	return int(n), nil
}

// textTool binds the catalogue's builtin name to a body that binds the
// arguments and returns str.
func textTool(name string, body func(c *Call, a *Args) (string, error)) Tool {
	return Builtin(name, func(c *Call, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
		a, err := c.Bind()
		if err != nil {
			return nil, err
		}
		s, err := body(c, a)
		if err != nil {
			return nil, err
		}
		return starlark.String(s), nil
	})
}

// netCall runs do, which waits on the network or a model, with the block's
// clock stopped, and logs it. A failure after the block was stopped reports
// the stop, not the network error it caused.
func netCall(c *Call, summarize func(string) string, do func(ctx context.Context) (string, error)) (string, error) {
	act := actions.Record{Name: c.Name, Args: c.ArgsText(), Start: c.Now()}
	resume := c.Untimed()
	text, err := do(c.Ctx)
	resume()
	act.Duration = c.Now().Sub(act.Start)
	if err != nil {
		if c.Ctx.Err() != nil {
			err = c.stopped()
		} else {
			err = modelError(c.Name, err)
		}
		act.Result, act.Error = "failed", err.Error()
		c.Log(act)
		return "", err
	}
	act.Result = summarize(text)
	c.Log(act)
	return text, nil
}

// quickCall runs a call that does not block (paging, find) and logs it.
func quickCall(c *Call, summarize func(string) string, do func() string) string {
	start := c.Now()
	text := do()
	c.Log(actions.Record{Name: c.Name, Args: c.ArgsText(), Start: start, Duration: c.Now().Sub(start), Result: summarize(text)})
	return text
}

// researchError is a package error as the model reads it: without the
// package's own prefix (the Executor adds the tool's name), still wrapping
// the original for errors.Is and errors.As.
type researchError struct {
	msg string
	err error
}

func (e *researchError) Error() string { return e.msg }
func (e *researchError) Unwrap() error { return e.err }

// modelError turns a browser or inspector error into the tool's error:
// "visit_page: visit https://x/: ..." rather than "browser: visit ...".
func modelError(tool string, err error) error {
	msg := err.Error()
	for _, p := range []string{"browser: ", "inspect: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	if errors.Is(err, context.DeadlineExceeded) && !strings.Contains(msg, "timed out") {
		msg += " (the site did not answer in time; try again later or another source)"
	}
	return &researchError{msg: tool + ": " + msg, err: err}
}

// nonEmpty reads a required string argument that must hold some text.
func nonEmpty(c *Call, a *Args, name, example string) (string, error) {
	s := a.String(name)
	if err := a.Err(); err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("%s: %s is empty; %s", c.Name, name, example)
	}
	return s, nil
}

// Years web_search accepts.
const (
	minSearchYear = 1900
	maxSearchYear = 2200
)

func searchArgs(c *Call, a *Args) (query string, year int, err error) {
	query, err = nonEmpty(c, a, "query", `e.g. web_search("population of Lyon")`)
	if err != nil {
		return "", 0, err
	}
	if a.IsNone("year") {
		return query, 0, nil
	}
	v, ok := a.Value("year").(starlark.Int)
	if !ok {
		return "", 0, fmt.Errorf("%s: year must be a whole number like 2023, or None for any time; got %s", c.Name, typeName(a.Value("year")))
	}
	y, ok := v.Int64()
	if !ok || y < minSearchYear || y > maxSearchYear {
		return "", 0, fmt.Errorf("%s: year %s is not a year between %d and %d; pass e.g. 2023, or None for any time", c.Name, v, minSearchYear, maxSearchYear)
	}
	return query, int(y), nil
}

func archiveArgs(c *Call, a *Args) (u, date string, err error) {
	u, err = nonEmpty(c, a, "url", `e.g. archived_url("https://example.com", "20200131")`)
	if err != nil {
		return "", "", err
	}
	dv := a.Value("date")
	ds, ok := dv.(starlark.String)
	if !ok {
		return "", "", fmt.Errorf(`%s: date must be a string "YYYYMMDD", e.g. "20200131"; got %s`, c.Name, typeName(dv))
	}
	date = strings.TrimSpace(string(ds))
	if _, perr := time.Parse("20060102", date); perr != nil || len(date) != 8 {
		return "", "", fmt.Errorf(`%s: date %q must be a real date written "YYYYMMDD", e.g. "20200131"`, c.Name, string(ds))
	}
	return u, date, nil
}

// summarizePage sums up a browser answer from its header, e.g.
// "Address: https://example.com/, page 1 of 3".
func summarizePage(s string) string {
	addr, pos := "", ""
	for _, line := range strings.SplitN(s, "\n", 6) {
		switch {
		case strings.HasPrefix(line, "Address: "):
			addr = strings.TrimPrefix(line, "Address: ")
		case strings.HasPrefix(line, "Viewport position: Showing "):
			pos = strings.TrimSuffix(strings.TrimPrefix(line, "Viewport position: Showing "), ".")
		}
	}
	if addr == "" {
		return firstLine(s, 120)
	}
	out := "Address: " + cut(addr, 200)
	if pos != "" {
		out += ", " + pos
	}
	return out
}

func summarizeFind(s string) string {
	if !strings.HasPrefix(s, "Address: ") {
		if strings.Contains(s, "not found") {
			return "not found"
		}
		return firstLine(s, 120)
	}
	return "found: " + summarizePage(s)
}

func summarizeSearch(s string) string {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, ". ["); i > 0 && i <= 3 && isDigits(line[:i]) {
			n++
		}
	}
	if n == 0 {
		return "no results"
	}
	if n == 1 {
		return "1 result"
	}
	return fmt.Sprintf("%d results", n)
}

func summarizeArchive(s string) string {
	first, rest, ok := strings.Cut(s, "\n")
	if !ok || !strings.HasPrefix(rest, "Address: ") {
		return firstLine(s, 120)
	}
	date := first[strings.LastIndex(first, " ")+1:]
	return "snapshot of " + strings.TrimSuffix(date, ":") + ": " + summarizePage(rest)
}

func summarizeFile(s string) string {
	n := utf8.RuneCountInString(s)
	if strings.Contains(s, "Read on with inspect_file(") {
		return fmt.Sprintf("%d characters (more to read)", n)
	}
	return fmt.Sprintf("%d characters", n)
}

// firstLine is s's first line, cut to max characters.
func firstLine(s string, max int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return cut(line, max)
}

// cut shortens s to at most max characters, marking the cut.
func cut(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "…"
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
