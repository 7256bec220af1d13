package app

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// asked runs ask in the background and returns where its result arrives.
func asked(t *testing.T, h *harness, ctx context.Context, question string) <-chan askResult {
	got := make(chan askResult, 1)
	ask := h.hooks().Ask
	go func() {
		s, err := ask(ctx, question)
		got <- askResult{s, err}
	}()
	h.q.waitFor(t, "the question", func() bool { return len(h.u.prompts) == 1 })
	return got
}

type askResult struct {
	s   string
	err error
}

func waitAnswer(t *testing.T, h *harness, got <-chan askResult) askResult {
	t.Helper()
	select {
	case r := <-got:
		h.q.flush()
		return r
	case <-time.After(20 * time.Second):
		t.Fatal("Ask did not return")
	}
	return askResult{}
}

// TestAskInStrip: while the window is the strip, a question shows inside it
// and the window stays compact (it used to grow to the full window, over the
// desktop the agent works on); the status says the agent waits for the person.
func TestAskInStrip(t *testing.T) {
	tests := []struct {
		name    string
		act     func(t *testing.T, h *harness, cancel context.CancelFunc)
		want    string
		wantErr error
	}{
		{"answer", func(t *testing.T, h *harness, _ context.CancelFunc) {
			test.Type(h.u.prompts[0].entry, "Documents")
			test.Tap(findButton(t, h.u.st.content, "Answer"))
		}, "Documents", nil},
		{"enter", func(t *testing.T, h *harness, _ context.CancelFunc) {
			test.Type(h.u.prompts[0].entry, "Desktop")
			h.u.prompts[0].entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		}, "Desktop", nil},
		{"dismiss", func(t *testing.T, h *harness, _ context.CancelFunc) {
			test.Tap(findButton(t, h.u.st.content, "Dismiss"))
		}, "", errNoAnswer},
		{"run stopped", func(t *testing.T, h *harness, cancel context.CancelFunc) { cancel() }, "", context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, configured(t))
			h.start("Write a haiku")
			h.emit(runScript()[:3]...)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			got := asked(t, h, ctx, "Which folder should I use?")
			if !h.u.compact || h.u.win.Content() != h.u.st.content {
				t.Fatal("the question made the window leave the strip")
			}
			if h.u.win.Canvas().Overlays().Top() != nil {
				t.Error("a dialog opened over the strip")
			}
			if !h.u.st.promptBg.Visible() || !strings.Contains(test.RenderObjectToMarkup(h.u.st.content), "Which folder should I use?") {
				t.Fatal("the strip does not show the question")
			}
			for _, l := range []struct{ name, got string }{{"status bar", h.u.rv.state.Text}, {"strip", h.u.st.state.Text}} {
				if l.got != "Waiting for you" {
					t.Errorf("%s says %q while the question is open, want \"Waiting for you\"", l.name, l.got)
				}
			}
			tt.act(t, h, cancel)
			r := waitAnswer(t, h, got)
			if r.s != tt.want || !errors.Is(r.err, tt.wantErr) {
				t.Errorf("Ask = %q, %v; want %q, %v", r.s, r.err, tt.want, tt.wantErr)
			}
			if h.u.st.promptBg.Visible() || len(h.u.prompts) != 0 {
				t.Error("the question is still in the strip")
			}
			if h.u.st.state.Text == "Waiting for you" {
				t.Errorf("after the question, the strip still says %q", h.u.st.state.Text)
			}
			if !h.u.compact {
				t.Error("the window left the strip")
			}
		})
	}
}

// TestAskMovesWithTheWindow: expanding the strip moves an open question into a
// dialog on the full window, with what was typed; compacting moves it back.
func TestAskMovesWithTheWindow(t *testing.T) {
	h := newHarness(t, configured(t))
	h.start("Write a haiku")
	got := asked(t, h, t.Context(), "Which folder?")
	test.Type(h.u.prompts[0].entry, "Docu")
	test.Tap(h.u.st.expand)
	if h.u.compact || h.u.win.Canvas().Overlays().Top() == nil {
		t.Fatal("expanded: no dialog on the full window")
	}
	if h.u.st.promptBg.Visible() {
		t.Error("the strip still shows the question")
	}
	h.u.setCompact(true)
	if h.u.win.Canvas().Overlays().Top() != nil || !h.u.st.promptBg.Visible() {
		t.Fatal("compact again: the question did not move back into the strip")
	}
	if len(h.u.prompts) != 1 {
		t.Fatal("moving the question answered it")
	}
	test.Tap(h.u.st.expand)
	test.Type(h.u.prompts[0].entry, "ments")
	test.Tap(findButton(t, h.u.win.Canvas().Overlays().Top(), "Answer"))
	if r := waitAnswer(t, h, got); r.s != "Documents" || r.err != nil {
		t.Errorf("Ask = %q, %v; want Documents", r.s, r.err)
	}
	if h.u.win.Canvas().Overlays().Top() != nil {
		t.Error("the dialog is still open")
	}
}

// TestConfirmInStrip: Allow and Deny are in the strip; the window stays compact.
func TestConfirmInStrip(t *testing.T) {
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
			h.q.waitFor(t, "the approval", func() bool { return len(h.u.prompts) == 1 })
			if !h.u.compact || h.u.win.Canvas().Overlays().Top() != nil {
				t.Fatal("the approval left the strip")
			}
			if h.u.rv.state.Text != "Waiting for you" {
				t.Errorf("status %q while the approval is open", h.u.rv.state.Text)
			}
			test.Tap(findButton(t, h.u.st.content, tt.button))
			if ok := <-got; ok != tt.want {
				t.Errorf("Confirm = %v, want %v", ok, tt.want)
			}
			h.q.flush()
			if h.u.st.promptBg.Visible() || h.u.model.Waiting != 0 {
				t.Error("the approval stayed")
			}
		})
	}
}

// TestConfirmOnFullWindow: with the strip off, an approval is a dialog.
func TestConfirmOnFullWindow(t *testing.T) {
	h := newHarness(t, configured(t))
	h.u.autoStrip = false
	h.start("Open the browser")
	got := make(chan bool, 1)
	confirm := h.hooks().Confirm
	go func() {
		ok, _ := confirm(t.Context(), `launch("gedit")`)
		got <- ok
	}()
	h.q.waitFor(t, "the dialog", func() bool { return h.u.win.Canvas().Overlays().Top() != nil })
	test.Tap(findButton(t, h.u.win.Canvas().Overlays().Top(), "Allow"))
	if !<-got {
		t.Error("Allow did not allow")
	}
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		name, in string
		width    int
		lines    int
		want     string
	}{
		{"short", "Which folder?", 20, 3, "Which folder?"},
		{"wraps", "one two three four", 9, 3, "one two\nthree\nfour"},
		{"long word", "abcdefghij", 4, 5, "abcd\nefgh\nij"},
		{"clipped", "a b c d e f", 3, 2, "a b\nc …"},
		{"newlines", "one\n\ntwo", 10, 5, "one\n\ntwo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wrapText(tt.in, tt.width, tt.lines); got != tt.want {
				t.Errorf("wrapText = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzWrapText: the strip shows model text with wrapText; whatever the text,
// the result has at most the lines and widths asked for.
func FuzzWrapText(f *testing.F) {
	f.Add("Which folder should I use for the report?", 10, 3)
	f.Add("\x00\u202e\n\n\n\t  long-word-without-spaces-at-all", 4, 2)
	f.Fuzz(func(t *testing.T, s string, width, lines int) {
		width, lines = 3+int(uint(width)%100), 1+int(uint(lines)%10)
		out := wrapText(s, width, lines)
		ls := strings.Split(out, "\n")
		if len(ls) > lines {
			t.Fatalf("%d lines, want at most %d", len(ls), lines)
		}
		for _, l := range ls {
			if n := len([]rune(l)); n > width {
				t.Fatalf("line %q is %d runes, want at most %d", l, n, width)
			}
		}
	})
}
