package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zalando/go-keyring"

	"deskpilot/agent"
	"deskpilot/app"
	"deskpilot/internal/config"
	"deskpilot/internal/desktop"
	"deskpilot/internal/wiring"
)

// runApp opens the desktop app.
func runApp(ctx context.Context, s *settings) error {
	if err := app.CheckDisplay(os.LookupEnv); err != nil {
		return &exitError{exitFailed, err}
	}
	// One OCR reader and one PDF engine for the app's runs.
	r := &appRunner{ctx: ctx, s: s, engines: wiring.NewEngines()}
	defer r.engines.Close()
	cfg, _ := s.load() // the app shows a bad config itself; the backend is what matters here
	defer announceWindows()()
	ui := app.New(app.NewFyneApp(), app.Deps{
		Runner:         r,
		Console:        &appConsole{r: r},
		TestConnection: testConnection,
		Calibrate:      calibrateSummary,
		ConfigPath:     s.configPath,
		Secrets:        openKeyring(),
		OwnInput:       r.noteOwnInput,
		TakeoverNote:   desktop.TakeoverNote(ctx, desktop.Options{Backend: cfg.Backend}, os.Getenv),
		Hosts:          appHosts{s},
		Sessions:       appSessions{},
	})
	ui.Run()
	return nil
}

// appRunner starts agent runs for the app, each on a fresh connection to the
// configured display.
type appRunner struct {
	ctx     context.Context
	s       *settings
	engines *wiring.Engines // shared by the runs
	own     atomic.Int64    // when the app last saw the person's input, unix ns (ownInput)
}

// noteOwnInput records that the person used the app's window (app.Deps.OwnInput).
func (r *appRunner) noteOwnInput() { r.own.Store(time.Now().UnixNano()) }

// ownInput is when the app last saw the person's input; zero when never.
func (r *appRunner) ownInput() time.Time {
	if n := r.own.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

func (r *appRunner) Start(task string, cfg config.Config, keys app.Keys, h agent.Hooks) (app.Run, error) {
	return r.run(nil, nil, task, cfg, keys, h)
}

// Continue starts a follow-up of prev, the run recorded in traceDir: an
// *agent.Session of this app keeps its code's variables for it.
func (r *appRunner) Continue(prev app.Run, traceDir, task string, cfg config.Config, keys app.Keys, h agent.Hooks) (app.Run, error) {
	if s, ok := prev.(*agent.Session); ok {
		return r.run(s, nil, task, cfg, keys, h)
	}
	key, _ := wiring.TraceKey() // without one, the trace named is read alone
	priors, err := agent.ReadPriors(traceDir, key)
	if err != nil {
		return nil, err
	}
	return r.run(nil, priors, task, cfg, keys, h)
}

// run starts a run: a follow-up of prev (in this process) or of priors (read
// from traces) when either is set. Its agent keeps the code's process after an
// answer, for the next follow-up.
func (r *appRunner) run(prev *agent.Session, priors []agent.Prior, task string, cfg config.Config, keys app.Keys, h agent.Hooks) (app.Run, error) {
	ready, err := r.s.open(r.ctx, cfg, wiring.Options{APIKey: keys.APIKey, Secrets: keys.Secrets, HasWindow: true, OwnInput: r.ownInput, OCR: r.engines.OCR, PDF: r.engines.PDF})
	if err != nil {
		if prev != nil {
			prev.Release()
		}
		return nil, err
	}
	ready.Agent.KeepCode = true
	var s *agent.Session
	if prev != nil {
		if s, err = ready.Agent.ContinueSession(r.ctx, prev, task, h); err != nil {
			ready.Close()
			return nil, err
		}
	} else {
		s = ready.Agent.Continue(r.ctx, priors, task, h)
	}
	unregister := r.s.control(cfg).registerRun(task, s)
	go func() {
		<-s.Done()
		unregister()
		ready.Close()
	}()
	return s, nil
}

// appConsole runs console code for the app; the console session starts on first use.
type appConsole struct {
	r   *appRunner
	mu  sync.Mutex
	con *agent.Console
}

func (c *appConsole) Exec(ctx context.Context, code string, h agent.Hooks) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.con == nil {
		cfg, err := c.r.s.load()
		if err != nil {
			return err
		}
		ready, err := c.r.s.open(c.r.ctx, cfg, wiring.Options{HasWindow: true, OwnInput: c.r.ownInput, OCR: c.r.engines.OCR, PDF: c.r.engines.PDF})
		if err != nil {
			return err
		}
		con, err := ready.Agent.NewConsole(ctx, "console")
		if err != nil {
			ready.Close()
			return err
		}
		c.con = con
	}
	return c.con.Exec(ctx, code, h)
}

// testConnection sends a tiny request with an image to the configured endpoint.
func testConnection(ctx context.Context, cfg config.Config, apiKey string) error {
	if !cfg.HasModel() {
		return errors.New(config.ErrNoModel)
	}
	if apiKey == "" {
		apiKey = cfg.APIKey(nil)
	}
	_, err := wiring.Model(cfg, apiKey).Ping(ctx)
	return err
}

// keyringService names deskpilot's entries in the OS keyring.
const keyringService = "deskpilot"

// osKeyring stores API keys and type_secret values in the Secret Service
// (GNOME Keyring, KWallet).
type osKeyring struct{}

func (osKeyring) Get(account string) (string, error) {
	v, err := keyring.Get(keyringService, account)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", fmt.Errorf("%s: %w", account, app.ErrNoSecret)
	}
	return v, err
}

func (osKeyring) Set(account, secret string) error {
	return keyring.Set(keyringService, account, secret)
}

func (osKeyring) Delete(account string) error {
	err := keyring.Delete(keyringService, account)
	if errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("%s: %w", account, app.ErrNoSecret)
	}
	return err
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
