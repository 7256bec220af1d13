package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"sync"

	"github.com/zalando/go-keyring"

	"deskpilot/agent"
	"deskpilot/agent/llm"
	"deskpilot/app"
)

// runApp opens the desktop app.
func runApp(ctx context.Context, s *settings) error {
	if err := app.CheckDisplay(os.LookupEnv); err != nil {
		return &exitError{exitFailed, err}
	}
	r := &appRunner{ctx: ctx, log: stderrLog()}
	ui := app.New(app.NewFyneApp(), app.Deps{
		Runner:         r,
		Console:        &appConsole{r: r, configPath: s.configPath},
		Presets:        appPresets(),
		TestConnection: testConnection,
		ConfigPath:     s.configPath,
		Secrets:        openKeyring(),
	})
	ui.Run()
	return nil
}

// appRunner starts agent runs for the app, each on a fresh connection to the
// configured display.
type appRunner struct {
	ctx context.Context
	log *slog.Logger
}

// appRun is one run: the agent session plus the desktop it drives.
type appRun struct {
	*agent.Session
}

func (r *appRunner) Start(task string, cfg agent.Config, apiKey string, h agent.Hooks) (app.Run, error) {
	cfg, err := applyPreset(cfg)
	if err != nil {
		return nil, err
	}
	cfg = cfg.Resolved()
	if err := checkModel(cfg); err != nil {
		return nil, err
	}
	a, d, err := r.agentFor(cfg, apiKey)
	if err != nil {
		return nil, err
	}
	s := a.Start(r.ctx, task, h)
	go func() {
		<-s.Done()
		d.Close()
	}()
	return appRun{s}, nil
}

func (r *appRunner) agentFor(cfg agent.Config, apiKey string) (*agent.Agent, *desktop, error) {
	a, d, err := openAgent(r.ctx, cfg, r.log)
	if err != nil {
		return nil, nil, err
	}
	if apiKey != "" {
		a.Model = newModel(cfg, apiKey)
	}
	return a, d, nil
}

// appConsole runs console code for the app; the console session starts on first use.
type appConsole struct {
	r          *appRunner
	configPath string
	mu         sync.Mutex
	con        *agent.Console
}

func (c *appConsole) Exec(ctx context.Context, code string, h agent.Hooks) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.con == nil {
		cfg, err := agent.LoadConfig(c.configPath)
		if err != nil {
			return err
		}
		if cfg, err = cfg.ApplyEnv(os.LookupEnv); err != nil {
			return err
		}
		if cfg, err = applyPreset(cfg); err != nil {
			return err
		}
		a, _, err := c.r.agentFor(cfg.Resolved(), "")
		if err != nil {
			return err
		}
		con, err := a.NewConsole(ctx, "console")
		if err != nil {
			return err
		}
		c.con = con
	}
	return c.con.Exec(ctx, code, h)
}

func appPresets() []app.Preset {
	var out []app.Preset
	for _, p := range llm.Presets() {
		out = append(out, app.Preset{Name: p.Name, BaseURL: p.BaseURL, Model: p.Model, KeyEnv: p.KeyEnv,
			MaxSide: p.MaxSide, Coords: p.Coords, PriceIn: p.PriceIn, PriceOut: p.PriceOut})
	}
	return out
}

// testConnection sends a tiny request with an image to the configured endpoint.
func testConnection(ctx context.Context, cfg agent.Config, apiKey string) error {
	cfg, err := applyPreset(cfg)
	if err != nil {
		return err
	}
	cfg = cfg.Resolved()
	if err := checkModel(cfg); err != nil {
		return err
	}
	if apiKey == "" {
		apiKey = cfg.APIKey()
	}
	_, err = newModel(cfg, apiKey).Ping(ctx)
	return err
}

// keyringService names deskpilot's entries in the OS keyring.
const keyringService = "deskpilot"

// osKeyring stores API keys in the Secret Service (GNOME Keyring, KWallet).
type osKeyring struct{}

func (osKeyring) Get(account string) (string, error) { return keyring.Get(keyringService, account) }
func (osKeyring) Set(account, secret string) error {
	return keyring.Set(keyringService, account, secret)
}

// openKeyring returns the OS keyring, or nil when there is none (no Secret Service
// on the session bus): the app then asks for an environment variable's name.
func openKeyring() app.Secrets {
	_, err := keyring.Get(keyringService, "probe")
	if err == nil || errors.Is(err, keyring.ErrNotFound) {
		return osKeyring{}
	}
	return nil
}
