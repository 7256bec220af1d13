//go:build linux

package eval

import (
	"errors"
	"math"
	"sort"

	"deskpilot/eval/checks"
	"deskpilot/eval/gdrive"
)

// The values of Result.Status: why a task reached no verdict.
const (
	// StatusUnsupported: the task needs a part this harness lacks or cannot
	// have here (a metric that is pending).
	StatusUnsupported = "unsupported"
	// StatusNotCached: an input the task downloads is not in the cache.
	StatusNotCached = "not_cached"
	// StatusNotInstalled: the task starts an app this machine lacks (VS Code).
	StatusNotInstalled = "not_installed"
	// StatusNeedsNetwork: the task's setup opens a web page on the
	// internet and its box is offline (no --task-network host).
	StatusNeedsNetwork = "needs_network"
	// StatusNeedsCredentials: the task uses its author's Google account
	// (googledrive, login, googledrive_file) and the settings or
	// credentials files it names are not there, or the saved credentials
	// no longer sign in (revoked, no refresh token).
	StatusNeedsCredentials = "needs_credentials"
	// StatusInvalid: the task file is malformed.
	StatusInvalid = "invalid"
)

// statusOf is the Result.Status an error that stopped a task gives.
func statusOf(err error) string {
	var u *UnsupportedError
	var nc *NotCachedError
	var ni *NotInstalledError
	var nn *NeedsNetworkError
	var nc2 *NeedsCredentialsError
	var te *TaskError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &nc), errors.Is(err, checks.ErrNotCached):
		return StatusNotCached
	case errors.As(err, &ni):
		return StatusNotInstalled
	case errors.As(err, &nn):
		return StatusNeedsNetwork
	case errors.As(err, &nc2), errors.Is(err, gdrive.ErrCredentials):
		return StatusNeedsCredentials
	case errors.As(err, &u), errors.Is(err, checks.ErrUnavailable):
		return StatusUnsupported
	case errors.As(err, &te):
		return StatusInvalid
	}
	return ""
}

// Stats is a success rate as OSWorld reports it: the mean of the tasks'
// scores (a fractional score counts as its fraction), over the tasks that
// reached a verdict and over all tasks, with those that could not run counted
// apart (never as passes).
type Stats struct {
	// Tasks is the number of tasks (of the domain, or all).
	Tasks int `json:"tasks"`
	// Finished counts the tasks with a result so far.
	Finished int `json:"finished"`
	// Attempted counts those that reached a verdict (Status "").
	Attempted int `json:"attempted"`
	// Passed counts those with score 1.
	Passed int `json:"passed"`
	// Score is the sum of the attempted tasks' scores.
	Score float64 `json:"score"`
	// SuccessAttempted is Score / Attempted; SuccessAll is Score / Tasks
	// (what OSWorld's leaderboard shows); each in [0, 1], 0 when undefined.
	SuccessAttempted float64 `json:"success_attempted"`
	SuccessAll       float64 `json:"success_all"`
	// Unsupported, NotCached, NotInstalled, NeedsNetwork and Invalid count
	// the tasks stopped for each reason.
	Unsupported  int `json:"unsupported"`
	NotCached    int `json:"not_cached"`
	NotInstalled int `json:"not_installed"`
	NeedsNetwork int `json:"needs_network"`
	Invalid      int `json:"invalid"`

	// NeedsCredentials counts the tasks stopped for Google credentials
	// that were not given.
	NeedsCredentials int `json:"needs_credentials"`
}

func (s *Stats) add(r Result) {
	s.Finished++
	switch r.Status {
	case StatusUnsupported:
		s.Unsupported++
	case StatusNotCached:
		s.NotCached++
	case StatusNotInstalled:
		s.NotInstalled++
	case StatusNeedsNetwork:
		s.NeedsNetwork++
	case StatusNeedsCredentials:
		s.NeedsCredentials++
	case StatusInvalid:
		s.Invalid++
	default:
		s.Attempted++
		s.Score += r.Score
		if r.Correct {
			s.Passed++
		}
	}
}

func (s *Stats) finish() {
	s.Score = math.Round(s.Score*1e6) / 1e6
	if s.Attempted > 0 {
		s.SuccessAttempted = math.Round(s.Score/float64(s.Attempted)*1e4) / 1e4
	}
	if s.Tasks > 0 {
		s.SuccessAll = math.Round(s.Score/float64(s.Tasks)*1e4) / 1e4
	}
}

// stats sums results overall (of tasks tasks) and per domain (domains gives
// each domain's number of tasks; results of tasks with no domain count only
// overall). Domains is nil when no result has a domain.
func stats(results []Result, tasks int, domains map[string]int) (*Stats, map[string]*Stats) {
	all := &Stats{Tasks: tasks}
	var per map[string]*Stats
	for _, r := range results {
		all.add(r)
		if r.Domain == "" {
			continue
		}
		if per == nil {
			per = map[string]*Stats{}
		}
		d := per[r.Domain]
		if d == nil {
			d = &Stats{Tasks: domains[r.Domain]}
			per[r.Domain] = d
		}
		d.add(r)
	}
	all.finish()
	for name, n := range domains {
		if per == nil {
			per = map[string]*Stats{}
		}
		if per[name] == nil {
			per[name] = &Stats{Tasks: n}
		}
	}
	for _, d := range per {
		d.Tasks = max(d.Tasks, d.Finished)
		d.finish()
	}
	return all, per
}

// DomainNames returns the domains of a summary, sorted.
func (s Summary) DomainNames() []string {
	out := make([]string, 0, len(s.Domains))
	for d := range s.Domains {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
