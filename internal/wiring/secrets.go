package wiring

import (
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
