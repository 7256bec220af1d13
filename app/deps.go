package app

import (
	"context"

	"deskpilot/agent"
	"deskpilot/internal/config"
)

// Runner starts agent runs. main passes an adapter over agent.Agent.
type Runner interface {
	// Start begins a run of task with cfg in the background and returns at once.
	// keys are the secrets the app resolved for it. The run reports through h;
	// h.Event is called from the run's goroutine.
	Start(task string, cfg config.Config, keys Keys, h agent.Hooks) (Run, error)
}

// FollowUpRunner is a Runner that can also start follow-up turns: a run whose
// model first gets the run recorded in traceDir (its task, replies and
// observations, and the runs it followed up), then task. prev is that run as
// Start or Continue returned it (its code's variables may live on in it). The
// app offers it after an answer; a run it does not follow up, it releases
// (Releaser).
type FollowUpRunner interface {
	Continue(prev Run, traceDir, task string, cfg config.Config, keys Keys, h agent.Hooks) (Run, error)
}

// Releaser is a Run that holds something after it ended (the code's process,
// for a follow-up): Release frees it. *agent.Session is one.
type Releaser interface{ Release() }

// Keys are the secrets a run gets from the app.
type Keys struct {
	// APIKey is the model's key: the environment variable cfg.APIKeyEnv names,
	// else the keyring; "" when none.
	APIKey string
	// Secrets are the values type_secret may type, by name, from the keyring
	// (Settings, Secrets). The runner adds the DESKPILOT_SECRET_<NAME>
	// variables; only the names ever reach the model, the trace or the screen.
	Secrets map[string]string
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

// Secrets stores API keys and type_secret values in the OS keyring. For an
// API key, account is the name of the environment variable the key stands
// for (config.Settings.APIKeyEnv, e.g. "OPENAI_API_KEY"); type_secret values
// use accounts of their own (secrets.go). Get returns an error when there is
// no entry; Delete of a missing entry is no error.
type Secrets interface {
	Get(account string) (string, error)
	Set(account, secret string) error
	Delete(account string) error
}

// Deps is everything the UI needs from outside; main fills it. Nil fields turn the
// matching feature off with an explanation in the UI.
type Deps struct {
	Runner  Runner  // starts runs; nil = Run explains that no agent is wired
	Console Console // runs console code; nil = console disabled
	// TestConnection sends a tiny request with an image to the configured endpoint.
	TestConnection func(ctx context.Context, cfg config.Config, apiKey string) error
	// Calibrate shows labelled targets on the target display, asks the model
	// to click each and returns the fit's summary (which coordinate
	// convention lands, and the settings that read it); nil = not offered.
	Calibrate func(ctx context.Context, cfg config.Config, apiKey string) (summary string, err error)
	// ConfigPath is where settings are loaded from and saved to; "" = config.Path().
	ConfigPath string
	// Secrets is the OS keyring, or nil when there is none: then settings ask for the
	// name of an environment variable and never store a key.
	Secrets Secrets
	// TraceRoot is the folder the Runs view lists; "" = the config's TraceDir.
	TraceRoot string
	// LookupEnv reads the environment; nil = os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// Environ lists the environment (for the DESKPILOT_SECRET_<NAME> names the
	// settings show); nil = os.Environ.
	Environ func() []string
	// OwnInput, when set, is called (on the Fyne goroutine) whenever the person
	// moves the pointer over deskpilot's window or presses a key in it, so that
	// runs do not take that for a takeover where the desktop cannot tell
	// (Wayland). It must be cheap.
	OwnInput func()
	// TakeoverNote, when not "", is shown in the strip as a run starts: the
	// desktop cannot see the person take over (some Wayland compositors).
	TakeoverNote string
	// Hosts installs deskpilot in agent hosts' MCP settings (Settings, "Use
	// deskpilot from another agent"); nil = the section says how from the CLI.
	Hosts Hosts
	// Sessions are MCP sessions of other processes, shown in the strip while
	// a host drives; nil = none are shown.
	Sessions Sessions
}
