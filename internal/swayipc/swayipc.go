// Package swayipc is a client of sway's IPC (the i3 IPC protocol over a Unix
// socket): the window tree with each window's process and logical geometry,
// commands, and window events. deskpilot reads its own windows and the
// focus from it, which the Wayland protocols do not tell a client.
package swayipc

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Message types (sway-ipc(7)).
const (
	msgCommand    = 0
	msgSubscribe  = 2
	msgGetOutputs = 3
	msgGetTree    = 4
	msgGetVer     = 7
	eventWindow   = 0x80000003
)

const magic = "i3-ipc"

// maxPayload bounds a reply: a tree of thousands of windows is a few MB.
const maxPayload = 64 << 20

// Conn is one IPC connection. Safe for concurrent use (requests are serialised).
type Conn struct {
	mu   sync.Mutex
	c    net.Conn
	path string
}

// Find returns sway's IPC socket: $SWAYSOCK when set, else the socket of a
// running sway in the directory of the Wayland socket (sway names it
// sway-ipc.UID.PID.sock there).
func Find(waylandSocket string) (string, error) {
	if s := os.Getenv("SWAYSOCK"); s != "" {
		return s, nil
	}
	dir := filepath.Dir(waylandSocket)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("sway ipc: %w", err)
	}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, "sway-ipc.") || !strings.HasSuffix(n, ".sock") {
			continue
		}
		parts := strings.Split(strings.TrimSuffix(n, ".sock"), ".")
		if len(parts) != 3 {
			continue
		}
		pid, err := strconv.Atoi(parts[2])
		if err != nil || syscall.Kill(pid, 0) == syscall.ESRCH {
			continue // a stale socket of a sway that is gone
		}
		return filepath.Join(dir, n), nil
	}
	return "", errors.New("sway ipc: no sway IPC socket (SWAYSOCK is unset and none is next to the Wayland socket)")
}

// Dial connects to the IPC socket.
func Dial(path string) (*Conn, error) {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		return nil, fmt.Errorf("sway ipc: %w", err)
	}
	return &Conn{c: c, path: path}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

func write(w io.Writer, typ uint32, payload []byte) error {
	b := make([]byte, 0, 14+len(payload))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, typ)
	_, err := w.Write(append(b, payload...))
	return err
}

func read(r io.Reader) (uint32, []byte, error) {
	var h [14]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	if string(h[:6]) != magic {
		return 0, nil, errors.New("sway ipc: bad magic")
	}
	n := binary.LittleEndian.Uint32(h[6:])
	if n > maxPayload {
		return 0, nil, fmt.Errorf("sway ipc: reply of %d bytes is too long", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return binary.LittleEndian.Uint32(h[10:]), b, err
}

// call sends one request and reads its reply.
func (c *Conn) call(ctx context.Context, typ uint32, payload []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if dl, ok := ctx.Deadline(); ok {
		c.c.SetDeadline(dl)
	} else {
		c.c.SetDeadline(time.Now().Add(5 * time.Second))
	}
	if err := write(c.c, typ, payload); err != nil {
		return nil, fmt.Errorf("sway ipc: %w", err)
	}
	_, b, err := read(c.c)
	if err != nil {
		return nil, fmt.Errorf("sway ipc: %w", err)
	}
	return b, nil
}

// Version is sway's version string ("1.7").
func (c *Conn) Version(ctx context.Context) (string, error) {
	b, err := c.call(ctx, msgGetVer, nil)
	if err != nil {
		return "", err
	}
	var v struct {
		Human string `json:"human_readable"`
	}
	return v.Human, json.Unmarshal(b, &v)
}

// Command runs sway commands (sway(5)) and reports the first that failed.
func (c *Conn) Command(ctx context.Context, cmd string) error {
	b, err := c.call(ctx, msgCommand, []byte(cmd))
	if err != nil {
		return err
	}
	var res []struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("sway ipc: command reply: %w", err)
	}
	for _, r := range res {
		if !r.Success {
			return fmt.Errorf("sway ipc: %q: %s", cmd, r.Error)
		}
	}
	return nil
}

// Window is an application window in the tree.
type Window struct {
	ID       int64
	PID      int
	AppID    string
	Title    string
	Rect     image.Rectangle // the window's content, logical layout coordinates
	Frame    image.Rectangle // with its decorations
	Focused  bool
	Floating bool
	Output   string
}

type rect struct{ X, Y, Width, Height int }

// maxCoord bounds a coordinate or size sway reports: far beyond any layout,
// small enough that sums and scaling cannot overflow.
const maxCoord = 1 << 24

func clampCoord(v int) int { return min(max(v, -maxCoord), maxCoord) }

// image is r as a rectangle, its numbers clamped to ±maxCoord and a negative
// size taken as none.
func (r rect) image() image.Rectangle {
	x, y := clampCoord(r.X), clampCoord(r.Y)
	return image.Rect(x, y, x+max(clampCoord(r.Width), 0), y+max(clampCoord(r.Height), 0))
}

type node struct {
	ID            int64  `json:"id"`
	Type          string `json:"type"`
	Name          string `json:"name"`
	AppID         string `json:"app_id"`
	PID           int    `json:"pid"`
	Rect          rect   `json:"rect"`
	WindowRect    rect   `json:"window_rect"`
	DecoRect      rect   `json:"deco_rect"`
	Focused       bool   `json:"focused"`
	Visible       *bool  `json:"visible"`
	Nodes         []node `json:"nodes"`
	FloatingNodes []node `json:"floating_nodes"`
}

// Windows lists the visible windows, bottom of the stack first (tiled, then
// floating, as sway draws them).
func (c *Conn) Windows(ctx context.Context) ([]Window, error) {
	b, err := c.call(ctx, msgGetTree, nil)
	if err != nil {
		return nil, err
	}
	return parseTree(b)
}

// parseTree reads the windows of a get_tree reply. encoding/json refuses
// nesting deeper than 10000, which bounds the walk's recursion.
func parseTree(b []byte) ([]Window, error) {
	var root node
	if err := json.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("sway ipc: tree: %w", err)
	}
	var out []Window
	var walk func(n node, output string, floating bool)
	walk = func(n node, output string, floating bool) {
		if n.Type == "output" {
			output = n.Name
		}
		if n.PID > 0 && n.Visible != nil && *n.Visible {
			// rect is the container; window_rect the client inside it.
			frame := n.Rect.image()
			content := n.WindowRect.image().Add(frame.Min)
			out = append(out, Window{ID: n.ID, PID: n.PID, AppID: n.AppID, Title: n.Name,
				Rect: content, Frame: frame, Focused: n.Focused, Floating: floating, Output: output})
		}
		for _, k := range n.Nodes {
			walk(k, output, floating)
		}
		for _, k := range n.FloatingNodes {
			walk(k, output, true)
		}
	}
	walk(root, "", false)
	// Floating windows are drawn above tiled ones.
	var tiled, floating []Window
	for _, w := range out {
		if w.Floating {
			floating = append(floating, w)
		} else {
			tiled = append(tiled, w)
		}
	}
	return append(tiled, floating...), nil
}

// Subscribe opens a second connection that receives window events; each
// event (new, close, focus, move, ...) calls fn with its change, on a
// goroutine of its own, until ctx ends or sway goes away.
func Subscribe(ctx context.Context, path string, fn func(change string)) error {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		return fmt.Errorf("sway ipc: %w", err)
	}
	if err := write(c, msgSubscribe, []byte(`["window"]`)); err != nil {
		c.Close()
		return fmt.Errorf("sway ipc: subscribe: %w", err)
	}
	if _, b, err := read(c); err != nil || !strings.Contains(string(b), "true") {
		c.Close()
		return fmt.Errorf("sway ipc: subscribe refused: %v %s", err, b)
	}
	go func() {
		<-ctx.Done()
		c.Close()
	}()
	go func() {
		defer c.Close()
		for {
			typ, b, err := read(c)
			if err != nil {
				return
			}
			if typ != eventWindow {
				continue
			}
			var ev struct {
				Change string `json:"change"`
			}
			if json.Unmarshal(b, &ev) == nil {
				fn(ev.Change)
			}
		}
	}()
	return nil
}

// Output is one active output as sway lays it out.
type Output struct {
	Name    string
	Rect    image.Rectangle // logical layout coordinates
	Scale   float64
	Focused bool
}

// Outputs lists the active outputs.
func (c *Conn) Outputs(ctx context.Context) ([]Output, error) {
	b, err := c.call(ctx, msgGetOutputs, nil)
	if err != nil {
		return nil, err
	}
	var raw []struct {
		Name    string  `json:"name"`
		Active  bool    `json:"active"`
		Focused bool    `json:"focused"`
		Scale   float64 `json:"scale"`
		Rect    rect    `json:"rect"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("sway ipc: outputs: %w", err)
	}
	var out []Output
	for _, o := range raw {
		if o.Active {
			out = append(out, Output{Name: o.Name, Rect: o.Rect.image(), Scale: o.Scale, Focused: o.Focused})
		}
	}
	return out, nil
}
