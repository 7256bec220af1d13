package app

import (
	"deskpilot/internal/config"

	"context"

	"deskpilot/agent"
)

// Runner starts agent runs. main passes an adapter over agent.Agent.
type Runner interface {
	// Start begins a run of task with cfg in the background and returns at once.
	// apiKey is the key the app resolved (environment variable named by
	// cfg.APIKeyEnv first, then the keyring); "" when none. The run reports
	// through h; h.Event is called from the run's goroutine.
	Start(task string, cfg config.Config, apiKey string, h agent.Hooks) (Run, error)
}

// Run is one started run. Every method is safe to call from any goroutine.
type Run interface {
	Pause()
	Resume(note string) // note tells the model what the person did; may be ""
	Stop()
	Done() <-chan struct{} // closed when the run has ended and its trace is complete
}

// Console runs code actions on the desktop without a model (the executor of
// `deskpilot console`). Exec blocks until the code ran; it reports ActionDone and
// Observed events through h.Event. Globals persist between calls.
type Console interface {
	Exec(ctx context.Context, code string, h agent.Hooks) error
}

// Secrets stores API keys in the OS keyring. account is the name of the
// environment variable the key stands for (config.Settings.APIKeyEnv, e.g.
// "OPENAI_API_KEY"). Get returns an error when there is no key.
type Secrets interface {
	Get(account string) (string, error)
	Set(account, secret string) error
}

// Deps is everything the UI needs from outside; main fills it. Nil fields turn the
// matching feature off with an explanation in the UI.
type Deps struct {
	Runner  Runner  // starts runs; nil = Run explains that no agent is wired
	Console Console // runs console code; nil = console disabled
	// TestConnection sends a tiny request with an image to the configured endpoint.
	TestConnection func(ctx context.Context, cfg config.Config, apiKey string) error
	// ConfigPath is where settings are loaded from and saved to; "" = config.Path().
	ConfigPath string
	// Secrets is the OS keyring, or nil when there is none: then settings ask for the
	// name of an environment variable and never store a key.
	Secrets Secrets
	// TraceRoot is the folder the Runs view lists; "" = the config's TraceDir.
	TraceRoot string
	// LookupEnv reads the environment; nil = os.LookupEnv.
	LookupEnv func(string) (string, bool)
}
