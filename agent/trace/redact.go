package trace

import (
	"slices"
	"strings"
)

// Redacted replaces every secret the Writer was given.
const Redacted = "[redacted]"

// MinSecretLen is the shortest value redacted as a secret (a 4-digit PIN is
// one). A shorter value, such as an API key of "x" for a local server, is no
// secret worth hiding, and replacing it everywhere would destroy the text around it.
const MinSecretLen = 4

// placeholderKeys are the API keys local servers are given because a client
// insists on one; they are documented, not secret, and common words.
func placeholderKeys() []string {
	return []string{"empty", "none", "null", "test", "dummy", "token", "secret", "password", "apikey",
		"api-key", "local", "ollama", "lm-studio", "lmstudio", "vllm", "sk-no-key-required", "no-key", "not-needed"}
}

// isSecret reports whether v is worth redacting: long enough and not a
// well-known placeholder.
func isSecret(v string) bool {
	return len(v) >= MinSecretLen && !slices.Contains(placeholderKeys(), strings.ToLower(v))
}

// anywhereLen is the length from which a secret is redacted wherever it occurs,
// even inside a longer token (after an escape like \a in code): no ordinary
// text holds 16 characters of an API key by chance.
const anywhereLen = 16

// Redact replaces each secret in s: one of anywhereLen characters or more
// wherever it occurs, a shorter one only where it stands as a whole token (not
// run on into letters, digits, "_" or "-"). Values too short to be secrets and
// well-known placeholder keys ("EMPTY", "ollama", ...) are left alone; the
// longest secret wins where secrets overlap.
func Redact(s string, secrets ...string) string {
	var d redactor
	d.add(secrets...)
	return d.str(s)
}

// redactor replaces secrets in the string fields of events. The zero value redacts
// nothing. Not safe for concurrent use; the Writer guards it.
type redactor struct {
	secrets []string // longest first
}

// add registers secrets.
func (d *redactor) add(secrets ...string) {
	for _, s := range secrets {
		if isSecret(s) && !slices.Contains(d.secrets, s) {
			d.secrets = append(d.secrets, s)
		}
	}
	slices.SortFunc(d.secrets, func(a, b string) int { return len(b) - len(a) })
}

// str redacts one string.
func (d *redactor) str(s string) string {
	for _, sec := range d.secrets {
		switch {
		case !strings.Contains(s, sec):
		case len(sec) >= anywhereLen:
			s = strings.ReplaceAll(s, sec, Redacted)
		default:
			s = replaceWhole(s, sec)
		}
	}
	return s
}

// replaceWhole replaces the whole-word occurrences of sec in s with Redacted.
func replaceWhole(s, sec string) string {
	var b strings.Builder
	at := 0
	for {
		i := strings.Index(s[at:], sec)
		if i < 0 {
			break
		}
		i += at
		end := i + len(sec)
		if !wordByte(s, i-1) && !wordByte(s, end) {
			b.WriteString(s[at:i])
			b.WriteString(Redacted)
		} else {
			b.WriteString(s[at:end])
		}
		at = end
	}
	if at == 0 {
		return s
	}
	b.WriteString(s[at:])
	return b.String()
}

// wordByte reports whether s[i] exists and would continue a token.
func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// event returns a copy of e with every string field redacted. The copy shares no
// pointer or slice with e, so the Writer may adjust it freely.
func (d *redactor) event(e Event) Event {
	s := d.str
	e.Task, e.Model, e.BaseURL, e.CoordMode = s(e.Task), s(e.Model), s(e.BaseURL), s(e.CoordMode)
	e.Continues = s(e.Continues)
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
