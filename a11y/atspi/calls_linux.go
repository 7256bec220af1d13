package atspi

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"
)

// maxInFlight is the most calls one batch keeps pending at once: well under
// dbus-daemon's default of 8192 pending replies per connection.
const maxInFlight = 512

// dcall is one method call of a batch.
type dcall struct {
	bus, path string
	method    string // "interface.Member"
	args      []any
	out       any   // where to store the reply: a pointer, a []any of pointers (several values), or nil
	err       error // the call's own error, set by do
}

// appError is a failure of a whole application: it is skipped.
type appError struct {
	reason string
	hung   bool
}

// Error returns the reason, in words for the model.
func (e *appError) Error() string { return e.reason }

// errTimeUp says the walk's time limit passed.
var errTimeUp = errors.New("time limit reached")

// do sends calls pipelined, at most maxInFlight at a time, and stores each reply
// in its out. The application is hung when o.CallTimeout passes without any reply
// arriving (a busy application answering a long batch is not hung). do returns
// ctx's error when the caller cancelled, errTimeUp when the walk's time is up, an
// *appError when the application did not answer or left the bus, and nil otherwise:
// errors of single objects (gone, lacking an interface, replying with the wrong
// types) stay in the calls' err.
func (w *walker) do(calls []*dcall) error {
	timer := time.NewTimer(w.o.CallTimeout)
	defer timer.Stop()
	for start := 0; start < len(calls); start += maxInFlight {
		part := calls[start:min(len(calls), start+maxInFlight)]
		ctx, cancel := context.WithCancel(w.ctx)
		pending := make([]*dbus.Call, len(part))
		for i, c := range part {
			pending[i] = w.conn.Object(c.bus, dbus.ObjectPath(c.path)).
				GoWithContext(ctx, c.method, dbus.FlagNoAutoStart, nil, c.args...)
		}
		timer.Reset(w.o.CallTimeout)
		for i, p := range pending {
			select {
			case <-p.Done:
				timer.Reset(w.o.CallTimeout)
			case <-timer.C:
				cancel() // no reply for CallTimeout: every pending call ends now
				<-p.Done
			}
			c := part[i]
			c.err = p.Err
			if outs, many := c.out.([]any); many && c.err == nil {
				c.err = p.Store(outs...)
			} else if c.err == nil && c.out != nil {
				c.err = p.Store(c.out)
			}
		}
		cancel()
		for _, c := range part {
			if err := w.classify(c.err); err != nil {
				return err
			}
		}
	}
	return nil
}

// classify maps a call's error to what it means for the walk (see do).
func (w *walker) classify(err error) error {
	if err == nil {
		return nil
	}
	if w.caller.Err() != nil {
		return w.caller.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		if w.ctx.Err() != nil {
			return errTimeUp
		}
		return &appError{reason: fmt.Sprintf("did not answer within %v", w.o.CallTimeout), hung: true}
	}
	if errors.Is(err, dbus.ErrClosed) {
		return &appError{reason: "the accessibility bus connection closed"}
	}
	switch dbusErrorName(err) {
	case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
		"org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Disconnected":
		return &appError{reason: "quit during the walk"}
	}
	return nil
}

// dbusErrorName returns the D-Bus error name of err, "" when it is not a D-Bus
// error reply.
func dbusErrorName(err error) string {
	var v dbus.Error
	if errors.As(err, &v) {
		return v.Name
	}
	var p *dbus.Error
	if errors.As(err, &p) && p != nil {
		return p.Name
	}
	return ""
}

// missing reports D-Bus errors that mean "no such object, interface or method".
func missing(err error) bool {
	switch dbusErrorName(err) {
	case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownObject",
		"org.freedesktop.DBus.Error.UnknownInterface":
		return true
	}
	return false
}
