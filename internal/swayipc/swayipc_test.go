package swayipc

import (
	"context"
	"encoding/binary"
	"errors"
	"image"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeSway serves the i3 IPC wire format on a Unix socket: each request
// gets the reply reply returns for its type (raw bytes, header included, so
// a test can send a broken one); nil closes the connection, and so does
// each reply when once.
func fakeSway(t *testing.T, once bool, reply func(typ uint32, payload []byte) []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sway-ipc.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for {
					typ, payload, err := read(c)
					if err != nil {
						return
					}
					b := reply(typ, payload)
					if b == nil {
						return
					}
					if _, err := c.Write(b); err != nil || once {
						return
					}
				}
			}()
		}
	}()
	return path
}

// frame is one well-formed message.
func frame(typ uint32, payload string) []byte {
	b := []byte(magic)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, typ)
	return append(b, payload...)
}

func dialFake(t *testing.T, once bool, reply func(uint32, []byte) []byte) *Conn {
	t.Helper()
	c, err := Dial(fakeSway(t, once, reply))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// A tree as sway 1.7 writes it (`swaymsg -t get_tree` on headless sway at
// 1280x720): foot and zenity tiled side by side, a floating foot above (zenity
// keeps the focus), and the scratchpad's output, which holds none.
func TestWindowsOfATree(t *testing.T) {
	tree, err := os.ReadFile(filepath.Join("testdata", "tree.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := dialFake(t, false, func(typ uint32, _ []byte) []byte { return frame(typ, string(tree)) })
	ws, err := c.Windows(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []Window{
		{ID: 5, PID: 20957, AppID: "foot", Title: "foot", Rect: image.Rect(0, 0, 640, 720), Frame: image.Rect(0, 0, 640, 720), Output: "HEADLESS-1"},
		{ID: 7, PID: 21143, AppID: "zenity", Title: "Add a new entry", Rect: image.Rect(640, 0, 1280, 720), Frame: image.Rect(640, 0, 1280, 720), Focused: true, Output: "HEADLESS-1"},
		{ID: 6, PID: 21146, AppID: "float", Title: "foot", Rect: image.Rect(498, 335, 782, 385), Frame: image.Rect(498, 335, 782, 385), Floating: true, Output: "HEADLESS-1"},
	}
	if len(ws) != len(want) {
		t.Fatalf("windows %+v, want %+v", ws, want)
	}
	for i := range want {
		if ws[i] != want[i] {
			t.Errorf("window %d: %+v, want %+v", i, ws[i], want[i])
		}
	}
}

// A compositor's reply is not trusted: each broken one is an error (or,
// for absurd numbers, a clamped rectangle), bounded in memory and time.
func TestHostileReplies(t *testing.T) {
	deep := strings.Repeat(`{"nodes":[`, 20000) + strings.Repeat(`]}`, 20000)
	for _, tc := range []struct {
		name  string
		reply func(typ uint32) []byte
		want  string
	}{
		{"bad magic", func(typ uint32) []byte { return append([]byte("i3-ipX"), frame(typ, "{}")[6:]...) }, "bad magic"},
		{"a reply longer than the bound", func(typ uint32) []byte {
			b := frame(typ, "")
			binary.LittleEndian.PutUint32(b[6:], maxPayload+1)
			return b
		}, "too long"},
		{"cut short", func(typ uint32) []byte { return frame(typ, `{"nodes":[]}`)[:20] }, "EOF"},
		{"closed at once", func(uint32) []byte { return nil }, "EOF"},
		{"not JSON", func(typ uint32) []byte { return frame(typ, "\x00\xff not json") }, "tree"},
		{"the wrong JSON type", func(typ uint32) []byte { return frame(typ, `[1,2,3]`) }, "tree"},
		{"nesting deeper than JSON allows", func(typ uint32) []byte { return frame(typ, deep) }, "exceeded max depth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := dialFake(t, true, func(typ uint32, _ []byte) []byte { return tc.reply(typ) })
			ws, err := c.Windows(t.Context())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("windows %v, error %v; want one saying %q", ws, err, tc.want)
			}
		})
	}
	t.Run("absurd numbers are clamped", func(t *testing.T) {
		c := dialFake(t, true, func(typ uint32, _ []byte) []byte {
			return frame(typ, `{"nodes":[{"id":1,"pid":9,"visible":true,"rect":{"x":9223372036854775807,"y":-9223372036854775808,"width":9223372036854775807,"height":-5},`+
				`"window_rect":{"x":9223372036854775807,"y":0,"width":10,"height":10}}]}`)
		})
		ws, err := c.Windows(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) != 1 || ws[0].Frame != image.Rect(maxCoord, -maxCoord, 2*maxCoord, -maxCoord) || ws[0].Rect.Min.X != 2*maxCoord {
			t.Errorf("windows %+v", ws)
		}
	})
	t.Run("a compositor that never answers", func(t *testing.T) {
		hang := make(chan struct{})
		t.Cleanup(func() { close(hang) })
		c := dialFake(t, false, func(uint32, []byte) []byte { <-hang; return nil })
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		defer cancel()
		_, err := c.Windows(ctx)
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("error %v, want a timeout", err)
		}
	})
}

// Events reach the callback; a broken event stream ends the subscription
// without a call.
func TestSubscribe(t *testing.T) {
	events := make(chan string, 4)
	path := fakeSway(t, false, func(typ uint32, payload []byte) []byte {
		if typ != msgSubscribe || string(payload) != `["window"]` {
			return frame(typ, `{"success":false}`)
		}
		b := frame(typ, `{"success":true}`)
		b = append(b, frame(eventWindow, `{"change":"new","container":{}}`)...)
		b = append(b, frame(eventWindow, `not json`)...)
		b = append(b, frame(eventWindow, `{"change":"focus"}`)...)
		return append(b, []byte("garbage that is no header")...)
	})
	if err := Subscribe(t.Context(), path, func(change string) { events <- change }); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"new", "focus"} {
		select {
		case got := <-events:
			if got != want {
				t.Errorf("event %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %q event", want)
		}
	}
	select {
	case got := <-events:
		t.Errorf("an event %q from the garbage", got)
	case <-time.After(100 * time.Millisecond):
	}
}

func FuzzParseTree(f *testing.F) {
	tree, err := os.ReadFile(filepath.Join("testdata", "tree.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tree)
	f.Add([]byte(`{"nodes":[{"pid":-1,"visible":true}]}`))
	f.Add([]byte(`{"floating_nodes":[{"pid":1,"visible":true,"rect":{"width":-9}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ws, err := parseTree(b)
		if err != nil {
			return
		}
		for _, w := range ws {
			if w.PID <= 0 {
				t.Errorf("a window of pid %d", w.PID)
			}
			for _, r := range []image.Rectangle{w.Rect, w.Frame} {
				if r.Dx() < 0 || r.Dy() < 0 || abs(r.Min.X) > 2*maxCoord || abs(r.Min.Y) > 2*maxCoord || r.Dx() > maxCoord || r.Dy() > maxCoord {
					t.Errorf("rectangle %v out of bounds", r)
				}
			}
		}
	})
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
