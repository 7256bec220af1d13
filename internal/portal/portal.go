// Package portal drives a desktop through xdg-desktop-portal's RemoteDesktop
// and ScreenCast interfaces on one session: the person allows it once in the
// desktop's consent dialog; where the RemoteDesktop portal is version 2 or
// later the session persists, and the restore token it returns lets the next
// session start without the dialog. Frames come from the session's PipeWire
// remote (package pipewire); input goes through the portal's Notify calls.
package portal

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

const (
	busName             = "org.freedesktop.portal.Desktop"
	objPath             = "/org/freedesktop/portal/desktop"
	rdIface             = "org.freedesktop.portal.RemoteDesktop"
	scIface             = "org.freedesktop.portal.ScreenCast"
	requestIface        = "org.freedesktop.portal.Request"
	sessionIface        = "org.freedesktop.portal.Session"
	deviceKbd           = 1
	devicePointer       = 2
	sourceMonitor       = 1
	cursorMeta          = 4 // ScreenCast cursor_mode "metadata"
	persistUntilRevoked = 2
)

// Versions reports the RemoteDesktop and ScreenCast portal versions; an
// error when the portal, or its RemoteDesktop, is missing.
func Versions(ctx context.Context, conn *dbus.Conn) (rd, sc uint32, err error) {
	obj := conn.Object(busName, objPath)
	get := func(iface string) (uint32, error) {
		var v dbus.Variant
		if err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, iface, "version").Store(&v); err != nil {
			return 0, err
		}
		n, _ := v.Value().(uint32)
		return n, nil
	}
	if rd, err = get(rdIface); err != nil {
		return 0, 0, fmt.Errorf("portal: no RemoteDesktop portal: %w", err)
	}
	if sc, err = get(scIface); err != nil {
		return 0, 0, fmt.Errorf("portal: no ScreenCast portal: %w", err)
	}
	return rd, sc, nil
}

// Stream is one screencast stream the person shared.
type Stream struct {
	Node     uint32
	Position [2]int32 // in the compositor's layout, when it says
	Size     [2]int32
}

// Options say how to start a session.
type Options struct {
	// RestoreToken is the token a previous persistent session returned; "" =
	// none, the dialog shows.
	RestoreToken string
	// Persist asks for a session that persists until revoked (RemoteDesktop
	// version 2 and later).
	Persist bool
}

// Session is a started RemoteDesktop session with its screencast. Safe for
// concurrent use.
type Session struct {
	conn    *dbus.Conn
	obj     dbus.BusObject
	handle  dbus.ObjectPath
	Streams []Stream
	// Devices are the devices the person allowed (1 keyboard, 2 pointer).
	Devices uint32
	// RestoreToken is the token for the next session; "" when the portal
	// gave none (it cannot persist).
	RestoreToken string
	closed       chan struct{}
	once         sync.Once
}

func token() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "deskpilot_" + hex.EncodeToString(b)
}

// request calls method and waits for its Response: the results, or an error
// when the person cancelled or the portal failed.
func request(ctx context.Context, conn *dbus.Conn, method string, opts map[string]dbus.Variant, args ...any) (map[string]dbus.Variant, error) {
	tok := token()
	opts["handle_token"] = dbus.MakeVariant(tok)
	sender := strings.NewReplacer(":", "", ".", "_").Replace(conn.Names()[0])
	path := dbus.ObjectPath(objPath + "/request/" + sender + "/" + tok)
	ch := make(chan *dbus.Signal, 4)
	conn.Signal(ch)
	defer conn.RemoveSignal(ch)
	match := []dbus.MatchOption{dbus.WithMatchObjectPath(path), dbus.WithMatchInterface(requestIface), dbus.WithMatchMember("Response")}
	if err := conn.AddMatchSignalContext(ctx, match...); err != nil {
		return nil, err
	}
	defer conn.RemoveMatchSignalContext(context.WithoutCancel(ctx), match...)
	if err := conn.Object(busName, objPath).CallWithContext(ctx, method, 0, append(args, opts)...).Err; err != nil {
		return nil, fmt.Errorf("portal: %s: %w", method, err)
	}
	for {
		select {
		case sig := <-ch:
			if sig.Path != path || len(sig.Body) != 2 {
				continue
			}
			code, _ := sig.Body[0].(uint32)
			results, _ := sig.Body[1].(map[string]dbus.Variant)
			switch code {
			case 0:
				return results, nil
			case 1:
				return nil, fmt.Errorf("portal: %s: the request was cancelled (the person declined)", method)
			default:
				return nil, fmt.Errorf("portal: %s: the portal failed the request (code %d)", method, code)
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("portal: %s: no answer: %w", method, ctx.Err())
		}
	}
}

// Start creates the session, selects keyboard, pointer and one monitor, and
// starts it: the desktop asks the person unless opts.RestoreToken is still
// valid. ctx bounds the wait for the person.
func Start(ctx context.Context, conn *dbus.Conn, rdVersion uint32, opts Options) (_ *Session, err error) {
	s := &Session{conn: conn, obj: conn.Object(busName, objPath), closed: make(chan struct{})}
	res, err := request(ctx, conn, rdIface+".CreateSession", map[string]dbus.Variant{
		"session_handle_token": dbus.MakeVariant(token())})
	if err != nil {
		return nil, err
	}
	h, _ := res["session_handle"].Value().(string)
	if h == "" {
		return nil, errors.New("portal: CreateSession returned no session")
	}
	s.handle = dbus.ObjectPath(h)
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	dev := map[string]dbus.Variant{"types": dbus.MakeVariant(uint32(deviceKbd | devicePointer))}
	if rdVersion >= 2 && opts.Persist {
		dev["persist_mode"] = dbus.MakeVariant(uint32(persistUntilRevoked))
		if opts.RestoreToken != "" {
			dev["restore_token"] = dbus.MakeVariant(opts.RestoreToken)
		}
	}
	if _, err := request(ctx, conn, rdIface+".SelectDevices", dev, s.handle); err != nil {
		return nil, err
	}
	src := map[string]dbus.Variant{"types": dbus.MakeVariant(uint32(sourceMonitor)), "multiple": dbus.MakeVariant(false)}
	if _, err := request(ctx, conn, scIface+".SelectSources", src, s.handle); err != nil {
		return nil, err
	}
	res, err = request(ctx, conn, rdIface+".Start", map[string]dbus.Variant{}, s.handle, "")
	if err != nil {
		return nil, err
	}
	s.Devices, _ = res["devices"].Value().(uint32)
	s.RestoreToken, _ = res["restore_token"].Value().(string)
	if v, ok := res["streams"]; ok {
		s.Streams = parseStreams(v.Value())
	}
	if len(s.Streams) == 0 {
		return nil, errors.New("portal: the session started without a screencast stream")
	}
	if s.Devices&devicePointer == 0 || s.Devices&deviceKbd == 0 {
		return nil, fmt.Errorf("portal: the person allowed devices %d, not both keyboard and pointer (turn on remote interaction in the dialog)", s.Devices)
	}
	go s.watch()
	return s, nil
}

// parseStreams reads Start's streams, a(ua{sv}).
func parseStreams(v any) []Stream {
	var out []Stream
	list, ok := v.([][]any)
	if !ok {
		return nil
	}
	for _, item := range list {
		if len(item) != 2 {
			continue
		}
		node, _ := item[0].(uint32)
		st := Stream{Node: node}
		if props, ok := item[1].(map[string]dbus.Variant); ok {
			if p, ok := props["position"].Value().([]any); ok && len(p) == 2 {
				st.Position[0], _ = p[0].(int32)
				st.Position[1], _ = p[1].(int32)
			}
			if p, ok := props["size"].Value().([]any); ok && len(p) == 2 {
				st.Size[0], _ = p[0].(int32)
				st.Size[1], _ = p[1].(int32)
			}
		}
		out = append(out, st)
	}
	return out
}

// watch notices the session closing (the person revoked it, the portal quit).
func (s *Session) watch() {
	ch := make(chan *dbus.Signal, 4)
	s.conn.Signal(ch)
	defer s.conn.RemoveSignal(ch)
	_ = s.conn.AddMatchSignal(dbus.WithMatchObjectPath(s.handle), dbus.WithMatchInterface(sessionIface), dbus.WithMatchMember("Closed"))
	for {
		select {
		case sig := <-ch:
			if sig.Path == s.handle && sig.Name == sessionIface+".Closed" {
				s.once.Do(func() { close(s.closed) })
				return
			}
		case <-s.closed:
			return
		case <-s.conn.Context().Done():
			s.once.Do(func() { close(s.closed) })
			return
		}
	}
}

// Done is closed when the session has ended.
func (s *Session) Done() <-chan struct{} { return s.closed }

// OpenPipeWireRemote returns a PipeWire connection for the session's streams.
func (s *Session) OpenPipeWireRemote(ctx context.Context) (int, error) {
	var fd dbus.UnixFD
	if err := s.obj.CallWithContext(ctx, scIface+".OpenPipeWireRemote", 0, s.handle, map[string]dbus.Variant{}).Store(&fd); err != nil {
		return -1, fmt.Errorf("portal: OpenPipeWireRemote: %w", err)
	}
	return int(fd), nil
}

func (s *Session) notify(method string, args ...any) error {
	select {
	case <-s.closed:
		return errors.New("portal: the remote desktop session has ended (revoked, or the portal quit)")
	default:
	}
	all := append([]any{s.handle, map[string]dbus.Variant{}}, args...)
	// Each call waits for its reply: xdg-desktop-portal handles method calls
	// on a pool of threads, so calls sent without waiting reached the desktop
	// out of order (typed "typ via the ortaled" for "typed via the portal").
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.obj.CallWithContext(ctx, rdIface+"."+method, 0, all...).Err; err != nil {
		return fmt.Errorf("portal: %s: %w", method, err)
	}
	return nil
}

// MoveTo puts the pointer at (x, y) of the stream (its own coordinates).
func (s *Session) MoveTo(stream uint32, x, y float64) error {
	return s.notify("NotifyPointerMotionAbsolute", stream, x, y)
}

// Button presses or releases a button (a Linux button code).
func (s *Session) Button(code uint32, down bool) error {
	return s.notify("NotifyPointerButton", int32(code), state(down))
}

// Scroll turns the wheel n notches on axis 0 (vertical) or 1 (horizontal).
func (s *Session) Scroll(axis uint32, n int) error {
	return s.notify("NotifyPointerAxisDiscrete", axis, int32(n))
}

// Key presses or releases the key of keysym sym.
func (s *Session) Key(sym uint32, down bool) error {
	return s.notify("NotifyKeyboardKeysym", int32(sym), state(down))
}

func state(down bool) uint32 {
	if down {
		return 1
	}
	return 0
}

// Sync waits until the portal has handled every call sent before it.
func (s *Session) Sync(ctx context.Context) error {
	var v dbus.Variant
	return s.obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, rdIface, "version").Store(&v)
}

// Close ends the session. Safe twice.
func (s *Session) Close() error {
	if s.handle == "" {
		return nil
	}
	err := s.conn.Object(busName, s.handle).Call(sessionIface+".Close", 0).Err
	s.once.Do(func() { close(s.closed) })
	return err
}
