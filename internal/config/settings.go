// Package config owns deskpilot's settings: the TOML file, the environment, the
// command-line flags, the model presets and the XDG paths, and their precedence
// (flags > environment > file > preset > defaults). Resolve turns them into one
// Config, once per run; everything below the CLI and the app receives that value
// (or the part of it it uses) and never reads a setting source itself.
//
// Each setting is declared once, as a field of Settings whose tags name its file
// key (toml), its environment variable (env), its flag (flag), its default
// (default) and its help (usage). The file, the environment, the flags, the
// defaults and the README's table all derive from that declaration.
package config

import "time"

// Settings is the content of the config file, and the shape every source writes
// into. A zero field means "not set here": the next source down, then the default,
// decides. Settings never holds an API key: it names the environment variable (or
// keyring entry) that holds it.
type Settings struct {
	// The model.
	Preset    string `toml:"preset" env:"DESKPILOT_PRESET" flag:"preset" usage:"model preset (openai, openrouter, gemini, anthropic, ollama, vllm, lmstudio, llamacpp, custom)"`
	BaseURL   string `toml:"base_url" env:"OPENAI_BASE_URL,DESKPILOT_BASE_URL" flag:"base-url" usage:"OpenAI-compatible endpoint, e.g. http://localhost:11434/v1"`
	Model     string `toml:"model" env:"DESKPILOT_MODEL" flag:"model" usage:"model name sent to the endpoint"`
	APIKeyEnv string `toml:"api_key_env" env:"DESKPILOT_API_KEY_ENV" flag:"api-key-env" default:"OPENAI_API_KEY" usage:"environment variable holding the API key"`
	Dialect   string `toml:"dialect" env:"DESKPILOT_DIALECT" flag:"dialect" usage:"reply format the model speaks (code, pyautogui, uitars-1.5, uitars-1.0, doubao, qwen2.5, qwen3, opencua, holo3, fara, openai-computer, anthropic-computer, gemini-computer); default: by model name, else code"`
	// Provider is the wire format of the endpoint.
	Provider string `toml:"provider" env:"DESKPILOT_PROVIDER" flag:"provider" usage:"wire format of the model endpoint: chat (chat completions), responses (OpenAI Responses API), anthropic (Messages API) or gemini (generateContent); default: the dialect's, else by base URL (api.anthropic.com: anthropic, generativelanguage.googleapis.com: gemini), else chat"`
	// PyAutoGUICoords is the pyautogui dialect's coordinate space.
	PyAutoGUICoords string  `toml:"pyautogui_coords" env:"DESKPILOT_PYAUTOGUI_COORDS" flag:"pyautogui-coords" usage:"points of the pyautogui and opencua dialects: pixels (OSWorld), smart (OpenCUA-7B/32B: pixels of the smart-resized screenshot) or unit (Aguvis, OpenCUA: 0..1); default: by model name, else pixels (pyautogui) or unit (opencua)"`
	Temperature     float64 `toml:"temperature" env:"DESKPILOT_TEMPERATURE" flag:"temperature" usage:"sampling temperature (default: the server's)"`
	MaxTokens       int     `toml:"max_tokens" env:"DESKPILOT_MAX_TOKENS" flag:"max-tokens" default:"2048" usage:"longest reply, in tokens"`
	TimeoutSec      int     `toml:"timeout_seconds" env:"DESKPILOT_TIMEOUT" flag:"timeout" default:"120" usage:"longest wait for a model's first byte and longest silence inside a reply, seconds"`
	Retries         int     `toml:"retries" env:"DESKPILOT_RETRIES" default:"4" usage:"retries of a failed model call"`
	NoStream        bool    `toml:"no_stream" env:"DESKPILOT_NO_STREAM" usage:"turn streaming off for servers that lack it"`

	// What the model sees and how it points.
	CoordMode  string `toml:"coord_mode" env:"DESKPILOT_COORD_MODE" flag:"coords" default:"pixels" usage:"coordinate mode of the code dialect: pixels or norm1000"`
	MaxSide    int    `toml:"image_max_side" env:"DESKPILOT_IMAGE_MAX_SIDE" flag:"image-size" default:"1366" usage:"longest side of the screenshots the model sees, pixels"`
	Format     string `toml:"image_format" env:"DESKPILOT_IMAGE_FORMAT" flag:"image-format" default:"png" usage:"encoding of the screenshots sent: png, jpeg or webp (lossless, smaller, slower to encode)"`
	Quality    int    `toml:"image_quality" env:"DESKPILOT_IMAGE_QUALITY" flag:"image-quality" default:"85" usage:"JPEG quality, 1 to 100"`
	ImageChunk int    `toml:"image_chunk" env:"DESKPILOT_IMAGE_CHUNK" usage:"older screenshots leave the request this many at a time, so requests share a cacheable prefix (1: one every step; default: what keeps a request within 5 screenshots, at least keep_images)"`
	KeepImages int    `toml:"keep_images" env:"DESKPILOT_KEEP_IMAGES" flag:"keep-images" usage:"screenshots a request keeps at least (default: the dialect's, 5 for UI-TARS and Qwen, 3 for the other families, 1 for code)"`
	// Grounding: what the observation adds to the screenshot.
	Marks   bool     `toml:"marks" env:"DESKPILOT_MARKS" flag:"marks" usage:"set-of-marks: number the controls on each screenshot (from the accessibility tree, else OCR) for click_mark(n)"`
	Observe []string `toml:"observe" env:"DESKPILOT_OBSERVE" flag:"observe" default:"screenshot" usage:"what each observation holds: screenshot (always), plus a11y (the visible accessible elements as a table) and/or ocr (the screen's text lines)"`

	// The run.
	MaxSteps  int    `toml:"max_steps" env:"DESKPILOT_MAX_STEPS" flag:"max-steps" default:"30" usage:"step limit"`
	PlanEvery int    `toml:"plan_every" env:"DESKPILOT_PLAN_EVERY" flag:"plan-every" usage:"plan every N steps (0: never)"`
	TraceDir  string `toml:"trace_dir" env:"DESKPILOT_TRACE_DIR" flag:"trace-dir" usage:"where traces are written (default $XDG_DATA_HOME/deskpilot/traces)"`

	// The desktop.
	Backend  string `toml:"backend" env:"DESKPILOT_BACKEND" flag:"backend" usage:"desktop backend: wlroots, gnome, portal or x11 (Linux: chosen from the session), or robotgo"`
	XDisplay string `toml:"x_display" env:"DESKPILOT_X_DISPLAY" flag:"x-display" usage:"X display to drive (default $DISPLAY)"`
	Display  int    `toml:"display" env:"DESKPILOT_DISPLAY" flag:"display" usage:"index of the monitor to drive"`

	// The text browser.
	SearchBackend string `toml:"search_backend" env:"DESKPILOT_SEARCH_BACKEND" default:"duckduckgo" usage:"web_search backend: duckduckgo, searxng, brave or serper"`
	SearchURL     string `toml:"search_url" env:"DESKPILOT_SEARCH_URL" usage:"base URL of the search backend (SearXNG needs one)"`
	SearchKeyEnv  string `toml:"search_key_env" env:"DESKPILOT_SEARCH_KEY_ENV" usage:"environment variable holding the search API key"`
	AllowPrivate  bool   `toml:"browser_allow_private" env:"DESKPILOT_BROWSER_ALLOW_PRIVATE" usage:"let visit_page reach private and loopback addresses"`

	// The file inspector.
	InspectFolders []string `toml:"inspect_folders" env:"DESKPILOT_INSPECT_FOLDERS" usage:"more folders inspect_file may read, besides the home folder and the run's downloads"`

	// The code sandbox.
	Sandbox      string `toml:"sandbox" env:"DESKPILOT_SANDBOX" default:"process" usage:"where the model's code runs: process (a child process) or none (inside deskpilot, for debugging)"`
	CodeMemoryMB int    `toml:"code_memory_mb" env:"DESKPILOT_CODE_MEMORY_MB" default:"512" usage:"memory the model's code process may hold, MiB (Linux: a watchdog reads its RSS every 25 ms and stops it past this; not a kernel limit)"`

	// Safety.
	Confirm      []string `toml:"confirm" default:"launch,open_url,close_combos,send_after_read" usage:"actions the person must approve (run --yes approves all)"`
	AllowDomains []string `toml:"allow_domains" usage:"when set, open_url and the browser reach only these domains"`
	DenyDomains  []string `toml:"deny_domains" usage:"domains open_url and the browser never reach"`
	DenyApps     []string `toml:"deny_apps" usage:"programs launch refuses"`
	PassEnv      []string `toml:"pass_env" env:"DESKPILOT_PASS_ENV" usage:"environment variables that programs launch and open_url start get although their names look like credentials (every other credential is left out)"`

	// Grounder is the grounding model of planner + grounder runs (the
	// [grounder] table).
	Grounder GrounderSettings `toml:"grounder"`

	// StopHotkey is the global key combination that stops every run and MCP
	// session while one is active.
	StopHotkey string `toml:"stop_hotkey" env:"DESKPILOT_STOP_HOTKEY" default:"ctrl+alt+escape" usage:"global key combination that stops every run and MCP session (X11; none: off)"`
	// MCP is the [mcp] table: MCP servers whose tools the model may call.
	MCP MCPSettings `toml:"mcp"`
}

// GrounderSettings is the [grounder] table: a second model that finds on the
// screen the elements the planner (the model above, in the code dialect)
// describes, e.g. click("the Save button"). Its settings are declared like the
// others; their file keys are "grounder.model" and so on.
type GrounderSettings struct {
	Model     string `toml:"model" env:"DESKPILOT_GROUNDER_MODEL" flag:"grounder" usage:"grounding model: the planner may then click, locate, drag... an element it describes in words; default: none"`
	BaseURL   string `toml:"base_url" env:"DESKPILOT_GROUNDER_BASE_URL" flag:"grounder-base-url" usage:"the grounder's OpenAI-compatible endpoint (default: base_url)"`
	Dialect   string `toml:"dialect" env:"DESKPILOT_GROUNDER_DIALECT" flag:"grounder-dialect" usage:"how the grounder is asked and read (uitars-1.5, uitars-1.0, doubao, qwen2.5, qwen3, gta1, holo1.5, holo2, ui-venus, point); default: by model name, else point"`
	APIKeyEnv string `toml:"api_key_env" env:"DESKPILOT_GROUNDER_API_KEY_ENV" flag:"grounder-api-key-env" usage:"environment variable holding the grounder's API key (default: api_key_env when the grounder shares base_url, else none)"`
}

// Timeout is TimeoutSec as a duration.
func (s Settings) Timeout() time.Duration { return time.Duration(s.TimeoutSec) * time.Second }
