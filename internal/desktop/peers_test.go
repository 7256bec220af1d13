//go:build linux

package desktop

import (
	"image"
	"os"
	"slices"
	"testing"
	"time"

	"deskpilot/internal/xconn"
)

// A desktop opened with Peers (a CLI run, an MCP session) and no window of
// its own lists the windows of the peers it is told of as its own, and no
// others: the app's window, in another process, is masked and refused.
func TestDesktopPeerWindows(t *testing.T) {
	x := attach(t)
	c, err := xconn.Dial("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xconn.Close(c) })
	peer, stranger := os.Getpid()+100001, os.Getpid()+100002
	fp := newXWindow(t, c, "peer-app", image.Rect(100, 100, 300, 220), peer).show(t, x, "peer-app")
	fs := newXWindow(t, c, "stranger", image.Rect(700, 400, 900, 520), stranger).show(t, x, "stranger")
	for _, backend := range testBackends {
		t.Run(backend, func(t *testing.T) {
			d := openTest(t, Options{Backend: backend, Peers: func() []int { return []int{peer} }})
			deadline := time.Now().Add(30 * time.Second)
			for !slices.Contains(d.OwnWindows(), fp) {
				if time.Now().After(deadline) {
					t.Fatalf("OwnWindows = %v, want it to hold the peer's %v", d.OwnWindows(), fp)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if slices.Contains(d.OwnWindows(), fs) {
				t.Errorf("OwnWindows = %v holds the window of a process that is no peer", d.OwnWindows())
			}
		})
	}
}
