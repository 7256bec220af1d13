//go:build linux

package cli

import (
	"context"
	"fmt"
	"strings"

	"deskpilot/eval"
	"deskpilot/vision/wldisplay"
)

// taskCompositor is a Wayland compositor started for one eval task.
type taskCompositor struct {
	socket string
	env    []string // the task's environment, pointed at the compositor
	close  func()
}

// compositorFor is the eval runner's compositor for --display-server: none
// for xvfb (the agent drives the task's X display), a headless sway per
// task for sway. With sway the agent drives sway (the wlroots backend), and
// the programs it launches run there, natively on Wayland; the task's setup
// commands and checks still run with the task's X display.
func compositorFor(name string) (func(context.Context, eval.Job) (*taskCompositor, error), error) {
	switch name {
	case "", "xvfb":
		return nil, nil
	case "sway":
		return startTaskSway, nil
	}
	return nil, fmt.Errorf("--display-server %q: want xvfb or sway", name)
}

// startTaskSway starts a headless sway at the task's display size.
func startTaskSway(ctx context.Context, j eval.Job) (*taskCompositor, error) {
	s, err := wldisplay.StartSway(ctx, wldisplay.SwayOptions{Width: j.Display.Width, Height: j.Display.Height})
	if err != nil {
		return nil, fmt.Errorf("display server sway: %w", err)
	}
	env := make([]string, 0, len(j.Env)+8)
	for _, kv := range j.Env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "SWAYSOCK", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "GDK_BACKEND", "QT_QPA_PLATFORM":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "WAYLAND_DISPLAY="+s.Socket, "XDG_RUNTIME_DIR="+s.RuntimeDir, "SWAYSOCK="+s.IPC,
		"XDG_CURRENT_DESKTOP=sway", "XDG_SESSION_TYPE=wayland", "GDK_BACKEND=wayland", "QT_QPA_PLATFORM=wayland")
	return &taskCompositor{socket: s.Socket, env: env, close: func() { s.Close() }}, nil
}
