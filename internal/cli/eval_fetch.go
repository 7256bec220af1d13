//go:build linux

package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"deskpilot/eval"
)

// inputsFor is the download cache of `deskpilot eval`: with --cache DIR that
// folder, read only (a task whose input is missing there is reported not
// cached, never downloaded); without it the user's cache folder, filled as
// tasks need.
func inputsFor(dir string) (*eval.Inputs, error) {
	if dir != "" {
		return &eval.Inputs{Dir: dir, Offline: true}, nil
	}
	d, err := eval.DefaultInputsDir()
	if err != nil {
		return nil, err
	}
	return &eval.Inputs{Dir: d}, nil
}

// newEvalFetchCmd is `deskpilot eval fetch SUITE [--cache DIR]`.
func newEvalFetchCmd() *cobra.Command {
	var cache string
	var mirrors []string
	cmd := &cobra.Command{
		Use:   "fetch SUITE",
		Short: "Download every file a suite's tasks need into the inputs cache, once",
		Long: `Download every input of SUITE's tasks (OSWorld's download steps, cloud_file
getters, update_browse_history's database) into the cache folder: --cache DIR, or
the user's cache folder (~/.cache/deskpilot/inputs). Inputs already there and whole
(their SHA-256 as recorded) are kept, partial downloads resumed, damaged ones
fetched again. Each URL that fails is named with its error; the exit code is then 1.
'deskpilot eval SUITE --cache DIR' afterwards reads the inputs from DIR and never
from the network, so a cluster fetches once to a volume that every pod mounts.
--mirror FROM=TO fetches each URL starting with FROM from TO instead (the rest of
the URL appended), keyed in the cache by the task's URL all the same.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runEvalFetch(cmd, args[0], cache, mirrors)
		},
	}
	cmd.Flags().StringVar(&cache, "cache", "", "the inputs cache folder (default: ~/.cache/deskpilot/inputs)")
	cmd.Flags().StringArrayVar(&mirrors, "mirror", nil, "FROM=TO: fetch URLs starting with FROM from TO (repeatable; the first match wins)")
	return cmd
}

func runEvalFetch(cmd *cobra.Command, suitePath, cache string, mirrors []string) error {
	s, err := eval.Load(suitePath)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	in, err := inputsFor(cache)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	for _, m := range mirrors {
		mm, err := eval.ParseMirror(m)
		if err != nil {
			return &exitError{exitUsage, fmt.Errorf("eval fetch: %w", err)}
		}
		in.Mirrors = append(in.Mirrors, mm)
	}
	in.Offline = false
	if cache == "" {
		cache = in.Dir
	}
	stderr := cmd.ErrOrStderr()
	bar := newFetchBar(stderr)
	in.Progress = bar.progress
	n := 0
	rep, err := eval.FetchSuite(cmd.Context(), s, in, func(url string, ferr error) {
		n++
		bar.done(n, url, ferr)
	})
	bar.clear()
	failed := make([]string, 0, len(rep.Failed))
	for u := range rep.Failed {
		failed = append(failed, u)
	}
	sort.Strings(failed)
	for _, u := range failed {
		fmt.Fprintf(stderr, "eval fetch: failed: %v\n", rep.Failed[u])
	}
	fmt.Fprintf(stderr, "eval fetch: %s: %d tasks need %d inputs: %d were cached, %d fetched, %d failed; cache %s\n",
		s.Name, rep.Tasks, rep.URLs, rep.Cached, rep.Fetched, len(rep.Failed), cache)
	switch {
	case err != nil:
		return &exitError{exitInterrupted, err}
	case len(rep.Failed) > 0:
		return &exitError{exitFailed, fmt.Errorf("%d of %d inputs could not be downloaded", len(rep.Failed), rep.URLs)}
	}
	return nil
}

// fetchBar shows downloads: on a terminal one bar redrawn in place, else one
// line per finished URL.
type fetchBar struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	width int
}

func newFetchBar(w io.Writer) *fetchBar {
	b := &fetchBar{w: w, width: 80}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		b.tty = true
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 40 {
			b.width = cols
		}
	}
	return b
}

// progress redraws the bar of the download in flight (terminal only).
func (b *fetchBar) progress(url string, done, total int64) {
	if !b.tty {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprint(b.w, "\r\x1b[K"+barLine(url, done, total, b.width))
}

// done notes a finished URL.
func (b *fetchBar) done(n int, url string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	status := "ok"
	if err != nil {
		status = "FAILED"
	}
	if b.tty {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
	fmt.Fprintf(b.w, "eval fetch: [%d] %s %s\n", n, status, url)
}

func (b *fetchBar) clear() {
	if b.tty {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}

// barLine renders "[#####     ]  42% 12.0/28.5 MB url" in width columns; an
// unknown total shows the bytes so far.
func barLine(url string, done, total int64, width int) string {
	const cells = 24
	mb := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }
	var head string
	if total > 0 {
		f := min(float64(done)/float64(total), 1)
		filled := int(f * cells)
		head = fmt.Sprintf("[%s%s] %3.0f%% %s/%s MB ", strings.Repeat("#", filled), strings.Repeat(" ", cells-filled), f*100, mb(done), mb(total))
	} else {
		head = fmt.Sprintf("[%s] %s MB ", strings.Repeat("?", cells), mb(done))
	}
	room := width - len(head) - 1
	if room < 8 {
		return head
	}
	if len(url) > room {
		url = "…" + url[len(url)-room+1:]
	}
	return head + url
}
