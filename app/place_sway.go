//go:build linux

package app

import (
	"context"
	"fmt"
	"image"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"

	"deskpilot/internal/swayipc"
)

// swayPlacer is the placer's way on sway, where a Wayland client cannot
// move its own window: it asks sway over its IPC to float the window, size
// it and move it to a corner of the output (sticky, so it follows the
// workspace), and to tile it again for the full window. Keep-out rectangles
// arrive in the desktop's root coordinates, which on Wayland are buffer
// pixels (the wlroots backend's); sway lays windows out in logical pixels,
// so they are divided by the output's scale.
type swayPlacer struct {
	once   sync.Once
	conn   *swayipc.Conn // nil when there is no sway
	ops    chan func()
	busy   atomic.Bool
	pid    int
	corner corner
	strip  bool
}

// start connects to sway on first use; false when this is not sway.
func (p *swayPlacer) start() bool {
	p.once.Do(func() {
		socket := os.Getenv("WAYLAND_DISPLAY")
		if socket == "" {
			return
		}
		path, err := swayipc.Find(swaySocketPath(socket))
		if err != nil {
			return
		}
		if p.conn, err = swayipc.Dial(path); err != nil {
			p.conn = nil
			return
		}
		p.pid = os.Getpid()
		p.ops = make(chan func(), 16)
		go func() {
			for op := range p.ops {
				op()
			}
		}()
	})
	return p.conn != nil
}

// swaySocketPath is the Wayland socket's path for name (absolute, or in
// $XDG_RUNTIME_DIR), whose folder holds sway's IPC socket.
func swaySocketPath(name string) string {
	if len(name) > 0 && name[0] == '/' {
		return name
	}
	return os.Getenv("XDG_RUNTIME_DIR") + "/" + name
}

// toStrip is placer.toStrip on sway.
func (p *swayPlacer) toStrip(win fyne.Window, size fyne.Size, keep []keepOut, must bool, placed func(placement)) bool {
	if !p.start() {
		return false
	}
	if !must && !p.busy.CompareAndSwap(false, true) {
		return false
	}
	want := image.Pt(int(size.Width+0.5), int(size.Height+0.5)) // Fyne units are logical pixels
	op := func() {
		if !must {
			defer p.busy.Store(false)
		}
		pl := p.place(want, keep, must)
		if placed != nil {
			placed(pl)
		}
	}
	select {
	case p.ops <- op:
		return true
	default:
		if !must {
			p.busy.Store(false)
		}
		return false
	}
}

// place floats the window and moves it where pickCorner says; run by the worker.
func (p *swayPlacer) place(want image.Point, keep []keepOut, must bool) placement {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	first := !p.strip
	if first {
		p.corner = bottomRight
	}
	p.strip = true
	pl := placement{first: first, from: p.corner, corner: p.corner}
	own, work, out, ok := p.windows(ctx)
	if !ok {
		return pl
	}
	scale := out.Scale
	if scale <= 0 {
		scale = 1
	}
	var logical []keepOut
	for _, k := range keep {
		r := image.Rect(int(float64(k.r.Min.X)/scale), int(float64(k.r.Min.Y)/scale),
			int(float64(k.r.Max.X)/scale+0.99), int(float64(k.r.Max.Y)/scale+0.99))
		logical = append(logical, keepOut{r: r, weight: k.weight})
	}
	if !work.Empty() {
		logical = append(logical, keepOut{r: work, weight: weightWindow})
	}
	cur := own.Frame
	if !own.Floating {
		cur = image.Rectangle{} // tiled: not in any corner yet
	}
	to, at, move := pickCorner(out.Rect, cur, want, logical, p.corner, must || first)
	if move || first {
		cmd := fmt.Sprintf("[pid=%d] floating enable, sticky enable, border none, resize set width %d px height %d px, move absolute position %d px %d px",
			p.pid, want.X, want.Y, at.Min.X, at.Min.Y)
		if err := p.conn.Command(ctx, cmd); err == nil {
			p.waitAt(ctx, at.Min)
			p.corner, pl.corner, pl.moved = to, to, move && !first
		}
	}
	return pl
}

// windows finds this process's window, the window the agent most likely
// works in (the focused one of another program) and the output they are on.
func (p *swayPlacer) windows(ctx context.Context) (own swayipc.Window, work image.Rectangle, out swayipc.Output, ok bool) {
	wins, err := p.conn.Windows(ctx)
	if err != nil {
		return own, work, out, false
	}
	found := false
	for _, w := range wins {
		switch {
		case w.PID == p.pid:
			own, found = w, true
		case w.Focused:
			work = w.Frame
		}
	}
	outs, err := p.conn.Outputs(ctx)
	if err != nil || len(outs) == 0 || !found {
		return own, work, out, false
	}
	out = outs[0]
	for _, o := range outs {
		if o.Name == own.Output {
			out = o
		}
	}
	return own, work, out, true
}

// waitAt waits until sway shows the window at pos, at most a second.
func (p *swayPlacer) waitAt(ctx context.Context, pos image.Point) {
	for range 50 {
		wins, err := p.conn.Windows(ctx)
		if err != nil {
			return
		}
		for _, w := range wins {
			if w.PID == p.pid && w.Frame.Min == pos {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// toFull tiles the window again and focuses it.
func (p *swayPlacer) toFull() {
	if !p.start() {
		return
	}
	select {
	case p.ops <- func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		p.strip = false
		_ = p.conn.Command(ctx, fmt.Sprintf("[pid=%d] sticky disable, floating disable, focus", p.pid))
	}:
	default:
	}
}
