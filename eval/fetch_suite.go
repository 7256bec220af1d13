//go:build linux

package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"deskpilot/eval/checks"
)

// URLs lists the inputs t downloads, each once, in the order the task needs
// them: its config steps' (download, update_browse_history), then its
// evaluator's postconfig steps' and cloud_file getters'.
func (t *Task) URLs() []string {
	if t.os == nil {
		return nil
	}
	var out []string
	add := func(us ...string) {
		for _, u := range us {
			if !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	for _, s := range t.os.config {
		add(s.stepURLs()...)
	}
	for _, s := range t.os.eval.post {
		add(s.stepURLs()...)
	}
	for _, gs := range [][]*getter{t.os.eval.result, t.os.eval.expected} {
		for _, g := range gs {
			if g != nil {
				add(checks.CloudURLs(g.config())...)
			}
		}
	}
	return out
}

// FetchReport is what FetchSuite did.
type FetchReport struct {
	// URLs is how many distinct inputs the suite's tasks need.
	URLs int
	// Cached counts those already in the cache (checked against their
	// SHA-256), Fetched those downloaded now.
	Cached, Fetched int
	// Failed maps each URL that could not be downloaded to why.
	Failed map[string]error
	// Tasks is how many tasks need at least one input.
	Tasks int
}

// FetchSuite downloads every input of s's tasks into c once: inputs already
// cached (and whose content still has its recorded SHA-256) are kept, partial
// ones resumed, damaged ones fetched again. done is called after each URL
// (err nil when it is cached now); it may be nil. An error is returned only
// when ctx ends; failed URLs are in the report.
func FetchSuite(ctx context.Context, s *Suite, c *Inputs, done func(url string, err error)) (FetchReport, error) {
	r := FetchReport{Failed: map[string]error{}}
	var urls []string
	for _, t := range s.Tasks {
		us := t.URLs()
		if len(us) > 0 {
			r.Tasks++
		}
		for _, u := range us {
			if !slices.Contains(urls, u) {
				urls = append(urls, u)
			}
		}
	}
	r.URLs = len(urls)
	for _, u := range urls {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		var err error
		switch {
		case c.Cached(u) && c.Verify(u) == nil:
			r.Cached++
		default:
			c.forget(u)
			if err = c.Fetch(ctx, u); err == nil {
				r.Fetched++
			} else if !errors.Is(err, context.Canceled) {
				r.Failed[u] = err
			}
		}
		if done != nil {
			done(u, err)
		}
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("eval fetch: %w", ctx.Err())
	}
	return r, nil
}
