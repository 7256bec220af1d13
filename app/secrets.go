package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"deskpilot/internal/config"
)

// ErrNoSecret is what Secrets.Get wraps when the keyring has no such entry.
var ErrNoSecret = errors.New("no such entry in the keyring")

// The keyring accounts of type_secret values. API keys use the name of their
// environment variable as the account; these contain characters such a name
// cannot, so the two never meet.
const (
	secretNamesAccount = "deskpilot:secret-names" // the names, one a line
	secretAccount      = "deskpilot:secret:"      // + name: the value
)

// SecretNamesAccount and SecretAccount are those accounts for the command
// line, which reads the same keyring.
const (
	SecretNamesAccount = secretNamesAccount
	SecretAccount      = secretAccount
)

// ValidSecretName reports whether n can name a stored secret.
func ValidSecretName(n string) bool { return checkSecretName(n) == nil }

// secretEnvPrefix starts the environment variables that hold type_secret
// values (DESKPILOT_SECRET_GITHUB=… is "github"); the runner reads them.
const secretEnvPrefix = "DESKPILOT_SECRET_"

// maxSecretBytes bounds a stored value (the Windows credential store takes 2.5 KiB).
const maxSecretBytes = 2048

// secretStore keeps the values type_secret may type in the keyring: each
// under its own account, and the list of names under another (keyrings cannot
// list their entries portably).
type secretStore struct{ s Secrets }

// names lists the stored names, sorted.
func (st secretStore) names() ([]string, error) {
	v, err := st.s.Get(secretNamesAccount)
	if errors.Is(err, ErrNoSecret) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the list of secrets from the keyring: %w", err)
	}
	var out []string
	for _, n := range strings.Split(v, "\n") {
		if n = strings.TrimSpace(n); checkSecretName(n) == nil && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// all returns the stored values by name; a name whose value is gone is left out.
func (st secretStore) all() (map[string]string, error) {
	names, err := st.names()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(names))
	for _, n := range names {
		v, err := st.s.Get(secretAccount + n)
		switch {
		case errors.Is(err, ErrNoSecret):
		case err != nil:
			return nil, fmt.Errorf("read secret %q from the keyring: %w", n, err)
		default:
			out[n] = v
		}
	}
	return out, nil
}

// set stores value under name, replacing an older value.
func (st secretStore) set(name, value string) error {
	if err := checkSecretName(name); err != nil {
		return err
	}
	switch {
	case value == "":
		return fmt.Errorf("secret %q: the value is empty", name)
	case len(value) > maxSecretBytes:
		return fmt.Errorf("secret %q: the value is longer than %d bytes", name, maxSecretBytes)
	case !utf8.ValidString(value):
		return fmt.Errorf("secret %q: the value is not text (UTF-8)", name)
	}
	names, err := st.names()
	if err != nil {
		return err
	}
	if err := st.s.Set(secretAccount+name, value); err != nil {
		return fmt.Errorf("store secret %q in the keyring: %w", name, err)
	}
	if slices.Contains(names, name) {
		return nil
	}
	return st.saveNames(append(names, name))
}

// remove deletes name and its value.
func (st secretStore) remove(name string) error {
	names, err := st.names()
	if err != nil {
		return err
	}
	if err := st.s.Delete(secretAccount + name); err != nil && !errors.Is(err, ErrNoSecret) {
		return fmt.Errorf("remove secret %q from the keyring: %w", name, err)
	}
	return st.saveNames(slices.DeleteFunc(names, func(n string) bool { return n == name }))
}

func (st secretStore) saveNames(names []string) error {
	slices.Sort(names)
	if err := st.s.Set(secretNamesAccount, strings.Join(names, "\n")); err != nil {
		return fmt.Errorf("save the list of secrets in the keyring: %w", err)
	}
	return nil
}

// checkSecretName accepts what type_secret("name") can name and an
// environment variable can carry: a lower-case letter, then lower-case
// letters, digits and _, at most 64.
func checkSecretName(n string) error {
	ok := n != "" && len(n) <= 64 && n[0] >= 'a' && n[0] <= 'z'
	for i := 0; ok && i < len(n); i++ {
		c := n[i]
		ok = c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
	}
	if !ok {
		return fmt.Errorf("secret name %q: use lower-case letters, digits and _, starting with a letter (e.g. github_password)", clipName(n))
	}
	return nil
}

// clipName shortens a rejected name for an error message.
func clipName(n string) string {
	if r := []rune(n); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return n
}

// envSecretNames lists the type_secret names the environment provides, sorted.
func envSecretNames(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && v != "" && strings.HasPrefix(k, secretEnvPrefix) && len(k) > len(secretEnvPrefix) {
			out = append(out, strings.ToLower(strings.TrimPrefix(k, secretEnvPrefix)))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// keys resolves what a run of cfg gets: the API key, and the keyring's
// type_secret values except those the environment sets (the environment wins,
// as it does for the API key).
func (u *UI) keys(cfg config.Config) (Keys, error) {
	k := Keys{APIKey: u.apiKey(cfg)}
	if u.deps.Secrets == nil {
		return k, nil
	}
	all, err := secretStore{u.deps.Secrets}.all()
	if err != nil {
		return k, err
	}
	for _, n := range envSecretNames(u.environ()) {
		delete(all, n)
	}
	if len(all) > 0 {
		k.Secrets = all
	}
	return k, nil
}
