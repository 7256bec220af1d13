package wiring

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"deskpilot/internal/config"
)

// keyVariables are the environment variables cfg names as holding API keys:
// programs the agent launches never get them, whatever their names.
func keyVariables(cfg config.Config) []string {
	var out []string
	for _, k := range []string{cfg.APIKeyEnv, cfg.SearchKeyEnv, cfg.Grounder.APIKeyEnv} {
		if k != "" && k != config.NoKey && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// secretValues reports whether an environment variable's value is one of
// the run's secrets or keys, or holds one of 16 characters or more: such a
// variable is left out of launched programs' environment, whatever its name.
func secretValues(cfg config.Config, o Options) func(string) bool {
	var values []string
	for _, v := range mergeSecrets(EnvSecrets(o.environ()), o.Secrets) {
		values = append(values, v)
	}
	values = append(values, o.APIKey)
	for _, k := range keyVariables(cfg) {
		values = append(values, o.lookup(k))
	}
	values = slices.DeleteFunc(values, func(v string) bool { return len(v) < 4 })
	return func(v string) bool {
		return slices.ContainsFunc(values, func(s string) bool { return v == s || len(s) >= 16 && strings.Contains(v, s) })
	}
}

// traceKeyFile is where the user's trace key is kept: next to the traces,
// in the data folder, readable by the user alone.
func traceKeyFile() string { return filepath.Join(config.DataHome(), "deskpilot", "trace.key") }

// TraceKey returns the user's key that signs the links of follow-up chains
// (agent.Agent.TraceKey), made on first use: 32 random bytes in a file of
// mode 0600 in $XDG_DATA_HOME/deskpilot. A key file others may read is
// refused (and no key is used): anyone who can read it can forge a link.
func TraceKey() ([]byte, error) {
	path := traceKeyFile()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key, err := makeTraceKey(path)
		if !errors.Is(err, fs.ErrExist) {
			return key, err
		}
		data, err = os.ReadFile(path) // another process made it meanwhile: read that one
		if err != nil {
			return nil, fmt.Errorf("trace key: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("trace key: %w", err)
	}
	if st, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("trace key: %s may be read by others (mode %o); make it 0600", path, st.Mode().Perm())
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("trace key: %s is not a key", path)
	}
	return key, nil
}

// makeTraceKey writes a new key to path, which must not exist (else an error
// wrapping fs.ErrExist).
func makeTraceKey(path string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("trace key: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("trace key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("trace key: %w", err)
	}
	_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	if err = errors.Join(err, f.Close()); err != nil {
		return nil, fmt.Errorf("trace key: %w", err)
	}
	return key, nil
}
