//go:build linux

package xdisplay

import (
	"context"
	"testing"
	"time"
)

// The busy desktop's terminals outlive the context that bounded the wait
// for their windows: a benchmark that waited with a timeout and cancelled
// it still measures three terminals full of text, not an empty screen.
func TestBusyOutlivesItsWait(t *testing.T) {
	d, err := Start(t.Context(), Options{Width: 1920, Height: 1080})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	apps, err := d.StartBusy(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range apps {
		t.Cleanup(func() { _ = a.Stop() })
	}
	time.Sleep(time.Second)
	for i, a := range apps {
		if a.Exited() {
			t.Errorf("terminal %d ended with the wait's context (output: %q)", i, a.Output())
		}
	}
	if ws, err := d.Windows(t.Context()); err != nil || len(ws) < len(busyTerminals) {
		t.Errorf("%d windows after the wait (%v), want %d", len(ws), err, len(busyTerminals))
	}
}
