package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

func TestAskDialog(t *testing.T) {
	tests := []struct {
		name    string
		act     func(t *testing.T, h *harness, cancel context.CancelFunc)
		want    string
		wantErr error
	}{
		{"answer", func(t *testing.T, h *harness, _ context.CancelFunc) {
			test.Type(h.u.askEntry, "Documents")
			test.Tap(findButton(t, h.u.win.Canvas().Overlays().Top(), "Answer"))
		}, "Documents", nil},
		{"dismiss", func(t *testing.T, h *harness, _ context.CancelFunc) {
			test.Tap(findButton(t, h.u.win.Canvas().Overlays().Top(), "Dismiss"))
		}, "", errNoAnswer},
		{"run stopped", func(t *testing.T, h *harness, cancel context.CancelFunc) { cancel() }, "", context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, configured(t))
			h.start("Write a haiku")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			type result struct {
				s   string
				err error
			}
			got := make(chan result, 1)
			ask := h.hooks().Ask
			go func() {
				s, err := ask(ctx, "Which folder should I use?")
				got <- result{s, err}
			}()
			h.q.waitFor(t, "the question dialog", func() bool { return h.u.askEntry != nil })
			if h.u.compact {
				t.Error("the strip is too small for the dialog; the window should be full size")
			}
			tt.act(t, h, cancel)
			var r result
			select {
			case r = <-got:
			case <-time.After(20 * time.Second):
				t.Fatal("Ask did not return")
			}
			h.q.flush()
			if r.s != tt.want || !errors.Is(r.err, tt.wantErr) {
				t.Errorf("Ask = %q, %v; want %q, %v", r.s, r.err, tt.want, tt.wantErr)
			}
			if h.u.win.Canvas().Overlays().Top() != nil {
				t.Error("the dialog is still open")
			}
			if !h.u.compact {
				t.Error("the window did not shrink back to the strip after the dialog")
			}
		})
	}
}

func TestConfirmDialog(t *testing.T) {
	tests := []struct {
		button string
		want   bool
	}{
		{"Allow", true},
		{"Deny", false},
	}
	for _, tt := range tests {
		t.Run(tt.button, func(t *testing.T) {
			h := newHarness(t, configured(t))
			h.start("Open the browser")
			got := make(chan bool, 1)
			confirm := h.hooks().Confirm
			go func() {
				ok, err := confirm(t.Context(), `open_url("https://example.com")`)
				if err != nil {
					t.Error(err)
				}
				got <- ok
			}()
			h.q.waitFor(t, "the confirmation dialog", func() bool { return h.u.win.Canvas().Overlays().Top() != nil })
			test.Tap(findButton(t, h.u.win.Canvas().Overlays().Top(), tt.button))
			if ok := <-got; ok != tt.want {
				t.Errorf("Confirm = %v, want %v", ok, tt.want)
			}
		})
	}
}
