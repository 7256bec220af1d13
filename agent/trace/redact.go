package trace

import (
	"slices"
	"strings"
)

// Redacted replaces every secret the Writer was given.
const Redacted = "[redacted]"

// redactor replaces secrets in the string fields of events. The zero value redacts
// nothing. Not safe for concurrent use; the Writer guards it.
type redactor struct {
	secrets []string
	r       *strings.Replacer
}

// add registers secrets; the longest match wins where secrets overlap.
func (d *redactor) add(secrets ...string) {
	for _, s := range secrets {
		if s != "" && !slices.Contains(d.secrets, s) {
			d.secrets = append(d.secrets, s)
		}
	}
	if len(d.secrets) == 0 {
		return
	}
	// strings.Replacer tries old strings in argument order at each position.
	slices.SortFunc(d.secrets, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(d.secrets))
	for _, s := range d.secrets {
		pairs = append(pairs, s, Redacted)
	}
	d.r = strings.NewReplacer(pairs...)
}

// str redacts one string.
func (d *redactor) str(s string) string {
	if d.r == nil || s == "" {
		return s
	}
	return d.r.Replace(s)
}

// event returns a copy of e with every string field redacted. The copy shares no
// pointer or slice with e, so the Writer may adjust it freely.
func (d *redactor) event(e Event) Event {
	s := d.str
	e.Task, e.Model, e.BaseURL, e.CoordMode = s(e.Task), s(e.Model), s(e.BaseURL), s(e.CoordMode)
	e.AppVersion, e.HostOS = s(e.AppVersion), s(e.HostOS)
	e.Text, e.Error, e.Code = s(e.Text), s(e.Error), s(e.Code)
	e.Frame, e.ModelFrame, e.Reason = s(e.Frame), s(e.ModelFrame), s(e.Reason)
	e.Answer, e.Outcome = s(e.Answer), s(e.Outcome)
	if e.Attachments != nil {
		att := make([]string, len(e.Attachments))
		for i, a := range e.Attachments {
			att[i] = s(a)
		}
		e.Attachments = att
	}
	if e.Screen != nil {
		r := *e.Screen
		e.Screen = &r
	}
	if e.Image != nil {
		z := *e.Image
		e.Image = &z
	}
	if e.Usage != nil {
		u := *e.Usage
		e.Usage = &u
	}
	if e.Action != nil {
		a := *e.Action
		a.Name, a.Args, a.Result, a.Error = s(a.Name), s(a.Args), s(a.Result), s(a.Error)
		e.Action = &a
	}
	return e
}
