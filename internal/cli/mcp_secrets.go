package cli

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"deskpilot/app"
	"deskpilot/internal/config"
	"deskpilot/internal/mcptools"
	"deskpilot/internal/wiring"
)

// keyringSecretAccount prefixes the keyring account of a secret the app
// stores, and keyringSecretNames is the account listing their names.
const (
	keyringSecretAccount = app.SecretAccount
	keyringSecretNames   = app.SecretNamesAccount
)

// withMCPSecrets adds to o.Secrets the secrets cfg's MCP servers name
// ("${name}" in env, url, headers) that neither the environment
// (DESKPILOT_SECRET_<NAME>) nor o.Secrets holds, read from the OS keyring
// where the app keeps them, so `deskpilot run` and `deskpilot mcp` reach the
// same servers as the app. They join the run's secrets, so they are
// redacted like any other. A name the keyring lacks, or no keyring, is left
// out: the server then fails with its one line, saying which secret is
// missing. get is the keyring's Get (osKeyring.Get).
//
// The secrets the app stores for type_secret (their names listed under
// keyringSecretNames) are read the same way, so type_secret("github") in
// `deskpilot run` types what Settings, Secrets holds.
func withMCPSecrets(cfg config.Config, o wiring.Options, get func(account string) (string, error)) map[string]string {
	names := mcptools.SecretNames(cfg.MCP.Servers)
	if hasSessionBus() {
		if list, err := get(keyringSecretNames); err == nil {
			for _, n := range strings.Split(list, "\n") {
				if n = strings.TrimSpace(n); app.ValidSecretName(n) && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	if len(names) == 0 {
		return o.Secrets
	}
	environ := os.Environ
	if o.Environ != nil {
		environ = o.Environ
	}
	env := wiring.EnvSecrets(environ())
	var out map[string]string
	for _, n := range names {
		if _, ok := env[n]; ok {
			continue
		}
		if _, ok := o.Secrets[n]; ok || !hasSessionBus() {
			continue
		}
		v, err := get(keyringSecretAccount + n)
		if err != nil || v == "" {
			continue
		}
		if out == nil {
			out = maps.Clone(o.Secrets)
			if out == nil {
				out = map[string]string{}
			}
		}
		out[n] = v
	}
	if out == nil {
		return o.Secrets
	}
	return out
}

// hasSessionBus reports whether a D-Bus session bus is there to ask the
// keyring on. Without one the D-Bus library would start a bus of its own
// (dbus-launch) just to find no keyring on it.
func hasSessionBus() bool {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	rt := os.Getenv("XDG_RUNTIME_DIR")
	if rt == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(rt, "bus"))
	return err == nil
}
