package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"os"
	"time"

	"deskpilot/actions/robot"
	"deskpilot/agent"
	"deskpilot/agent/llm"
	"deskpilot/vision/screen"
)

// desktop holds the adapters for one X display: capture and input.
type desktop struct {
	screen   *screen.Screen
	robot    *robot.Robot
	target   screen.Display
	displays []screen.Display
}

// openDesktop connects to the configured X display and picks the target monitor.
func openDesktop(cfg agent.Config) (*desktop, error) {
	name := cfg.XDisplay
	if name == "" {
		name = os.Getenv("DISPLAY")
	}
	if name == "" {
		return nil, errors.New("no X display: DISPLAY is not set. Run deskpilot inside a desktop session, or point it at one with --x-display :N (for a private one: Xvfb :1 & deskpilot --x-display :1)")
	}
	sc, err := screen.Open(name)
	if err != nil {
		return nil, fmt.Errorf("open display %s: %w", name, err)
	}
	ds, err := sc.Displays()
	if err != nil {
		sc.Close()
		return nil, fmt.Errorf("list monitors: %w", err)
	}
	if cfg.Display < 0 || cfg.Display >= len(ds) {
		sc.Close()
		return nil, fmt.Errorf("--display %d: this X display has %d monitor(s), 0..%d", cfg.Display, len(ds), len(ds)-1)
	}
	target := ds[cfg.Display]
	rb, err := robot.New(name, target.Bounds)
	if err != nil {
		sc.Close()
		return nil, fmt.Errorf("input on %s: %w", name, err)
	}
	return &desktop{screen: sc, robot: rb, target: target, displays: ds}, nil
}

func (d *desktop) Close() {
	if d.robot != nil {
		_ = d.robot.Close()
	}
	d.screen.Close()
}

// cursor returns the pointer position in root coordinates.
func (d *desktop) cursor() (image.Point, error) { return d.screen.Cursor() }

// ownWindows finds deskpilot's own windows (this process), to mask them out and
// refuse clicks into them.
func (d *desktop) ownWindows() []image.Rectangle {
	rs, err := d.screen.WindowsOfPID(os.Getpid())
	if err != nil {
		return nil
	}
	return rs
}

// applyPreset fills base URL, model, key variable, image size and coordinate mode
// from the named preset where the config leaves them empty.
func applyPreset(cfg agent.Config) (agent.Config, error) {
	if cfg.Preset == "" || cfg.Preset == "custom" {
		return cfg, nil
	}
	p, ok := llm.PresetByName(cfg.Preset)
	if !ok {
		var names []string
		for _, p := range llm.Presets() {
			names = append(names, p.Name)
		}
		return cfg, fmt.Errorf("unknown preset %q; presets: %v", cfg.Preset, names)
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = p.BaseURL
	}
	if cfg.Model == "" {
		cfg.Model = p.Model
	}
	if cfg.APIKeyEnv == "" && p.KeyEnv != "" {
		cfg.APIKeyEnv = p.KeyEnv
	}
	if cfg.MaxSide == 0 {
		cfg.MaxSide = p.MaxSide
	}
	if cfg.CoordMode == "" {
		cfg.CoordMode = p.Coords
	}
	return cfg, nil
}

// newModel builds the model client from the config and the API key.
func newModel(cfg agent.Config, apiKey string) *llm.Client {
	return llm.New(llm.Config{
		BaseURL: cfg.BaseURL, Model: cfg.Model, APIKey: apiKey,
		Timeout: time.Duration(cfg.TimeoutSec) * time.Second, MaxRetries: cfg.Retries, NoStream: cfg.NoStream,
	})
}

// checkModel reports a config that cannot reach a model.
func checkModel(cfg agent.Config) error {
	if cfg.BaseURL == "" || cfg.Model == "" {
		return errors.New("no model configured: set --base-url and --model (or OPENAI_BASE_URL and DESKPILOT_MODEL, or --preset), e.g. --preset ollama for a local Ollama")
	}
	return nil
}

// newAgent wires an agent for the desktop.
func newAgent(ctx context.Context, cfg agent.Config, d *desktop, log *slog.Logger) (*agent.Agent, error) {
	tools, err := extraTools(ctx, cfg, d)
	if err != nil {
		return nil, err
	}
	return &agent.Agent{
		Config:       cfg,
		Model:        newModel(cfg, cfg.APIKey()),
		Screen:       d.screen.Region(d.target.Bounds),
		Cursor:       d.cursor,
		Idle:         d.screen.IdleTime,
		Input:        d.robot,
		Display:      d.target.Bounds,
		DisplayCount: len(d.displays),
		Tools:        tools,
		OwnWindows:   d.ownWindows,
		Log:          log,
		Version:      version,
	}, nil
}

// openAgent opens the configured desktop and wires an agent for it; the caller
// closes the desktop when done with both.
func openAgent(ctx context.Context, cfg agent.Config, log *slog.Logger) (*agent.Agent, *desktop, error) {
	d, err := openDesktop(cfg)
	if err != nil {
		return nil, nil, err
	}
	a, err := newAgent(ctx, cfg, d, log)
	if err != nil {
		d.Close()
		return nil, nil, err
	}
	return a, d, nil
}

// stderrLog logs warnings and errors to stderr.
func stderrLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
