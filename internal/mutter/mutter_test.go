package mutter

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"deskpilot/actions/keysym"
	"deskpilot/internal/pipewire"
	"deskpilot/vision/wldisplay"
)

func startMutter(t *testing.T) *wldisplay.Mutter {
	t.Helper()
	m, err := wldisplay.StartMutter(t.Context(), wldisplay.MutterOptions{})
	if wldisplay.IsMissing(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestSessionFramesAndKeys(t *testing.T) {
	m := startMutter(t)
	file := filepath.Join(t.TempDir(), "typed.txt")
	a, err := m.Start("foot", "sh", "-c", "cat > "+file)
	if err != nil {
		t.Fatal(err)
	}
	_ = a
	conn, err := Connect(m.Bus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	mons, err := Monitors(ctx, conn)
	if err != nil || len(mons) != 1 {
		t.Fatalf("monitors %+v: %v", mons, err)
	}
	t.Logf("monitors %+v", mons)
	s, err := Start(ctx, conn, mons[0].Connector)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fd, err := pipewire.Dial(m.PipeWire)
	if err != nil {
		t.Fatal(err)
	}
	st, err := pipewire.Open(fd, s.Node())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.WaitFrame(ctx); err != nil {
		t.Fatal(err)
	}
	f, seq, err := st.Frame(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("frame %v seq %d", f.Bounds(), seq)
	// wait for foot's window in the frame? type after shift tap
	time.Sleep(time.Second)
	s.Key(keysym.ShiftL, true)
	s.Key(keysym.ShiftL, false)
	time.Sleep(100 * time.Millisecond)
	syms, _ := keysym.Text("Grüße ✓ 日本\n")
	for _, k := range syms {
		s.Key(k, true)
		s.Key(k, false)
	}
	s.Sync(ctx)
	time.Sleep(time.Second)
	b, _ := os.ReadFile(file)
	t.Logf("file %q", b)
}
