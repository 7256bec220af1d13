package atspi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"

	"deskpilot/a11y"
)

// D-Bus names of the AT-SPI services.
const (
	launcherName   = "org.a11y.Bus"
	launcherPath   = "/org/a11y/bus"
	registryName   = "org.a11y.atspi.Registry"
	registryRoot   = "/org/a11y/atspi/accessible/root"
	cachePath      = "/org/a11y/atspi/cache"
	ifAccessible   = "org.a11y.atspi.Accessible"
	ifApplication  = "org.a11y.atspi.Application"
	ifCache        = "org.a11y.atspi.Cache"
	ifComponentBus = "org.a11y.atspi.Component"
	ifTextBus      = "org.a11y.atspi.Text"
	ifActionBus    = "org.a11y.atspi.Action"
	ifProperties   = "org.freedesktop.DBus.Properties"
)

// busConn is a private connection to a bus, closed by close.
type busConn struct {
	*dbus.Conn
	cancel context.CancelFunc
}

func (b *busConn) close() {
	b.cancel()
	_ = b.Conn.Close()
}

// dial connects to the bus at addr, authenticates and says Hello. The connection
// lives until close, but dialling gives up when ctx ends: the connection's own
// context is cancelled, which closes the socket a stuck handshake reads from.
func dial(ctx context.Context, addr string) (*busConn, error) {
	life, cancel := context.WithCancel(context.Background())
	type result struct {
		c   *dbus.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		c, err := dbus.Connect(addr, dbus.WithContext(life))
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			cancel()
			return nil, r.err
		}
		return &busConn{Conn: r.c, cancel: cancel}, nil
	case <-ctx.Done():
		cancel()
		if r := <-done; r.c != nil {
			_ = r.c.Close()
		}
		return nil, ctx.Err()
	}
}

// candidate is one place the accessibility bus address may come from.
type candidate struct {
	from string // "Options.A11yAddress", "$AT_SPI_BUS_ADDRESS", ...
	addr func(ctx context.Context) (string, error)
}

// connectA11y finds the accessibility bus (see the package doc for the order) and
// connects to it. rootProp reads the AT_SPI_BUS property of the display's root
// window ("" when unset).
func connectA11y(ctx context.Context, o Options, rootProp func() string) (*busConn, error) {
	var cands []candidate
	fixed := func(from, addr string) {
		if addr != "" {
			cands = append(cands, candidate{from, func(context.Context) (string, error) { return addr, nil }})
		}
	}
	fixed("Options.A11yAddress", o.A11yAddress)
	if o.BusAddress == "" && !o.IgnoreEnv {
		fixed("$AT_SPI_BUS_ADDRESS", os.Getenv("AT_SPI_BUS_ADDRESS"))
	}
	fixed("the root window's AT_SPI_BUS property", rootProp())
	session := o.BusAddress
	if session == "" && !o.IgnoreEnv {
		session = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	if session != "" {
		cands = append(cands, candidate{"org.a11y.Bus.GetAddress on the session bus", func(ctx context.Context) (string, error) {
			return launcherAddress(ctx, session)
		}})
	}
	if len(cands) == 0 {
		if o.IgnoreEnv {
			return nil, &a11y.UnavailableError{Reason: "no accessibility bus runs for this display (its root window has no AT_SPI_BUS property)"}
		}
		return nil, &a11y.UnavailableError{Reason: "no D-Bus session bus ($DBUS_SESSION_BUS_ADDRESS is unset) and no accessibility bus address"}
	}
	var errs []error
	for _, c := range cands {
		conn, err := c.connect(ctx, o)
		if err == nil {
			return conn, nil
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("a11y: connect: %w", ctx.Err())
		}
		errs = append(errs, fmt.Errorf("%s: %w", c.from, err))
	}
	return nil, &a11y.UnavailableError{Reason: "no accessibility bus with an AT-SPI registry answers", Err: errors.Join(errs...)}
}

// connect tries one candidate within 5*o.CallTimeout, so a bus that accepts the
// connection and then says nothing costs only that before the next is tried.
func (c candidate) connect(ctx context.Context, o Options) (*busConn, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*o.CallTimeout)
	defer cancel()
	addr, err := c.addr(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	if err := pingRegistry(ctx, conn.Conn); err != nil {
		conn.close()
		return nil, err
	}
	return conn, nil
}

// launcherAddress asks the session bus at session for the accessibility bus.
func launcherAddress(ctx context.Context, session string) (string, error) {
	conn, err := dial(ctx, session)
	if err != nil {
		return "", fmt.Errorf("connect to the session bus: %w", err)
	}
	defer conn.close()
	var addr string
	err = conn.Object(launcherName, launcherPath).CallWithContext(ctx, launcherName+".GetAddress", 0).Store(&addr)
	if err != nil {
		return "", fmt.Errorf("%s.GetAddress (is at-spi2-core installed?): %w", launcherName, err)
	}
	if addr = strings.TrimSpace(addr); addr == "" {
		return "", errors.New(launcherName + ".GetAddress returned no address")
	}
	return addr, nil
}

// pingRegistry checks that the AT-SPI registry answers on conn (starting it through
// activation if needed).
func pingRegistry(ctx context.Context, conn *dbus.Conn) error {
	if err := conn.Object(registryName, registryRoot).CallWithContext(ctx, "org.freedesktop.DBus.Peer.Ping", 0).Err; err != nil {
		return fmt.Errorf("the AT-SPI registry does not answer: %w", err)
	}
	return nil
}
