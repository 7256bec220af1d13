package wl

import (
	"context"
	"encoding/binary"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// pair returns a client Conn and the compositor's end of its socket.
func pair(t testing.TB) (*Conn, *net.UnixConn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "sock")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*net.UnixConn)
	}
	c := newConn(conn(fds[0]))
	srv := conn(fds[1])
	t.Cleanup(func() { c.Close(); srv.Close() })
	return c, srv
}

func event(id uint32, op uint16, args []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, id)
	b = binary.LittleEndian.AppendUint32(b, uint32(8+len(args))<<16|uint32(op))
	return append(b, args...)
}

func TestRequestEncoding(t *testing.T) {
	c, srv := pair(t)
	reg := &WlRegistry{}
	if err := c.Display().GetRegistry(reg); err != nil {
		t.Fatal(err)
	}
	out := &WlOutput{}
	if err := reg.Bind(7, out, 4); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256)
	srv.SetReadDeadline(time.Now().Add(time.Second))
	n, err := srv.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	// get_registry(new_id 2), then bind(7, "wl_output", 4, new_id 3).
	want := event(1, 1, binary.LittleEndian.AppendUint32(nil, 2))
	args := binary.LittleEndian.AppendUint32(nil, 7)
	args = binary.LittleEndian.AppendUint32(args, uint32(len("wl_output")+1))
	args = append(args, "wl_output\x00\x00\x00"...)
	args = binary.LittleEndian.AppendUint32(args, 4)
	args = binary.LittleEndian.AppendUint32(args, 3)
	want = append(want, event(2, 0, args)...)
	if string(buf[:n]) != string(want) {
		t.Errorf("wire bytes\n got %x\nwant %x", buf[:n], want)
	}
}

func TestEventsDispatchAndDeleteID(t *testing.T) {
	c, srv := pair(t)
	got := make(chan string, 1)
	reg := &WlRegistry{OnGlobal: func(name uint32, iface string, version uint32) {
		got <- iface
	}}
	c.Display().GetRegistry(reg)
	args := binary.LittleEndian.AppendUint32(nil, 1)
	args = binary.LittleEndian.AppendUint32(args, 7)
	args = append(args, "wl_shm\x00\x00"...)
	args = binary.LittleEndian.AppendUint32(args, 1)
	srv.Write(event(2, 0, args))
	select {
	case s := <-got:
		if s != "wl_shm" {
			t.Errorf("global %q", s)
		}
	case <-time.After(time.Second):
		t.Fatal("no global")
	}
	// delete_id frees the id; the next object reuses it.
	srv.Write(event(1, 1, binary.LittleEndian.AppendUint32(nil, 2)))
	deadline := time.Now().Add(time.Second)
	for c.lookup(2) != nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cb := &WlCallback{}
	c.Display().Sync(cb)
	if cb.ID() != 2 {
		t.Errorf("new object got id %d, want the freed 2", cb.ID())
	}
}

func TestProtocolErrorEndsTheConnection(t *testing.T) {
	c, srv := pair(t)
	args := binary.LittleEndian.AppendUint32(nil, 1)
	args = binary.LittleEndian.AppendUint32(args, 3)
	args = binary.LittleEndian.AppendUint32(args, uint32(len("bad request")+1))
	args = append(args, "bad request\x00"...)
	srv.Write(event(1, 0, args))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := c.Sync(ctx); err == nil {
		t.Fatal("sync succeeded after a protocol error")
	}
	var pe *ProtocolError
	if err := c.Err(); err == nil || !asProtocolError(err, &pe) || pe.Code != 3 || pe.Message != "bad request" {
		t.Errorf("error %v", err)
	}
}

func asProtocolError(err error, pe **ProtocolError) bool {
	p, ok := err.(*ProtocolError)
	*pe = p
	return ok
}

// FuzzEvents feeds a client whatever bytes a hostile compositor might send:
// it must never panic, and a malformed stream ends the connection.
func FuzzEvents(f *testing.F) {
	f.Add(event(1, 1, []byte{2, 0, 0, 0}))
	f.Add(event(2, 0, []byte{1, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f}))
	f.Add([]byte{1, 0, 0, 0, 4, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, srv := pair(t)
		reg := &WlRegistry{OnGlobal: func(uint32, string, uint32) {}}
		c.Display().GetRegistry(reg)
		srv.Write(b)
		srv.Close()
		select {
		case <-c.Done():
		case <-time.After(2 * time.Second):
			t.Fatal("the client did not notice the closed socket")
		}
	})
}
