package wl

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerated regenerates protocols.go from the protocol XML the Debian
// packages installed and checks that it is the committed file.
func TestGenerated(t *testing.T) {
	list, err := os.ReadFile(filepath.Join("wlgen", "files.txt"))
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Fields(string(list))
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s is not installed (make deps installs the protocol XML packages): %v", f, err)
		}
	}
	ifaces, err := os.ReadFile(filepath.Join("wlgen", "interfaces.txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "protocols.go")
	args := append([]string{"run", "./wlgen", "-o", out, "-only", strings.Join(strings.Fields(string(ifaces)), ",")}, files...)
	if b, err := exec.CommandContext(t.Context(), "go", args...).CombinedOutput(); err != nil {
		t.Fatalf("wlgen: %v\n%s", err, b)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile("protocols.go")
	if !bytes.Equal(got, want) {
		t.Error("protocols.go is not what wlgen makes of the installed XML: run go generate ./internal/wl")
	}
}
