//go:build linux

package xdisplay

import (
	"context"
	"errors"
	"testing"
	"time"
)

// busyTerminals are the geometries of the busy desktop's terminals (on a
// 1920x1080 display); scripts/bench-peers.sh sets up the same.
var busyTerminals = [...]string{"100x40+0+0", "100x40+700+0", "120x30+200+500"}

// StartBusy starts the busy desktop the benchmarks measure on: three xterms
// full of text (a listing of /usr/bin and /etc/services), laid out for a
// 1920x1080 display. It returns the apps once their windows are shown; their
// text may still be drawing, so wait for a still screen before measuring.
// ctx bounds the wait; the apps outlive it (StartApp would kill them with
// it), so stop them when done (on an error, those started are stopped).
func (d *Display) StartBusy(ctx context.Context) ([]*App, error) {
	life := context.WithoutCancel(ctx)
	var apps []*App
	stop := func() {
		for _, a := range apps {
			_ = a.Stop()
		}
	}
	for _, geom := range busyTerminals {
		a, err := d.StartApp(life, "xterm", "-geometry", geom, "-e", "sh", "-c",
			"ls -la /usr/bin | head -300; cat /etc/services; sleep 100000")
		if err != nil {
			stop()
			return nil, err
		}
		apps = append(apps, a)
	}
	if _, err := d.WaitWindows(ctx, len(busyTerminals)); err != nil {
		stop()
		return nil, errors.Join(errors.New("xdisplay: the busy desktop's terminals did not show"), err)
	}
	return apps, nil
}

// Busy starts StartBusy's desktop for the test or benchmark tb, stops its apps
// when tb ends, and waits 2 s for the terminals to draw their text; it fails
// tb when the desktop cannot start.
func (d *Display) Busy(tb testing.TB) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(tb.Context(), time.Minute)
	defer cancel()
	apps, err := d.StartBusy(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for _, a := range apps {
		tb.Cleanup(func() { _ = a.Stop() })
	}
	time.Sleep(2 * time.Second)
}
