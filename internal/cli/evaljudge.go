//go:build linux

package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"deskpilot/eval"
	"deskpilot/eval/judge"
	"deskpilot/internal/config"
	"deskpilot/internal/wiring"
)

// judgeFlags are the flags of `deskpilot eval --select judge`: the judge's
// model, configured like the agent's (its endpoint, wire format and key).
type judgeFlags struct {
	selection                string // --select: first or judge
	model, baseURL, provider string
	apiKeyEnv                string
}

// judgeFor returns the eval.Judge the flags ask for (nil with --select
// first), its key (to keep out of every output) and its name; cfg is the
// agent's configuration, whose endpoint, model and key are the judge's
// defaults. A bad flag is an error.
func (f *judgeFlags) judgeFor(cfg config.Config, attempts int) (eval.Judge, string, error) {
	switch f.selection {
	case "", eval.SelectFirst:
		if f.model != "" || f.baseURL != "" || f.provider != "" || f.apiKeyEnv != "" {
			return nil, "", errors.New("--judge-* flags configure the judge of --select judge")
		}
		return nil, "", nil
	case eval.SelectJudge:
	default:
		return nil, "", fmt.Errorf("--select %q: want first or judge", f.selection)
	}
	if attempts < 2 {
		return nil, "", errors.New("--select judge picks among attempts: give --attempts 2 or more")
	}
	jc := cfg
	jc.BaseURL, jc.Model = cfg.BaseURL, cfg.Model
	if f.baseURL != "" {
		jc.BaseURL = strings.TrimRight(f.baseURL, "/")
	}
	if f.model != "" {
		jc.Model = f.model
	}
	same := jc.BaseURL == strings.TrimRight(cfg.BaseURL, "/")
	prov := f.provider
	if prov == "" && same {
		prov = cfg.Provider
	}
	var err error
	if jc.Provider, err = judge.Provider(prov, jc.BaseURL); err != nil {
		return nil, "", fmt.Errorf("--judge-provider: %w", err)
	}
	// The agent's key goes only to the agent's endpoint, as the grounder's does.
	keyEnv := f.apiKeyEnv
	if keyEnv == "" && same {
		keyEnv = cfg.APIKeyEnv
	}
	jc.APIKeyEnv = keyEnv
	key := jc.APIKey(nil)
	j := &judge.Judge{Model: wiring.Model(jc, key), Name: jc.Model}
	return func(ctx context.Context, job eval.JudgeJob) (eval.Pick, error) {
		var as []judge.Attempt
		for _, a := range job.Attempts {
			as = append(as, judge.Attempt{N: a.Attempt, Trace: a.Trace, Answer: a.Answer, Exit: a.Exit, Error: a.Error})
		}
		p, err := j.Choose(ctx, job.Instruction, as, job.TraceDir)
		return eval.Pick{Attempt: p.Attempt, Reason: p.Reason, Trace: job.TraceDir}, err
	}, key, nil
}
