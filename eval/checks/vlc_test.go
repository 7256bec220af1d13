//go:build linux

package checks

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestVLCMetrics runs vlc.py's metrics on the vlcrc VLC 3.0 writes (defaults,
// and with settings changed) and on status.xml VLC's HTTP interface gave
// while playing and paused (testdata/make.sh). Each want is what OSWorld's
// function (metrics/vlc.py at eac51b51; its audio and video imports
// stubbed) gave on the same files.
func TestVLCMetrics(t *testing.T) {
	tests := []struct {
		metric, result, expected, want string
	}{
		{"is_vlc_playing", `"vlc-playing.xml"`, `{"type": "file_name", "file_name": "tone.wav"}`, "1.0"},
		{"is_vlc_playing", `"vlc-playing.xml"`, `{"type": "file_name", "file_name": "other.wav"}`, "0.0"},
		{"is_vlc_playing", `"vlc-paused.xml"`, `{"type": "file_name", "file_name": "tone.wav"}`, "0.0"},
		{"is_vlc_playing", `"vlc-playing.xml"`, `{"type": "url", "url": "https://www.youtube.com/watch?v=pgBsyTKAwLw"}`, "error"},
		{"is_vlc_playing", `"vlc-playing.xml"`, `{"type": "title", "title": "x"}`, "0.0"},
		{"is_vlc_recordings_folder", `"vlc-set.vlcrc"`, `{"recording_file_path": "/home/user/Desktop"}`, "1.0"},
		{"is_vlc_recordings_folder", `"vlc-set.vlcrc"`, `{"recording_file_path": "/home/user/Videos"}`, "0.0"},
		{"is_vlc_recordings_folder", `"vlc-default.vlcrc"`, `{"recording_file_path": "/home/user/Desktop"}`, "0.0"},
		{"is_vlc_fullscreen", `{"width": 1920, "height": 1080}`, `{"width": 1920, "height": 1080}`, "1.0"},
		{"is_vlc_fullscreen", `{"width": 800, "height": 600}`, `{"width": 1920, "height": 1080}`, "0.0"},
		{"check_qt_bgcone", `"vlc-set.vlcrc"`, `{"expected_qt_bgcone": 0}`, "1.0"},
		{"check_qt_bgcone", `"vlc-default.vlcrc"`, `{"expected_qt_bgcone": 0}`, "0.0"},
		{"check_qt_bgcone", `"vlc-default.vlcrc"`, `{"expected_qt_bgcone": 1}`, "1.0"},
		{"check_qt_bgcone", `"vlc-set.vlcrc"`, `{"expected_qt_bgcone": "0"}`, "1.0"},
		{"check_qt_max_volume", `"vlc-set.vlcrc"`, `{"expected_qt_max_volume": 200}`, "1.0"},
		{"check_qt_max_volume", `"vlc-default.vlcrc"`, `{"expected_qt_max_volume": 200}`, "0.0"},
		{"check_qt_minimal_view", `"vlc-set.vlcrc"`, `{"expected_qt_minimal_view": 1}`, "1.0"},
		{"check_qt_minimal_view", `"vlc-default.vlcrc"`, `{"expected_qt_minimal_view": 1}`, "0.0"},
		{"check_qt_minimal_view", `"vlc-default.vlcrc"`, `{"expected_qt_minimal_view": true}`, "0.0"},
		{"check_qt_slider_colours", `"vlc-set.vlcrc"`, `{"type": "blackish"}`, "1.0"},
		{"check_qt_slider_colours", `"vlc-default.vlcrc"`, `{"type": "blackish"}`, "0.0"},
		{"check_qt_slider_colours", `"vlc-set.vlcrc"`, `{"type": "match", "expected_qt_slider_colours": "10;20;30;40;50;60;70;80;90;0;0;0"}`, "1.0"},
		{"check_qt_slider_colours", `"vlc-default.vlcrc"`, `{"type": "match"}`, "0.0"},
		{"check_global_key_play_pause", `"vlc-set.vlcrc"`, `{"expected_global_key_play_pause": 1}`, "1.0"},
		{"check_global_key_play_pause", `"vlc-default.vlcrc"`, `{"expected_global_key_play_pause": 1}`, "0.0"},
		{"check_global_key_play_pause", `"vlc-default.vlcrc"`, `{"expected_global_key_play_pause": "0"}`, "1.0"},
		{"check_one_instance_when_started_from_file", `"vlc-set.vlcrc"`, `{"expected_one_instance_when_started_from_file": 0}`, "1.0"},
		{"check_one_instance_when_started_from_file", `"vlc-default.vlcrc"`, `{"expected_one_instance_when_started_from_file": 0}`, "0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.metric+"/"+tt.result+"/"+tt.expected, func(t *testing.T) {
			m, _ := Lookup(tt.metric)
			res := rulesOf(t, tt.result)
			if _, ok := res.(string); ok {
				res = tdPaths(res)
			}
			s, err := m.Fn(t.Context(), Call{Result: res, Expected: rulesOf(t, tt.expected)})
			if tt.want == "error" {
				if err == nil {
					t.Errorf("= %v (%s), want an error", s.Value, s.Note)
				}
				return
			}
			want, _ := strconv.ParseFloat(tt.want, 64)
			if err != nil || math.Abs(s.Value-want) > 0 {
				t.Errorf("= %v (%s), %v; want %v", s.Value, s.Note, err, want)
			}
		})
	}
}

// startVLC runs a real VLC with its HTTP interface on a free port, playing
// a tone (VLC refuses to run as root: then as nobody).
func startVLC(t *testing.T) int {
	t.Helper()
	bin, err := exec.LookPath("cvlc")
	if err != nil {
		t.Skip("vlc is not installed (the Makefile's DEB_PKGS installs it)")
	}
	// Not t.TempDir(): its parent is private to root, and VLC may run as nobody.
	dir, err := os.MkdirTemp("", "vlctest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(dir, "tone.wav")
	if err := os.WriteFile(wav, toneWAV(60), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-I", "http", "--http-host", "127.0.0.1", "--http-port", strconv.Itoa(port),
		"--http-password", "password", "--aout", "dummy", "--no-video", wav)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Getuid() == 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return port
}

// toneWAV is a mono 8 kHz 16-bit WAV of secs seconds of a sine tone.
func toneWAV(secs int) []byte {
	n := 8000 * secs
	b := make([]byte, 44+2*n)
	le := func(off int, v uint32, size int) {
		for i := range size {
			b[off+i] = byte(v >> (8 * i))
		}
	}
	copy(b, "RIFF")
	le(4, uint32(36+2*n), 4)
	copy(b[8:], "WAVEfmt ")
	le(16, 16, 4)
	le(20, 1, 2)
	le(22, 1, 2)
	le(24, 8000, 4)
	le(28, 16000, 4)
	le(32, 2, 2)
	le(34, 16, 2)
	copy(b[36:], "data")
	le(40, uint32(2*n), 4)
	for i := range n {
		le(44+2*i, uint32(uint16(int16(8000*math.Sin(float64(i)/10)))), 2)
	}
	return b
}

// TestVLCPlayingInfoLive: vlc_playing_info reads a real VLC's status.xml,
// and is_vlc_playing scores it while VLC plays and after it is paused.
func TestVLCPlayingInfoLive(t *testing.T) {
	port := startVLC(t)
	env := portEnv{dirEnv: dirEnv{home: t.TempDir(), cache: t.TempDir()}, ports: map[int]int{8080: port}}
	m, _ := Lookup("is_vlc_playing")
	score := func(file string) (float64, string) {
		t.Helper()
		v, err := Get(t.Context(), env, map[string]any{"type": "vlc_playing_info", "dest": "status.xml"})
		if err != nil {
			t.Fatal(err)
		}
		if v == nil {
			return -1, "no status"
		}
		s, err := m.Fn(t.Context(), Call{Result: v, Expected: map[string]any{"type": "file_name", "file_name": file}})
		if err != nil {
			t.Fatal(err)
		}
		return s.Value, s.Note
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, note := score("tone.wav")
		if v == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("VLC never reported playing tone.wav: %s", note)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if v, _ := score("other.wav"); v != 0 {
		t.Errorf("another file name scores %v", v)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := env.Dial(ctx, 8080)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "GET /requests/status.xml?command=pl_pause HTTP/1.0\r\nAuthorization: Basic OnBhc3N3b3Jk\r\n\r\n")
	conn.Close()
	for {
		v, note := score("tone.wav")
		if v == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("VLC still plays after pl_pause: %v %s", v, note)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// No VLC: None.
	none := portEnv{dirEnv: env.dirEnv}
	if v, err := Get(t.Context(), none, map[string]any{"type": "vlc_playing_info", "dest": "s.xml"}); v != nil || err != nil {
		t.Errorf("vlc_playing_info without VLC = %v, %v", v, err)
	}
}
