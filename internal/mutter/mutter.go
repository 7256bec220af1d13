// Package mutter drives GNOME's compositor through its own D-Bus API:
// org.gnome.Mutter.RemoteDesktop for the pointer and keyboard and
// org.gnome.Mutter.ScreenCast for the monitor's frames (a PipeWire node),
// both in one session on one long-lived connection (Mutter ends a session
// when the connection that made it closes), plus org.gnome.Mutter.IdleMonitor
// for idle time and org.gnome.Mutter.DisplayConfig for the monitors.
package mutter

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The bus names and paths.
const (
	rdName      = "org.gnome.Mutter.RemoteDesktop"
	rdPath      = "/org/gnome/Mutter/RemoteDesktop"
	rdSession   = "org.gnome.Mutter.RemoteDesktop.Session"
	scName      = "org.gnome.Mutter.ScreenCast"
	scPath      = "/org/gnome/Mutter/ScreenCast"
	scSession   = "org.gnome.Mutter.ScreenCast.Session"
	scStream    = "org.gnome.Mutter.ScreenCast.Stream"
	idleName    = "org.gnome.Mutter.IdleMonitor"
	idlePath    = "/org/gnome/Mutter/IdleMonitor/Core"
	displayName = "org.gnome.Mutter.DisplayConfig"
	displayPath = "/org/gnome/Mutter/DisplayConfig"
)

// cursorMetadata is ScreenCast's cursor-mode 2: the pointer is not drawn
// into frames but sent beside them, so its position can be read.
const cursorMetadata = uint32(2)

// Monitor is one logical monitor as DisplayConfig reports it.
type Monitor struct {
	Connector string          // "Meta-0", "DP-1"
	Bounds    image.Rectangle // logical layout coordinates
	Scale     float64
	Primary   bool
}

// Session is one RemoteDesktop session with a ScreenCast stream of one
// monitor. Safe for concurrent use.
type Session struct {
	clipMu  sync.Mutex
	clip    string // the text this session offers as the clipboard
	clipOn  bool
	conn    *dbus.Conn
	rd      dbus.BusObject
	sc      dbus.BusObject
	stream  dbus.ObjectPath
	node    uint32
	closed  chan struct{}
	once    sync.Once
	signals chan *dbus.Signal
}

// Connect opens the session bus at addr ("" = DBUS_SESSION_BUS_ADDRESS).
func Connect(addr string) (*dbus.Conn, error) {
	var conn *dbus.Conn
	var err error
	if addr == "" {
		conn, err = dbus.ConnectSessionBus()
	} else {
		conn, err = dbus.Connect(addr)
	}
	if err != nil {
		return nil, fmt.Errorf("mutter: session bus: %w", err)
	}
	return conn, nil
}

// Available reports whether Mutter's RemoteDesktop and ScreenCast are on the bus.
func Available(ctx context.Context, conn *dbus.Conn) error {
	for _, name := range []string{rdName, scName} {
		var has bool
		if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has); err != nil {
			return fmt.Errorf("mutter: %w", err)
		}
		if !has {
			return fmt.Errorf("mutter: %s is not on the session bus (not GNOME, or GNOME without remote desktop)", name)
		}
	}
	return nil
}

// Monitors lists the logical monitors, left to right.
func Monitors(ctx context.Context, conn *dbus.Conn) ([]Monitor, error) {
	var (
		serial uint32
		mons   []struct {
			Spec  struct{ Connector, Vendor, Product, Serial string }
			Modes []struct {
				ID            string
				W, H          int32
				Refresh, Pref float64
				Scales        []float64
				Props         map[string]dbus.Variant
			}
			Props map[string]dbus.Variant
		}
		logical []struct {
			X, Y     int32
			Scale    float64
			Rot      uint32
			Primary  bool
			Monitors []struct{ Connector, Vendor, Product, Serial string }
			Props    map[string]dbus.Variant
		}
		props map[string]dbus.Variant
	)
	call := conn.Object(displayName, displayPath).CallWithContext(ctx, displayName+".GetCurrentState", 0)
	if err := call.Store(&serial, &mons, &logical, &props); err != nil {
		return nil, fmt.Errorf("mutter: display config: %w", err)
	}
	layoutPhysical := false
	if v, ok := props["layout-mode"]; ok {
		if m, ok := v.Value().(uint32); ok && m == 2 {
			layoutPhysical = true
		}
	}
	var out []Monitor
	for _, l := range logical {
		if len(l.Monitors) == 0 {
			continue
		}
		conn := l.Monitors[0].Connector
		var w, h int32
		for _, m := range mons {
			if m.Spec.Connector != conn {
				continue
			}
			for _, md := range m.Modes {
				if v, ok := md.Props["is-current"]; ok && v.Value() == true {
					w, h = md.W, md.H
				}
			}
		}
		if !layoutPhysical && l.Scale > 0 { // logical layout: sizes are divided by the scale
			w, h = int32(float64(w)/l.Scale+0.5), int32(float64(h)/l.Scale+0.5)
		}
		out = append(out, Monitor{Connector: conn, Bounds: image.Rect(int(l.X), int(l.Y), int(l.X+w), int(l.Y+h)),
			Scale: l.Scale, Primary: l.Primary})
	}
	return out, nil
}

// Start makes a RemoteDesktop session recording the monitor of connector
// ("" = the primary) and starts it; it returns once the stream's PipeWire
// node is known. The session ends with Close or when conn closes.
func Start(ctx context.Context, conn *dbus.Conn, connector string) (_ *Session, err error) {
	s := &Session{conn: conn, closed: make(chan struct{}), signals: make(chan *dbus.Signal, 16)}
	var rdp dbus.ObjectPath
	if err := conn.Object(rdName, rdPath).CallWithContext(ctx, rdName+".CreateSession", 0).Store(&rdp); err != nil {
		return nil, fmt.Errorf("mutter: remote desktop session: %w", err)
	}
	s.rd = conn.Object(rdName, rdp)
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	id, err := s.rd.GetProperty(rdSession + ".SessionId")
	if err != nil {
		return nil, fmt.Errorf("mutter: session id: %w", err)
	}
	var scp dbus.ObjectPath
	opts := map[string]dbus.Variant{"remote-desktop-session-id": id}
	if err := conn.Object(scName, scPath).CallWithContext(ctx, scName+".CreateSession", 0, opts).Store(&scp); err != nil {
		return nil, fmt.Errorf("mutter: screencast session: %w", err)
	}
	s.sc = conn.Object(scName, scp)
	rec := map[string]dbus.Variant{"cursor-mode": dbus.MakeVariant(cursorMetadata)}
	if err := s.sc.CallWithContext(ctx, scSession+".RecordMonitor", 0, connector, rec).Store(&s.stream); err != nil {
		return nil, fmt.Errorf("mutter: record monitor %q: %w", connector, err)
	}
	conn.Signal(s.signals)
	for _, m := range []dbus.MatchOption{
		dbus.WithMatchObjectPath(s.stream), dbus.WithMatchObjectPath(rdp),
	} {
		if err := conn.AddMatchSignalContext(ctx, m); err != nil {
			return nil, fmt.Errorf("mutter: watch the session: %w", err)
		}
	}
	// The RemoteDesktop session starts its ScreenCast session too.
	if err := s.rd.CallWithContext(ctx, rdSession+".Start", 0).Err; err != nil {
		return nil, fmt.Errorf("mutter: start the session: %w", err)
	}
	for s.node == 0 {
		select {
		case sig := <-s.signals:
			if sig.Path == s.stream && sig.Name == scStream+".PipeWireStreamAdded" && len(sig.Body) == 1 {
				s.node, _ = sig.Body[0].(uint32)
			}
			if sig.Path == rdp && sig.Name == rdSession+".Closed" {
				return nil, errors.New("mutter: the session closed before its stream started")
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("mutter: no PipeWire stream: %w", ctx.Err())
		}
	}
	go s.watch(rdp)
	return s, nil
}

// watch notices the session closing (Mutter stopped it, or quit).
func (s *Session) watch(rdp dbus.ObjectPath) {
	for {
		select {
		case sig, ok := <-s.signals:
			if !ok || (sig.Path == rdp && sig.Name == rdSession+".Closed") {
				s.markClosed()
				return
			}
			if sig.Path == rdp && sig.Name == rdSession+".SelectionTransfer" && len(sig.Body) == 2 {
				if serial, ok := sig.Body[1].(uint32); ok {
					go s.serveSelection(serial)
				}
			}
		case <-s.closed:
			return
		case <-s.conn.Context().Done():
			s.markClosed()
			return
		}
	}
}

func (s *Session) markClosed() { s.once.Do(func() { close(s.closed) }) }

// Node is the PipeWire node of the monitor's stream.
func (s *Session) Node() uint32 { return s.node }

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.closed }

func (s *Session) notify(method string, args ...any) error {
	select {
	case <-s.closed:
		return errors.New("mutter: the remote desktop session has ended (GNOME closed it or quit)")
	default:
	}
	// NoReplyExpected: input goes out without a round trip; the bus keeps the order.
	if err := s.rd.Call(rdSession+"."+method, dbus.FlagNoReplyExpected, args...).Err; err != nil {
		return fmt.Errorf("mutter: %s: %w", method, err)
	}
	return nil
}

// MoveTo puts the pointer on p, in the stream's coordinates (the monitor's,
// origin at its top-left).
func (s *Session) MoveTo(p image.Point) error {
	return s.notify("NotifyPointerMotionAbsolute", string(s.stream), float64(p.X)+0.5, float64(p.Y)+0.5)
}

// Button presses (down) or releases a button (a Linux button code, 0x110 = left).
func (s *Session) Button(code uint32, down bool) error {
	return s.notify("NotifyPointerButton", int32(code), down)
}

// Scroll turns the wheel n notches on axis 0 (vertical) or 1 (horizontal),
// positive down or right.
func (s *Session) Scroll(axis uint32, n int) error {
	return s.notify("NotifyPointerAxisDiscrete", axis, int32(n))
}

// Key presses (down) or releases the key of keysym sym; Mutter finds (or
// makes) a key for it in the current keymap.
func (s *Session) Key(sym uint32, down bool) error {
	return s.notify("NotifyKeyboardKeysym", sym, down)
}

// textMimes are the types the clipboard text is offered as.
var textMimes = []string{"text/plain;charset=utf-8", "text/plain", "UTF8_STRING", "STRING", "TEXT"}

// SetClipboard makes text the clipboard, served by this session whenever a
// program pastes, until another program takes the clipboard.
func (s *Session) SetClipboard(ctx context.Context, text string) error {
	s.clipMu.Lock()
	defer s.clipMu.Unlock()
	if !s.clipOn {
		if err := s.rd.CallWithContext(ctx, rdSession+".EnableClipboard", 0, map[string]dbus.Variant{}).Err; err != nil {
			return fmt.Errorf("mutter: enable the clipboard: %w", err)
		}
		s.clipOn = true
	}
	s.clip = text
	opts := map[string]dbus.Variant{"mime-types": dbus.MakeVariant(textMimes)}
	if err := s.rd.CallWithContext(ctx, rdSession+".SetSelection", 0, opts).Err; err != nil {
		return fmt.Errorf("mutter: set the clipboard: %w", err)
	}
	return nil
}

// serveSelection writes the clipboard text for transfer serial.
func (s *Session) serveSelection(serial uint32) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var fd dbus.UnixFD
	ok := false
	if err := s.rd.CallWithContext(ctx, rdSession+".SelectionWrite", 0, serial).Store(&fd); err == nil {
		f := os.NewFile(uintptr(fd), "selection")
		s.clipMu.Lock()
		text := s.clip
		s.clipMu.Unlock()
		_, err := f.WriteString(text)
		ok = err == nil
		f.Close()
	}
	s.rd.CallWithContext(ctx, rdSession+".SelectionWriteDone", 0, serial, ok)
}

// Sync waits until Mutter has handled every call sent before it.
func (s *Session) Sync(ctx context.Context) error {
	if _, err := s.rd.GetProperty(rdSession + ".SessionId"); err != nil {
		return fmt.Errorf("mutter: %w", err)
	}
	return ctx.Err()
}

// Close stops the session. Safe twice.
func (s *Session) Close() error {
	var err error
	if s.rd != nil {
		select {
		case <-s.closed:
		default:
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			err = s.rd.CallWithContext(ctx, rdSession+".Stop", 0).Err
			cancel()
		}
	}
	s.markClosed()
	s.conn.RemoveSignal(s.signals)
	return err
}

// Idle is how long ago Mutter last saw input, any device's.
func Idle(ctx context.Context, conn *dbus.Conn) (time.Duration, error) {
	var ms uint64
	if err := conn.Object(idleName, idlePath).CallWithContext(ctx, idleName+".GetIdletime", 0).Store(&ms); err != nil {
		return 0, fmt.Errorf("mutter: idle time: %w", err)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
