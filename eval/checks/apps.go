package checks

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// appGetters are OSWorld's getters for VLC, GIMP and VS Code settings and
// VLC's HTTP interface.
func appGetters() map[string]Getter {
	return map[string]Getter{
		"vlc_config":       {Fn: configFile("~/.config/vlc/vlcrc"), Check: needStrings("dest")},
		"gimp_config_file": {Fn: gimpConfig, Check: needStrings("file_name", "dest")},
		"vlc_playing_info": {Fn: getVLCPlayingInfo, Check: needStrings("dest")},
		"vscode_config": {Fn: unavailable("VS Code is not in Debian; its tasks cannot run here"),
			Check: needStrings("path", "dest")},
	}
}

// configFile copies an application's settings file into the cache folder as
// dest; a missing file is an error, as OSWorld's open(None) is.
func configFile(p string) func(context.Context, Env, map[string]any) (any, error) {
	return func(_ context.Context, env Env, cfg map[string]any) (any, error) {
		dest, err := strKey(cfg, "dest")
		if err != nil {
			return nil, err
		}
		dst, ok := fetchVMFile(env, p, dest)
		if !ok {
			return nil, fmt.Errorf("%s: %w", p, os.ErrNotExist)
		}
		return dst, nil
	}
}

// gimpConfig copies ~/.config/GIMP/2.10/<file_name>; None when it is missing.
func gimpConfig(_ context.Context, env Env, cfg map[string]any) (any, error) {
	name, err := strKey(cfg, "file_name")
	if err != nil {
		return nil, err
	}
	dest, err := strKey(cfg, "dest")
	if err != nil {
		return nil, err
	}
	dst, ok := fetchVMFile(env, filepath.Join("~/.config/GIMP/2.10", name), dest)
	if !ok {
		return nil, nil
	}
	return dst, nil
}

// getVLCPlayingInfo saves VLC's /requests/status.xml (HTTP interface on port
// 8080, password "password") as dest; None when VLC does not answer 200.
func getVLCPlayingInfo(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	dest, err := strKey(cfg, "dest")
	if err != nil {
		return nil, err
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return env.Dial(ctx, 8080) },
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:8080/requests/status.xml", nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth("", "password")
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTextFile))
	if err != nil {
		return nil, err
	}
	dst := filepath.Join(env.CacheDir(), dest)
	if err := os.WriteFile(dst, body, 0o600); err != nil {
		return nil, err
	}
	return dst, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
