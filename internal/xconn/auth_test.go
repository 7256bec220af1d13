package xconn_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/internal/xconn"
)

// authFile encodes entries as an X authority file.
func authFile(entries ...xconn.AuthEntry) []byte {
	var b bytes.Buffer
	put := func(s []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint16(len(s)))
		b.Write(s)
	}
	for _, e := range entries {
		_ = binary.Write(&b, binary.BigEndian, e.Family)
		put([]byte(e.Address))
		put([]byte(e.Number))
		put([]byte(e.Name))
		put(e.Data)
	}
	return b.Bytes()
}

func cookie(b byte) []byte { return bytes.Repeat([]byte{b}, 16) }

func TestParseDisplay(t *testing.T) {
	tests := []struct {
		name, in      string
		network, addr string
		screen        int
		local         bool
	}{
		{"local", ":12", "unix", "/tmp/.X11-unix/X12", 0, true},
		{"local with screen", ":3.1", "unix", "/tmp/.X11-unix/X3", 1, true},
		{"unix host", "unix:7", "unix", "/tmp/.X11-unix/X7", 0, true},
		{"unix protocol", "unix/:7", "unix", "/tmp/.X11-unix/X7", 0, true},
		{"socket path", "/tmp/launch-x/org.xquartz:0", "unix", "/tmp/launch-x/org.xquartz:0", 0, true},
		{"tcp host", "box:2", "tcp", "box:6002", 0, false},
		{"tcp protocol", "tcp/10.0.0.5:1.0", "tcp", "10.0.0.5:6001", 0, false},
		{"ipv6", "inet6/::1:0", "tcp6", "[::1]:6000", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := xconn.ParseDisplay(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d.Network != tt.network || d.Address != tt.addr || d.Screen != tt.screen || d.Local() != tt.local {
				t.Errorf("ParseDisplay(%q) = %+v", tt.in, d)
			}
		})
	}
	for _, bad := range []string{"", "12", ":", ":x", ":-1", ":1.x", ":01", "ftp/host:1", ":99999", ":1.-2"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if d, err := xconn.ParseDisplay(bad); err == nil {
				t.Errorf("ParseDisplay(%q) = %+v, want an error", bad, d)
			}
		})
	}
}

func TestCookieFor(t *testing.T) {
	local := func(num string) xconn.Display { d, _ := xconn.ParseDisplay(":" + num); return d }
	tcp, _ := xconn.ParseDisplay("10.1.2.3:4")
	tests := []struct {
		name    string
		entries []xconn.AuthEntry
		d       xconn.Display
		want    []byte // nil: no cookie
	}{
		{"wildcard entry (xdisplay writes these)", []xconn.AuthEntry{{Family: 65535, Number: "5", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(1)}}, local("5"), cookie(1)},
		{"other display number", []xconn.AuthEntry{{Family: 65535, Number: "5", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(1)}}, local("6"), nil},
		{"empty number matches all", []xconn.AuthEntry{{Family: 65535, Name: "MIT-MAGIC-COOKIE-1", Data: cookie(2)}}, local("6"), cookie(2)},
		{"local entry of this host", []xconn.AuthEntry{
			{Family: 256, Address: "elsewhere", Number: "0", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(3)},
			{Family: 256, Address: "here", Number: "0", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(4)},
		}, local("0"), cookie(4)},
		{"first match wins", []xconn.AuthEntry{
			{Family: 65535, Number: "0", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(5)},
			{Family: 256, Address: "here", Number: "0", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(6)},
		}, local("0"), cookie(5)},
		{"other protocols are skipped", []xconn.AuthEntry{
			{Family: 65535, Number: "0", Name: "XDM-AUTHORIZATION-1", Data: cookie(7)},
			{Family: 65535, Number: "0", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(8)},
		}, local("0"), cookie(8)},
		{"a cookie of the wrong length is skipped", []xconn.AuthEntry{{Family: 65535, Number: "0", Name: "MIT-MAGIC-COOKIE-1", Data: []byte{1, 2}}}, local("0"), nil},
		{"IPv4 entry", []xconn.AuthEntry{
			{Family: 0, Address: string([]byte{10, 1, 2, 9}), Number: "4", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(9)},
			{Family: 0, Address: string([]byte{10, 1, 2, 3}), Number: "4", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(10)},
		}, tcp, cookie(10)},
		{"a local entry does not serve a TCP display", []xconn.AuthEntry{{Family: 256, Address: "here", Number: "4", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(11)}}, tcp, nil},
		{"no entries", nil, local("0"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := xconn.CookieFor(tt.entries, tt.d, "here")
			if tt.want == nil {
				if err == nil {
					t.Errorf("cookie %s, want none", got)
				}
				return
			}
			if err != nil || got != hex.EncodeToString(tt.want) {
				t.Errorf("CookieFor = %q, %v; want %x", got, err, tt.want)
			}
		})
	}
}

func TestParseAuthority(t *testing.T) {
	entries := []xconn.AuthEntry{
		{Family: 256, Address: "host", Number: "0", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(1)},
		{Family: 65535, Number: "12", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(2)},
	}
	data := authFile(entries...)
	got, err := xconn.ParseAuthority(data)
	if err != nil || len(got) != 2 || got[1].Number != "12" || !bytes.Equal(got[0].Data, cookie(1)) || got[0].Address != "host" {
		t.Fatalf("ParseAuthority = %+v, %v", got, err)
	}
	for n := 1; n < len(data); n++ {
		if _, err := xconn.ParseAuthority(data[:n]); err == nil && n != len(authFile(entries[0])) {
			t.Errorf("cut at %d of %d bytes: no error", n, len(data))
		}
	}
	if got, err := xconn.ParseAuthority(nil); err != nil || len(got) != 0 {
		t.Errorf("empty file: %v, %v", got, err)
	}
}

func TestReadAuthorityRefuses(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, xconn.MaxAuthorityBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, want string }{
		{"missing", filepath.Join(dir, "none"), "no such file"},
		{"a folder", dir, "not a regular file"},
		{"too large", big, "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := xconn.ReadAuthority(tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadAuthority = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := xconn.ReadAuthority(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want errors.Is ErrNotExist", err)
	}
}

func FuzzParseAuthority(f *testing.F) {
	f.Add(authFile(xconn.AuthEntry{Family: 65535, Number: "1", Name: "MIT-MAGIC-COOKIE-1", Data: cookie(1)}))
	f.Add([]byte{0xff, 0xff, 0, 0, 0, 1, '1'})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := xconn.ParseAuthority(data)
		if err != nil {
			return
		}
		size := 0
		for _, e := range entries {
			size += 10 + len(e.Address) + len(e.Number) + len(e.Name) + len(e.Data)
		}
		if size != len(data) {
			t.Fatalf("entries cover %d bytes of %d", size, len(data))
		}
		d, _ := xconn.ParseDisplay(":1")
		_, _ = xconn.CookieFor(entries, d, "h")
	})
}

func FuzzParseDisplay(f *testing.F) {
	for _, s := range []string{":0", ":1.2", "host:3", "tcp/h:1", "/tmp/x:0", "inet6/::1:0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := xconn.ParseDisplay(s)
		if err != nil {
			return
		}
		if d.Network == "" || d.Address == "" || d.Screen < 0 {
			t.Fatalf("ParseDisplay(%q) = %+v", s, d)
		}
	})
}
