package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"deskpilot/actions/browser"
	"deskpilot/actions/inspect"
	"deskpilot/agent"
	"deskpilot/agent/script"
)

// extraTools are the builtins beyond the desktop: the text browser and the file
// inspector (DESIGN.md §2, groups browser and files). Each agent (one run, or one
// console session) downloads into a folder of its own under
// $XDG_CACHE_HOME/deskpilot/downloads; the inspector reads the home folder and all
// downloads, and answers questions about files with the run's model.
func extraTools(_ context.Context, cfg agent.Config, _ *desktop) ([]script.Tool, error) {
	cfg = cfg.Resolved()
	downloads, err := downloadsDir()
	if err != nil {
		return nil, err
	}
	home, _ := os.UserHomeDir()
	var roots []string
	if home != "" {
		roots = append(roots, home)
	}
	in := inspect.New(inspect.Options{
		Roots:       roots,
		DownloadDir: downloads,
		Ask:         agent.InspectAsk(newModel(cfg, cfg.APIKey()), cfg),
	})
	key := ""
	if cfg.SearchKeyEnv != "" {
		key = os.Getenv(cfg.SearchKeyEnv)
	}
	search, err := browser.NewSearchBackend(cfg.SearchBackend, cfg.SearchURL, key, nil)
	if err != nil {
		return nil, fmt.Errorf("web %w; check search_backend, search_url and search_key_env (the environment variable holding the key, now %q)", err, cfg.SearchKeyEnv)
	}
	br := browser.New(browser.Options{
		AllowPrivate: cfg.AllowPrivate || os.Getenv("DESKPILOT_BROWSER_ALLOW_PRIVATE") == "1",
		Search:       search,
		DownloadDir:  filepath.Join(downloads, runFolder(time.Now())),
		CheckURL:     cfg.CheckURL,
		Inspect: func(ctx context.Context, path string) (string, error) {
			return in.Inspect(ctx, path, "")
		},
	})
	return script.Research(script.ResearchDeps{Browser: br, Inspector: in}), nil
}

// downloadsDir makes and returns $XDG_CACHE_HOME/deskpilot/downloads (~/.cache
// when unset), where the browser saves files it cannot show as a page.
func downloadsDir() (string, error) {
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
