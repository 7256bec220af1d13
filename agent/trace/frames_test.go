package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFrameStaysInTheTrace(t *testing.T) {
	w, _ := writeSample(t, t.TempDir())
	dir := w.Dir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("private key material"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) {
		if err := os.Symlink(target, filepath.Join(dir, FramesDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("inside.png", "0000.png")
	link("outside.png", outside)
	link("climb.png", "../../"+filepath.Base(filepath.Dir(outside))+"/secret.txt")
	if err := os.Mkdir(filepath.Join(dir, FramesDir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, FramesDir, "huge.png")
	if err := os.WriteFile(huge, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, MaxFrameBytes+1); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	cases := []struct {
		name, rel string
		unsafe    bool // refused as ErrUnsafeFrame; otherwise read (ok) or refused otherwise
		ok        bool
	}{
		{name: "frame", rel: "frames/0000.png", ok: true},
		{name: "symlink inside", rel: "frames/inside.png", ok: true},
		{name: "symlink outside", rel: "frames/outside.png", unsafe: true},
		{name: "relative symlink climbing out", rel: "frames/climb.png", unsafe: true},
		{name: "dot-dot", rel: "../secret.txt", unsafe: true},
		{name: "absolute", rel: outside, unsafe: true},
		{name: "backslash", rel: `frames\0000.png`, unsafe: true},
		{name: "directory", rel: "frames/sub", unsafe: true},
		{name: "too large", rel: "frames/huge.png"},
		{name: "missing", rel: "frames/9999.png"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := ReadFrame(dir, c.rel)
			switch {
			case c.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case c.ok:
				if !bytes.HasPrefix(data, []byte("\x89PNG")) {
					t.Errorf("read %d bytes that are not the PNG", len(data))
				}
			case err == nil:
				t.Fatalf("read %d bytes, want a refusal", len(data))
			case c.unsafe != errors.Is(err, ErrUnsafeFrame):
				t.Errorf("err = %v; unsafe = %v", err, errors.Is(err, ErrUnsafeFrame))
			}
			if bytes.Contains(data, []byte("private key")) {
				t.Error("the file outside the trace was read")
			}
		})
	}
}

// Regression: `traces export --inline-images` followed a frame that is a
// symbolic link to a file outside the trace folder and put that file's bytes
// in the export.
// withFrameLinkedOut writes a sample trace whose frame name (a file under
// frames/) is replaced by a symbolic link to a private key outside the folder,
// and reads it back.
func withFrameLinkedOut(t *testing.T, name string) *Trace {
	t.Helper()
	w, _ := writeSample(t, t.TempDir())
	outside := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(outside, []byte("-----BEGIN OPENSSH PRIVATE KEY-----"), 0o600); err != nil {
		t.Fatal(err)
	}
	frame := filepath.Join(w.Dir(), "frames", name)
	if err := os.Remove(frame); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, frame); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// holdsKey reports whether out holds the linked key, plain or base64.
func holdsKey(out []byte) bool {
	return bytes.Contains(out, []byte("LS0tLS1CRUdJTi")) || bytes.Contains(out, []byte("OPENSSH"))
}

func TestExportInlineDoesNotFollowSymlinksOut(t *testing.T) {
	tr := withFrameLinkedOut(t, "0001-1.png")
	var out bytes.Buffer
	err := Export(tr, &out, ExportOptions{InlineImages: true})
	if !errors.Is(err, ErrUnsafeFrame) {
		t.Errorf("err = %v, want ErrUnsafeFrame", err)
	}
	if holdsKey(out.Bytes()) {
		t.Error("the export holds the file the symlink points to")
	}
}

func TestDecodeFrameRefusesHugePictures(t *testing.T) {
	// A PNG header claiming 100000x100000 pixels: refused before decoding.
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	b.Write([]byte{0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0, 8, 2, 0, 0, 0})
	b.Write([]byte{0, 0, 0, 0}) // CRC (not checked by DecodeConfig)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "frames"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "frames", "0000.png"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := DecodeFrame(dir, "frames/0000.png"); err == nil {
		t.Error("a 100000x100000 picture was decoded")
	}
}

// A report with inline frames reads frames through the trace folder only: a
// frame that is a link to a file outside is shown as missing, never inlined.
func TestReportInlineDoesNotFollowSymlinksOut(t *testing.T) {
	tr := withFrameLinkedOut(t, "0001.png")
	var out bytes.Buffer
	if err := Report(tr, &out, InlineFrames()); err != nil {
		t.Fatal(err)
	}
	if holdsKey(out.Bytes()) {
		t.Error("the report holds the file the symlink points to")
	}
	if !bytes.Contains(out.Bytes(), []byte("data:image/")) {
		t.Error("the report inlined no frame at all")
	}
}
