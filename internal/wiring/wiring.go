// Package wiring is deskpilot's composition root: from a resolved config.Config it
// builds a ready agent on the desktop the config names — the desktop backend, the
// model client, the text browser, the file inspector and the safety policy. The
// CLI, the app, the eval harness and the end-to-end tests all get their agent
// from Open, so a run is wired the same way wherever it starts.
package wiring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"deskpilot/actions/browser"
	"deskpilot/actions/inspect"
	"deskpilot/agent"
	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/agent/script"
	"deskpilot/agent/secret"
	"deskpilot/internal/config"
	"deskpilot/internal/desktop"
	"deskpilot/internal/mcptools"
	"deskpilot/vision/ocr"
)

// Options are what a run needs beyond its config.
type Options struct {
	// APIKey is the model's key; "" = read the variable the config names.
	APIKey string
	// HasWindow says this process shows windows of its own (the app): they are
	// masked out of screenshots and clicks into them are refused.
	HasWindow bool
	// Secrets are the values type_secret may type, by name, besides those of
	// the DESKPILOT_SECRET_<NAME> environment variables (EnvSecrets).
	Secrets map[string]string
	// Peers lists the pids of other deskpilot processes that show windows
	// (desktop.Options.Peers): masked and refused as this process's own.
	Peers func() []int
	// Environ lists the environment for EnvSecrets; nil = os.Environ.
	Environ func() []string
	// Roots are extra folders (or files) the file inspector may read besides
	// the home folder and the run's downloads (eval: a task's attached files).
	Roots []string
	// Home is the home folder of the run: the file inspector reads it and
	// expands "~" to it; "" = the user's own. An eval task's is its fresh
	// folder, so the model never reads the evaluator's files.
	Home string
	// Downloads is the folder the text browser saves downloads in (the file
	// inspector may read it); "" = a new folder per agent under
	// $XDG_CACHE_HOME/deskpilot/downloads.
	Downloads string
	// PDF is the file inspector's PDF engine; nil = one of its own, started on
	// the first PDF. Agents of one process (the app, an evaluation) share one
	// (Engines.PDF).
	PDF *inspect.PDFEngine
	// XAuthority is the X authority file to connect to cfg's X display with;
	// "" = $XAUTHORITY. A private display with a cookie of its own needs it
	// (vision/xdisplay.Display.XAuthority).
	XAuthority string
	// OwnInput is when the app last saw the person's input in its own windows
	// (desktop.Options.OwnInput); nil = only what the desktop sees.
	OwnInput func() time.Time
	// Wayland is the Wayland compositor's socket for the wlroots backend
	// (desktop.Options.Wayland); "" = $WAYLAND_DISPLAY.
	Wayland string
	// Env is the environment of programs the agent launches (launch,
	// open_url), to which the display's DISPLAY and XAUTHORITY are added; nil
	// = this process's own.
	Env []string
	// Launch, when set, starts the programs the agent launches instead of the
	// desktop (eval: in the task's box); it returns the program's pid.
	Launch func(name string, args ...string) (int, error)
	// Log receives operational logs; nil discards them.
	Log *slog.Logger
	// Version is recorded in traces.
	Version string
	// Lookup reads the environment; nil = os.LookupEnv.
	Lookup func(string) (string, bool)
	// OCR is the process's OCR reader (Engines.OCR, or NewOCR), shared by its
	// runs so its cache serves them all; nil = Open makes one for the Ready,
	// closed with it.
	OCR *ocr.Reader
}

func (o Options) lookup(name string) string {
	if o.Lookup == nil {
		return os.Getenv(name)
	}
	v, _ := o.Lookup(name)
	return v
}

func (o Options) environ() []string {
	if o.Environ == nil {
		return os.Environ()
	}
	return o.Environ()
}

// SecretEnvPrefix starts the environment variables that hold secrets for
// type_secret: DESKPILOT_SECRET_GITHUB=… is the secret "github".
const SecretEnvPrefix = "DESKPILOT_SECRET_"

// EnvSecrets reads the secrets of the DESKPILOT_SECRET_<NAME> variables in env
// ("KEY=value" entries), by lower-case name. Empty values are skipped.
func EnvSecrets(env []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" || !strings.HasPrefix(k, SecretEnvPrefix) || len(k) == len(SecretEnvPrefix) {
			continue
		}
		out[strings.ToLower(strings.TrimPrefix(k, SecretEnvPrefix))] = v
	}
	return out
}

// mergeSecrets joins secret maps; later maps win.
func mergeSecrets(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// Ready is an agent wired to its desktop. Close it when the runs are over.
type Ready struct {
	Agent   *agent.Agent
	Desktop *desktop.Desktop

	ground *groundEngines
	mcp    *mcptools.Set // the MCP servers' sessions; nil when none are configured
}

// Close releases the desktop (held keys and buttons, connections) and the
// grounding engines (the accessibility client; the OCR reader unless
// Options.OCR gave it). Safe twice.
func (r *Ready) Close() error {
	if r == nil {
		return nil
	}
	return errors.Join(r.mcp.Close(), r.ground.close(), r.Desktop.Close())
}

// Open wires an agent for cfg on the desktop cfg names. The caller closes the
// result. A config without a model still wires (the console needs none); its
// model calls fail, so commands that run the model check cfg.HasModel first.
func Open(ctx context.Context, cfg config.Config, o Options) (*Ready, error) {
	d, err := desktop.Open(desktopOptions(cfg, o))
	if err != nil {
		return nil, err
	}
	a, err := NewAgent(ctx, cfg, d, o)
	if err != nil {
		d.Close()
		return nil, err
	}
	g := openGround(cfg, d.Target().Bounds, o)
	a.Text, a.Elements = g.text, g.elements
	return &Ready{Agent: a, Desktop: d, ground: g, mcp: connectMCP(ctx, cfg, a, o)}, nil
}

// OpenDesktop opens the desktop cfg names (backend, X display, monitor).
func OpenDesktop(cfg config.Config, hasWindow bool) (*desktop.Desktop, error) {
	return desktop.Open(desktopOptions(cfg, Options{HasWindow: hasWindow}))
}

func desktopOptions(cfg config.Config, o Options) desktop.Options {
	return desktop.Options{Backend: cfg.Backend, XDisplay: cfg.XDisplay, Monitor: cfg.Display,
		HasWindow: o.HasWindow, Peers: o.Peers, XAuthority: o.XAuthority, Wayland: o.Wayland, Env: o.Env, OwnInput: o.OwnInput,
		PassEnv: cfg.PassEnv, DropEnv: keyVariables(cfg), IsSecret: secretValues(cfg, o)}
}

// NewAgent wires an agent for cfg on an open desktop, without the grounding
// engines (OCR, accessibility), which Open adds and its Ready closes.
func NewAgent(ctx context.Context, cfg config.Config, d *desktop.Desktop, o Options) (*agent.Agent, error) {
	key := o.APIKey
	if key == "" {
		key = o.lookup(cfg.APIKeyEnv)
	}
	ac, err := AgentConfig(cfg)
	if err != nil {
		return nil, err
	}
	secrets := mergeSecrets(EnvSecrets(o.environ()), o.Secrets)
	red := secret.New(secrets)
	model := modelClient(cfg, key, red)
	target := d.Target()
	var redact []string
	if key != "" {
		redact = append(redact, key)
	}
	grounder, gkey, err := Grounder(cfg, o.Lookup)
	if err != nil {
		return nil, err
	}
	if gkey != "" && gkey != key {
		redact = append(redact, gkey)
	}
	if cfg.SearchKeyEnv != "" {
		if k := o.lookup(cfg.SearchKeyEnv); k != "" {
			redact = append(redact, k)
		}
	}
	for _, k := range redact {
		red.AddKey(k)
	}
	if grounder != nil {
		grounder.Model = modelClient(grounderConfig(cfg), gkey, red)
	}
	a := &agent.Agent{
		Config:       ac,
		Model:        model,
		Screen:       d,
		Cursor:       d.Cursor,
		Idle:         d.Idle,
		Input:        d.Input(),
		Display:      target.Bounds,
		DisplayCount: len(d.Displays()),
		Grounder:     grounder,
		Secrets:      secrets,
		Redact:       redact,
		Redactor:     red,
		Launch:       d.Launch,
		Log:          o.Log,
		Version:      o.Version,
	}
	if o.Launch != nil {
		a.Launch = o.Launch
	}
	if o.HasWindow || o.Peers != nil {
		a.OwnWindows, a.OwnInput = d.OwnWindows, d.OwnInput
	}
	if k, err := TraceKey(); err == nil {
		a.TraceKey = k
	} else if o.Log != nil {
		o.Log.Warn("follow-ups will not be signed", "err", err)
	}
	tools, err := researchTools(ctx, cfg, a, model, o)
	if err != nil {
		return nil, err
	}
	a.Tools = tools
	return a, nil
}

// DialectOptions are the dialect options of cfg: the pyautogui and opencua
// coordinates, and the model's name (the vendor tools pick their version by
// it).
func DialectOptions(cfg config.Config) dialect.Options {
	return dialect.Options{PyAutoGUICoords: cfg.PyAutoGUICoords, Model: cfg.Model, OpenCUA: cfg.OpenCUACoords}
}

// AgentConfig is the part of cfg the agent uses.
func AgentConfig(cfg config.Config) (agent.Config, error) {
	dl, err := dialect.New(cfg.Dialect, DialectOptions(cfg))
	if err != nil {
		return agent.Config{}, err
	}
	return agent.Config{
		Model: cfg.Model, BaseURL: RedactURL(cfg.BaseURL), Dialect: dl,
		CoordMode: cfg.Coords, MaxSide: cfg.MaxSide, ImageFormat: cfg.ImageFormat, ImageQuality: cfg.Quality,
		MaxSteps: cfg.MaxSteps, KeepImages: cfg.KeepImages, ImageChunk: cfg.ImageChunk, PlanEvery: cfg.PlanEvery,
		MaxTokens: cfg.MaxTokens, Temperature: cfg.Temperature, TraceDir: cfg.TraceDir, Monitor: cfg.Display,
		Marks: cfg.Marks, ObserveA11y: slices.Contains(cfg.Observe, config.ObserveA11y),
		ObserveOCR: slices.Contains(cfg.Observe, config.ObserveOCR),
		Policy: agent.Policy{Confirm: cfg.Confirm, AllowPrivate: cfg.AllowPrivate, AllowDomains: cfg.AllowDomains,
			DenyDomains: cfg.DenyDomains, DenyApps: cfg.DenyApps},
		CodeMemory: int64(cfg.CodeMemoryMB) << 20, InProcess: cfg.Sandbox == "none",
	}, nil
}

// Grounder is the grounding model cfg names, with its key (for redaction);
// nil when none is configured. lookup reads the environment (nil =
// os.LookupEnv).
func Grounder(cfg config.Config, lookup func(string) (string, bool)) (*agent.Grounder, string, error) {
	if !cfg.HasGrounder() {
		return nil, "", nil
	}
	g := cfg.Grounder
	gd, err := dialect.GrounderByName(g.Dialect)
	if err != nil {
		return nil, "", fmt.Errorf("grounder: %w", err)
	}
	key := cfg.GrounderAPIKey(lookup)
	client := Model(grounderConfig(cfg), key)
	return &agent.Grounder{Model: client, Name: g.Model, Dialect: gd}, key, nil
}

// grounderConfig is cfg with the grounder's endpoint, provider and model as
// the model's.
func grounderConfig(cfg config.Config) config.Config {
	cfg.BaseURL, cfg.Model = cfg.Grounder.BaseURL, cfg.Grounder.Model
	cfg.Provider = llm.ProviderFor(cfg.BaseURL)
	return cfg
}

// Model is the model client for cfg.
func Model(cfg config.Config, apiKey string) *llm.Client { return modelClient(cfg, apiKey, nil) }

// modelClient is the model client for cfg, whose requests red redacts (nil:
// none).
func modelClient(cfg config.Config, apiKey string, red *secret.Redactor) *llm.Client {
	c := llm.Config{
		Provider: cfg.Provider, BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: apiKey,
		Timeout: cfg.Timeout(), MaxRetries: cfg.Retries, NoStream: cfg.NoStream,
	}
	if red != nil {
		c.Redact = red.Text
	}
	return llm.New(c)
}

// RedactURL removes a password from a URL's user information, for logs, traces
// and the terminal.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// researchTools are the text browser and the file inspector. Each agent (one
// run, or one console session) downloads into a folder of its own
// (o.Downloads, else one under $XDG_CACHE_HOME/deskpilot/downloads); the
// inspector reads the home folder (o.Home, else the user's), every download
// and o.Roots, and answers questions about files with the run's model.
func researchTools(_ context.Context, cfg config.Config, a *agent.Agent, model agent.Model, o Options) ([]script.Tool, error) {
	downloads, runDir, err := downloadFolders(o.Downloads)
	if err != nil {
		return nil, err
	}
	home := o.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	var roots []string
	if home != "" {
		roots = append(roots, home)
	}
	roots = append(roots, o.Roots...)
	roots = append(roots, cfg.InspectFolders...)
	in := inspect.New(inspect.Options{
		Roots:       roots,
		DownloadDir: downloads,
		Home:        home,
		PDF:         o.PDF,
		Ask:         agent.InspectAsk(model, a.Config),
		OCR:         pageOCR(a),
	})
	key := ""
	if cfg.SearchKeyEnv != "" {
		key = o.lookup(cfg.SearchKeyEnv)
	}
	red := a.SecretFilter()
	checked := &http.Client{Transport: secret.Transport{Redactor: red}}
	search, err := browser.NewSearchBackend(cfg.SearchBackend, cfg.SearchURL, key, checked)
	if err != nil {
		return nil, fmt.Errorf("web %w; check search_backend, search_url and search_key_env (the environment variable holding the key, now %q)", err, cfg.SearchKeyEnv)
	}
	search = checkedSearch{SearchBackend: search, endpoint: searchEndpoint(cfg), check: a.CheckSend}
	br := browser.New(browser.Options{
		AllowPrivate: cfg.AllowPrivate,
		Search:       search,
		DownloadDir:  runDir,
		CheckURL:     a.CheckSend,
		CheckRequest: red.CheckRequest,
		Inspect: func(ctx context.Context, path string) (string, error) {
			return in.Inspect(ctx, path, "")
		},
	})
	return script.Research(script.ResearchDeps{Browser: br, Inspector: in, Read: a.NoteRead}), nil
}

// checkedSearch asks the agent before a query leaves for the search engine,
// as before any page visit (a query can carry what the run read).
type checkedSearch struct {
	browser.SearchBackend
	endpoint *url.URL
	check    func(ctx context.Context, u *url.URL) error
}

func (s checkedSearch) Search(ctx context.Context, q browser.SearchQuery) ([]browser.SearchResult, error) {
	if err := s.check(ctx, s.endpoint); err != nil {
		return nil, err
	}
	return s.SearchBackend.Search(ctx, q)
}

// searchEndpoint is where web_search queries go.
func searchEndpoint(cfg config.Config) *url.URL {
	raw := cfg.SearchURL
	if raw == "" {
		switch cfg.SearchBackend {
		case "brave":
			raw = browser.BraveURL
		case "serper":
			raw = browser.SerperURL
		default:
			raw = browser.DuckDuckGoURL
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return &url.URL{Scheme: "https", Host: cfg.SearchBackend}
	}
	return u
}

// downloadFolders are the folder the inspector may read downloads in and the
// folder this agent's browser downloads into: both dir when set (made here),
// else DownloadsDir and a folder of the run's own below it (made by the
// browser at its first download).
func downloadFolders(dir string) (readable, run string, err error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", "", fmt.Errorf("downloads folder: %w", err)
		}
		return dir, dir, nil
	}
	root, err := DownloadsDir()
	if err != nil {
		return "", "", err
	}
	return root, filepath.Join(root, runFolder(time.Now())), nil
}

// DownloadsDir makes and returns $XDG_CACHE_HOME/deskpilot/downloads (~/.cache
// when unset), where the browser saves files it cannot show as a page.
func DownloadsDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("downloads folder: %w", err)
	}
	dir := filepath.Join(cache, "deskpilot", "downloads")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("downloads folder: %w", err)
	}
	return dir, nil
}

// runFolder names one run's downloads folder: UTC time, like trace folders, and
// the process id, so two runs started in the same second do not share it.
func runFolder(now time.Time) string {
	return fmt.Sprintf("%s-%d", now.UTC().Format("20060102T150405.000Z"), os.Getpid())
}
