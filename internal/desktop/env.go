package desktop

import (
	"slices"
	"strings"
)

// CleanEnv returns env ("K=V" entries) without the variables that hold
// credentials, for the programs the agent starts (launch, open_url, an
// evaluation's tasks): a name with a part KEY, TOKEN, SECRET, PASSWORD,
// PASSWD, CREDENTIALS or APIKEY (OPENAI_API_KEY, GITHUB_TOKEN,
// DESKPILOT_SECRET_GITHUB), SSH_AUTH_SOCK, the names in drop (the variables
// the config names as holding keys), and every variable whose value holds a
// secret (secret reports that). The names in pass stay whatever they look
// like (config pass_env); the rest of env is kept in order.
func CleanEnv(env, pass, drop []string, secret func(value string) bool) []string {
	out := env[:0:0]
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains(pass, k):
		case CredentialName(k), slices.Contains(drop, k), secret != nil && secret(v):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// CredentialName reports whether an environment variable's name says it
// holds a credential (CleanEnv).
func CredentialName(name string) bool {
	if name == "SSH_AUTH_SOCK" {
		return true
	}
	for _, part := range strings.Split(strings.ToUpper(name), "_") {
		switch part {
		case "KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIALS", "APIKEY":
			return true
		}
	}
	return false
}
