package smallfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRead: a file within the limit is read whole; one over it, a folder
// and a FIFO (which would block a plain read) are errors naming the path.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, bytes.Repeat([]byte("x"), 10), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(small, 10); err != nil || len(data) != 10 {
		t.Fatalf("at the limit: %d bytes, %v", len(data), err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path string
		max  int64
		want string
	}{
		{small, 9, "10 bytes, more than the 9 allowed"},
		{dir, 100, "not a regular file"},
		{filepath.Join(dir, "none"), 100, "no such file"},
	} {
		if _, err := Read(tt.path, tt.max); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("Read(%s, %d) = %v; want an error naming it with %q", tt.path, tt.max, err, tt.want)
		}
	}
	// A FIFO with no writer is refused at once (a plain open would wait).
	if _, err := Read(fifo, 100); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO: %v; want not a regular file", err)
	}
}
