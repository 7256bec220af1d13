// Package wldisplay starts private headless Wayland compositors for tests:
// sway (wlroots, with the pixman renderer, as an unprivileged uid: sway
// refuses to run as root) and mutter (in a private session bus with
// pipewire and wireplumber, for the GNOME and portal paths). Each has a
// private XDG_RUNTIME_DIR; nothing touches the developer's session, and
// DISPLAY is never set for the programs started on them.
package wldisplay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// nobody is the uid (and gid) headless sway runs as when the caller is root.
const nobody = 65534

// SwayOptions say what headless sway shows.
type SwayOptions struct {
	// Width and Height are each output's mode in pixels; 0 means 1280x720.
	Width, Height int
	// Scale is each output's scale (2 for HiDPI, 1.5 fractional); 0 means 1.
	Scale float64
	// Outputs is how many outputs, laid out left to right; 0 means 1.
	Outputs int
}

// Sway is a running headless sway.
type Sway struct {
	// Socket is the Wayland socket, an absolute path (a valid WAYLAND_DISPLAY).
	Socket string
	// IPC is sway's IPC socket (SWAYSOCK).
	IPC string
	// RuntimeDir is the private XDG_RUNTIME_DIR that holds both.
	RuntimeDir string
	// Width and Height are the first output's mode, pixels.
	Width, Height int
	// Scale is the outputs' scale.
	Scale float64

	home string
	p    *proc
	mu   sync.Mutex
	apps []*App
}

// StartSway starts headless sway and waits until its outputs have their
// modes. The caller must Close it.
func StartSway(ctx context.Context, o SwayOptions) (_ *Sway, err error) {
	if err := need(map[string]string{"sway": "sway", "swaymsg": "sway", "setpriv": "util-linux"}); err != nil {
		return nil, err
	}
	if o.Width == 0 || o.Height == 0 {
		o.Width, o.Height = 1280, 720
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Outputs == 0 {
		o.Outputs = 1
	}
	uid := -1
	if os.Geteuid() == 0 {
		uid = nobody
	}
	s := &Sway{Width: o.Width, Height: o.Height, Scale: o.Scale}
	if s.RuntimeDir, err = privateDir("wl-sway-rt-*", uid); err != nil {
		return nil, err
	}
	if s.home, err = privateDir("wl-sway-home-*", uid); err != nil {
		os.RemoveAll(s.RuntimeDir)
		return nil, err
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	conf := filepath.Join(s.home, "config")
	if err := os.WriteFile(conf, []byte(swayConfig(o)), 0o644); err != nil {
		return nil, err
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + s.home, "XDG_RUNTIME_DIR=" + s.RuntimeDir,
		"WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman",
		"WLR_HEADLESS_OUTPUTS=" + strconv.Itoa(o.Outputs)}
	run := append([]string{"env", "-i"}, env...)
	run = append(run, "sway", "-c", conf)
	if uid >= 0 {
		run = append([]string{"setpriv", "--reuid=" + strconv.Itoa(uid), "--regid=" + strconv.Itoa(uid), "--clear-groups"}, run...)
	}
	if s.p, err = startWatched(run); err != nil {
		return nil, fmt.Errorf("wldisplay: start sway: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := waitFor(ctx, s.p, "wldisplay: sway's sockets", s.findSockets); err != nil {
		return nil, err
	}
	want := fmt.Sprintf("%dx%d", o.Width, o.Height)
	if err := waitFor(ctx, s.p, "wldisplay: sway's outputs at "+want, func() bool {
		outs, err := s.Outputs(ctx)
		if err != nil || len(outs) != o.Outputs {
			return false
		}
		for _, out := range outs {
			if fmt.Sprintf("%dx%d", out.Mode.Width, out.Mode.Height) != want || out.Scale != o.Scale {
				return false
			}
		}
		return true
	}); err != nil {
		return nil, err
	}
	return s, nil
}

func swayConfig(o SwayOptions) string {
	var b strings.Builder
	logical := int(float64(o.Width)/o.Scale + 0.5)
	for i := range o.Outputs {
		fmt.Fprintf(&b, "output HEADLESS-%d resolution %dx%d position %d,0 scale %g\n", i+1, o.Width, o.Height, i*logical, o.Scale)
	}
	b.WriteString("default_border none\ndefault_floating_border none\nfocus_follows_mouse no\nxwayland disable\n")
	return b.String()
}

// findSockets looks for the Wayland and IPC sockets in the runtime dir.
func (s *Sway) findSockets() bool {
	ents, err := os.ReadDir(s.RuntimeDir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasPrefix(n, "wayland-") && !strings.HasSuffix(n, ".lock"):
			s.Socket = filepath.Join(s.RuntimeDir, n)
		case strings.HasPrefix(n, "sway-ipc.") && strings.HasSuffix(n, ".sock"):
			s.IPC = filepath.Join(s.RuntimeDir, n)
		}
	}
	return s.Socket != "" && s.IPC != ""
}

// Env is a clean environment for a program on this compositor: its own
// runtime dir and socket, GTK and Qt on Wayland, UTF-8, no X display and no
// session bus of the developer's.
func (s *Sway) Env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.home, "XDG_RUNTIME_DIR=" + s.RuntimeDir,
		"WAYLAND_DISPLAY=" + s.Socket, "SWAYSOCK=" + s.IPC, "XDG_SESSION_TYPE=wayland", "XDG_CURRENT_DESKTOP=sway",
		"GDK_BACKEND=wayland", "QT_QPA_PLATFORM=wayland", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "NO_AT_BRIDGE=1"}
}

// Command is exec.Command with Env.
func (s *Sway) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = s.Env()
	return cmd
}

// Msg runs swaymsg with args and returns what it printed.
func (s *Sway) Msg(ctx context.Context, args ...string) (string, error) {
	out, err := s.Command(ctx, "swaymsg", args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("swaymsg %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// OutputInfo is one output as swaymsg -t get_outputs tells it.
type OutputInfo struct {
	Name  string  `json:"name"`
	Scale float64 `json:"scale"`
	Mode  struct {
		Width  int `json:"width"`
		Height int `json:"height"`
	} `json:"current_mode"`
	Rect rect `json:"rect"`
}

type rect struct {
	X, Y, Width, Height int
}

func (r rect) image() image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height) }

// Outputs lists the outputs.
func (s *Sway) Outputs(ctx context.Context) ([]OutputInfo, error) {
	out, err := s.Command(ctx, "swaymsg", "-r", "-t", "get_outputs").Output()
	if err != nil {
		return nil, err
	}
	var outs []OutputInfo
	return outs, json.Unmarshal(out, &outs)
}

// Window is a window in sway's tree.
type Window struct {
	AppID   string
	Title   string
	PID     int
	Rect    image.Rectangle // logical layout coordinates
	Focused bool
}

type node struct {
	AppID         string `json:"app_id"`
	Name          string `json:"name"`
	PID           int    `json:"pid"`
	Rect          rect   `json:"rect"`
	Focused       bool   `json:"focused"`
	Visible       bool   `json:"visible"`
	Nodes         []node `json:"nodes"`
	FloatingNodes []node `json:"floating_nodes"`
}

// Windows lists the visible application windows.
func (s *Sway) Windows(ctx context.Context) ([]Window, error) {
	out, err := s.Command(ctx, "swaymsg", "-r", "-t", "get_tree").Output()
	if err != nil {
		return nil, fmt.Errorf("swaymsg get_tree: %w", err)
	}
	var root node
	if err := json.Unmarshal(out, &root); err != nil {
		return nil, err
	}
	var ws []Window
	var walk func(n node)
	walk = func(n node) {
		if n.PID > 0 && n.Visible {
			ws = append(ws, Window{AppID: n.AppID, Title: n.Name, PID: n.PID, Rect: n.Rect.image(), Focused: n.Focused})
		}
		for _, c := range n.Nodes {
			walk(c)
		}
		for _, c := range n.FloatingNodes {
			walk(c)
		}
	}
	walk(root)
	return ws, nil
}

// WaitWindow waits until a window of process pid is mapped and focused and
// returns it.
func (s *Sway) WaitWindow(ctx context.Context, pid int) (Window, error) {
	var got Window
	err := waitFor(ctx, s.p, fmt.Sprintf("wldisplay: a focused window of pid %d", pid), func() bool {
		ws, err := s.Windows(ctx)
		if err != nil {
			return false
		}
		for _, w := range ws {
			if w.PID == pid && w.Focused && w.Rect.Dx() > 0 {
				got = w
				return true
			}
		}
		return false
	})
	return got, err
}

// Grim runs grim on output (all outputs when "") and writes the PNG to path.
func (s *Sway) Grim(ctx context.Context, output, path string) error {
	args := []string{}
	if output != "" {
		args = append(args, "-o", output)
	}
	out, err := s.Command(ctx, "grim", append(args, path)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("grim: %w: %s", err, out)
	}
	return nil
}

// Exited reports whether sway has quit.
func (s *Sway) Exited() bool { return s.p == nil || s.p.exited() }

// Log is the tail of sway's output.
func (s *Sway) Log() string {
	if s.p == nil {
		return ""
	}
	return s.p.out.String()
}

// Kill stops sway at once, as a crash would, and leaves the rest to Close.
func (s *Sway) Kill() {
	if s.p != nil {
		s.p.stop()
	}
}

// Close stops the programs started with Start, then sway, and removes the
// private directories. Safe twice.
func (s *Sway) Close() error {
	s.mu.Lock()
	apps := s.apps
	s.apps = nil
	s.mu.Unlock()
	for _, a := range apps {
		a.Stop()
	}
	if s.p != nil {
		s.p.stop()
	}
	var errs []error
	for _, d := range []string{s.RuntimeDir, s.home} {
		if d != "" {
			errs = append(errs, os.RemoveAll(d))
		}
	}
	return errors.Join(errs...)
}
