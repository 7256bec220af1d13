package wiring

import (
	"os"
	"strings"
	"testing"

	"deskpilot/agent"
	"deskpilot/internal/config"
)

func TestResearchToolsRefuseBadSearchConfig(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("DESKPILOT_TEST_SEARCH_KEY", "")
	tests := []struct {
		name string
		cfg  config.Settings
		want string
	}{
		{"brave without a key", config.Settings{SearchBackend: "brave", SearchKeyEnv: "DESKPILOT_TEST_SEARCH_KEY"},
			`web search: brave needs an API key; check search_backend, search_url and search_key_env (the environment variable holding the key, now "DESKPILOT_TEST_SEARCH_KEY")`},
		{"searxng without an address", config.Settings{SearchBackend: "searxng"}, "searxng needs the address of an instance"},
		{"unknown backend", config.Settings{SearchBackend: "altavista"}, `unknown backend "altavista"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Resolve(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			tools, err := researchTools(t.Context(), cfg, &agent.Agent{}, nil, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("tools %d, err %v; want an error containing %q", len(tools), err, tc.want)
			}
		})
	}
	tools, err := researchTools(t.Context(), config.Defaults(), &agent.Agent{}, nil, Options{})
	if err != nil || len(tools) != 8 {
		t.Errorf("default config: %d tools, %v; want the 8 research tools", len(tools), err)
	}
}

func TestEnvSecrets(t *testing.T) {
	got := EnvSecrets([]string{"DESKPILOT_SECRET_GITHUB=ghp_abc", "DESKPILOT_SECRET_=x", "DESKPILOT_SECRET_EMPTY=",
		"OTHER=1", "DESKPILOT_SECRET_Bank_PIN=4711"})
	if len(got) != 2 || got["github"] != "ghp_abc" || got["bank_pin"] != "4711" {
		t.Errorf("secrets %v", got)
	}
}

// The trace key is made once, private to the user, and read back the same;
// a key file others may read is refused.
func TestTraceKey(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	k1, err := TraceKey()
	if err != nil || len(k1) != 32 {
		t.Fatalf("%x %v", k1, err)
	}
	st, err := os.Stat(traceKeyFile())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v", st, err)
	}
	if k2, err := TraceKey(); err != nil || string(k2) != string(k1) {
		t.Errorf("read again: %x %v", k2, err)
	}
	if err := os.Chmod(traceKeyFile(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := TraceKey(); err == nil || !strings.Contains(err.Error(), "may be read by others") {
		t.Errorf("a readable key: %v", err)
	}
}
