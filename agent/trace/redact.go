package trace

import "deskpilot/agent/secret"

// Redacted replaces every secret the Writer was given.
const Redacted = secret.Redacted

// MinSecretLen is the shortest value redacted as a secret (secret.MinLen).
const MinSecretLen = secret.MinLen

// Redact replaces each secret in s, and every run of secret.FragmentLen
// characters of one (or of it reversed), with Redacted; a value shorter than
// that only where it stands as a whole word. Values too short to be secrets
// and well-known placeholder keys ("EMPTY", "ollama", ...) are left alone. It
// is secret.Redactor's Text for values without names.
func Redact(s string, secrets ...string) string {
	return secret.New(nil, secrets...).Text(s)
}

// redactor replaces secrets in the string fields of events: the agent's
// secret.Redactor (WithRedactor), or one of the Writer's own. The zero value
// redacts nothing.
type redactor struct {
	r    *secret.Redactor
	keys []string // the values add was given, for use
}

// add registers values without names.
func (d *redactor) add(secrets ...string) {
	if d.r == nil {
		d.r = &secret.Redactor{}
	}
	for _, s := range secrets {
		d.r.AddKey(s)
	}
	d.keys = append(d.keys, secrets...)
}

// use makes d redact with r, keeping the values added so far.
func (d *redactor) use(r *secret.Redactor) {
	d.r = r
	for _, k := range d.keys {
		r.AddKey(k)
	}
}

// str redacts one string.
func (d *redactor) str(s string) string { return d.r.Text(s) }

// event returns a copy of e with every string field redacted. The copy shares no
// pointer or slice with e, so the Writer may adjust it freely.
func (d *redactor) event(e Event) Event {
	s := d.str
	e.Task, e.Model, e.BaseURL, e.CoordMode, e.Dialect = s(e.Task), s(e.Model), s(e.BaseURL), s(e.CoordMode), s(e.Dialect)
	e.Continues, e.ContinuesSig = s(e.Continues), s(e.ContinuesSig)
	e.AppVersion, e.HostOS = s(e.AppVersion), s(e.HostOS)
	e.Text, e.Error, e.Code = s(e.Text), s(e.Error), s(e.Code)
	e.Frame, e.ModelFrame, e.Reason, e.Source = s(e.Frame), s(e.ModelFrame), s(e.Reason), s(e.Source)
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
