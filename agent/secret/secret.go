// Package secret owns what deskpilot keeps secret and the one filter every
// text leaving the agent passes: the values type_secret types (by name), the
// API keys, and the values read back from a field a secret was typed into.
// To the model, the trace, the report, the terminal, the app, exports,
// datasets and MCP peers, a Redactor replaces each of them, any run of
// FragmentLen characters of one, and the same reversed, by a placeholder:
// "[secret:NAME]" for a named secret, "[redacted]" for a key. It also says
// whether a request about to leave the machine carries one (Find,
// CheckRequest), so the request can be refused.
//
// The package is plain Go with no dependency on the rest of deskpilot: model
// transports (agent/llm), the trace writer, the CLI, the app and MCP all call
// the same Redactor.
package secret

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Redacted stands for a value that has no name (an API key).
const Redacted = "[redacted]"

// Placeholder is what stands for the secret called name wherever its value,
// or part of it, would show: "[secret:NAME]". Values read back from a field a
// secret was typed into are given to the model's code as this.
func Placeholder(name string) string { return placeholderStart + name + "]" }

const placeholderStart = "[secret:"

// MinLen is the shortest value kept secret (a 4-digit PIN is one). A shorter
// value, such as an API key of "x" for a local server, is no secret worth
// hiding, and replacing it everywhere would destroy the text around it.
const MinLen = 4

// FragmentLen is the length, in bytes, of the shortest run of a secret that
// is hidden wherever it occurs, inside longer words too: "AM_SECRET" read off
// a screen half-typed, or the secret joined to other text. A value shorter
// than this is hidden where it stands as a whole word only.
const FragmentLen = 6

// placeholderKeys are the API keys local servers are given because a client
// insists on one; they are documented, not secret, and common words.
func placeholderKeys() []string {
	return []string{"empty", "none", "null", "test", "dummy", "token", "secret", "password", "apikey",
		"api-key", "local", "ollama", "lm-studio", "lmstudio", "vllm", "sk-no-key-required", "no-key", "not-needed"}
}

// Worth reports whether v is kept secret: at least MinLen bytes and not a
// well-known placeholder key ("EMPTY", "ollama", ...).
func Worth(v string) bool {
	return len(v) >= MinLen && !slices.Contains(placeholderKeys(), strings.ToLower(v))
}

// entry is one value kept secret.
type entry struct {
	name string // "" for a key
	key  bool   // an API key: hidden, but sent where it belongs
}

// Redactor holds the values kept secret and replaces them in text. The zero
// value holds none and is ready to use; a Redactor is safe for concurrent use
// and must not be copied after first use. Values are only ever added.
type Redactor struct {
	mu      sync.RWMutex
	entries []entry
	values  map[string]int // every value added (and its reverse) -> entry
	grams   map[string]int // every FragmentLen-byte run of a long value or its reverse -> entry
	short   []shortValue   // values shorter than FragmentLen, longest first
	first   [1 << 10]uint64
}

// shortValue is a value matched as a whole word.
type shortValue struct {
	v     string
	entry int
}

// New returns a Redactor holding secrets (name -> value) and keys.
func New(secrets map[string]string, keys ...string) *Redactor {
	r := &Redactor{}
	r.AddSecrets(secrets)
	for _, k := range keys {
		r.AddKey(k)
	}
	return r
}

// AddSecrets adds the values type_secret types, by name.
func (r *Redactor) AddSecrets(secrets map[string]string) {
	names := make([]string, 0, len(secrets))
	for n := range secrets {
		names = append(names, n)
	}
	slices.Sort(names) // a value shared by two names gets the same one every run
	for _, n := range names {
		r.Add(n, secrets[n])
	}
}

// Add adds the value of the secret called name.
func (r *Redactor) Add(name, value string) { r.add(entry{name: name}, value) }

// AddReadBack adds a value read back from a field the secret called name was
// typed into (the field held text before, or its app changed the value): it
// is kept secret as the secret itself is. Bullets and the like, which stand
// for the value, are no secret.
func (r *Redactor) AddReadBack(name, value string) {
	if strings.TrimFunc(value, isMaskRune) == "" {
		return
	}
	r.add(entry{name: name}, value)
}

// AddKey adds an API key: hidden like a secret, shown as Redacted, and not
// refused in requests (a key is sent to its own endpoint).
func (r *Redactor) AddKey(value string) { r.add(entry{key: true}, value) }

func (r *Redactor) add(e entry, v string) {
	if !Worth(v) {
		return
	}
	rev := reverse(v)
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.values[v]; ok {
		if r.entries[i].key && !e.key {
			r.entries[i] = e // a value that is also a secret is refused when sent
		}
		return
	}
	if r.values == nil {
		r.values, r.grams = map[string]int{}, map[string]int{}
	}
	idx := len(r.entries)
	r.entries = append(r.entries, e)
	for _, s := range []string{v, rev} {
		r.values[s] = idx
		if len(s) < FragmentLen {
			if !slices.ContainsFunc(r.short, func(x shortValue) bool { return x.v == s }) {
				r.short = append(r.short, shortValue{v: s, entry: idx})
			}
			continue
		}
		for i := 0; i+FragmentLen <= len(s); i++ {
			g := s[i : i+FragmentLen]
			if old, ok := r.grams[g]; !ok || (r.entries[old].key && !e.key) {
				r.grams[g] = idx
			}
			p := prefix(g)
			r.first[p>>6] |= 1 << (p & 63)
		}
	}
	slices.SortStableFunc(r.short, func(a, b shortValue) int { return len(b.v) - len(a.v) })
}

// Empty reports whether r holds no value.
func (r *Redactor) Empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.entries) == 0
}

// Text returns s with every secret, key and read-back value replaced, each
// run of FragmentLen bytes of one (or of it reversed) too, by its
// placeholder; runs that touch are replaced by one placeholder. A nil
// Redactor returns s.
func (r *Redactor) Text(s string) string {
	if r == nil || s == "" {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.entries) == 0 {
		return s
	}
	sp := r.spans(s)
	if len(sp) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	at := 0
	for _, x := range sp {
		b.WriteString(s[at:x.start])
		b.WriteString(r.placeholder(x.entry))
		at = x.end
	}
	b.WriteString(s[at:])
	return b.String()
}

func (r *Redactor) placeholder(i int) string {
	if e := r.entries[i]; !e.key && e.name != "" {
		return Placeholder(e.name)
	}
	return Redacted
}

// span is a part of a text to replace: bytes [start, end) and the entry.
type span struct {
	start, end int
	entry      int
}

// spans finds what to replace in s, in order, merged where parts touch,
// widened to whole UTF-8 characters. r.mu is held.
func (r *Redactor) spans(s string) []span {
	var out []span
	addSpan := func(x span) {
		if n := len(out); n > 0 && x.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, x.end)
			return
		}
		out = append(out, x)
	}
	var shorts []span
	for _, sv := range r.short {
		shorts = appendWhole(shorts, s, sv)
	}
	slices.SortFunc(shorts, func(a, b span) int { return a.start - b.start })
	k := 0
	for i := 0; i+FragmentLen <= len(s); i++ {
		for k < len(shorts) && shorts[k].start <= i {
			addSpan(shorts[k])
			k++
		}
		p := prefix(s[i:])
		if r.first[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		if e, ok := r.grams[s[i:i+FragmentLen]]; ok {
			addSpan(span{start: i, end: i + FragmentLen, entry: e})
		}
	}
	for ; k < len(shorts); k++ {
		addSpan(shorts[k])
	}
	for i := range out {
		for out[i].start > 0 && !utf8.RuneStart(s[out[i].start]) {
			out[i].start--
		}
		for out[i].end < len(s) && !utf8.RuneStart(s[out[i].end]) {
			out[i].end++
		}
	}
	// Widening may make neighbours touch.
	merged := out[:0]
	for _, x := range out {
		if n := len(merged); n > 0 && x.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, x.end)
			continue
		}
		merged = append(merged, x)
	}
	return merged
}

// appendWhole appends the whole-word occurrences of sv in s.
func appendWhole(out []span, s string, sv shortValue) []span {
	for at := 0; ; {
		i := strings.Index(s[at:], sv.v)
		if i < 0 {
			return out
		}
		i += at
		end := i + len(sv.v)
		if !wordByte(s, i-1) && !wordByte(s, end) {
			out = append(out, span{start: i, end: end, entry: sv.entry})
		}
		at = end
	}
}

// wordByte reports whether s[i] exists and would continue a word.
func wordByte(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return false
	}
	c := s[i]
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// prefix is the first two bytes of s as a number, for the quick test of
// whether a fragment may start there.
func prefix(s string) uint32 { return uint32(s[0])<<8 | uint32(s[1]) }

// reverse returns s with its characters in reverse order.
func reverse(s string) string {
	rs := []rune(s)
	slices.Reverse(rs)
	return string(rs)
}

// isMaskRune reports the characters a field shows instead of what was typed
// into it (and spaces).
func isMaskRune(r rune) bool {
	switch r {
	case '•', '●', '*', '∙', '·', '⚫', '⬤', '○', ' ':
		return true
	}
	return false
}

// Masked reports whether s is only the characters a password field shows
// instead of its value (bullets, asterisks), and not empty.
func Masked(s string) bool {
	return s != "" && strings.TrimFunc(s, isMaskRune) == ""
}
