//go:build linux

package eval

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"

	"deskpilot/eval/checks"
)

// makeVideo writes a video made by OpenCV: frames frames of a bright
// square that moves on a dark ground, upside down with flip, its square
// gone from frame change on (change < 0: never), encoded with fourcc.
const makeVideo = `import sys, cv2, numpy
path, frames, flip, change, fourcc = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4]), sys.argv[5]
w = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*fourcc), 10, (160, 120))
for i in range(frames):
    f = numpy.full((120, 160, 3), 30, numpy.uint8)
    f[:40, :, :] = 90
    if change < 0 or i < change:
        f[10 + i % 20:50 + i % 20, 20 + 3 * i:60 + 3 * i] = (240, 200, 40)
    if flip:
        f = f[::-1]
    w.write(f)
w.release()
`

// TestCompareVideos: compare_videos reads the two videos in the task's box
// with OpenCV, as OSWorld's: the same frames pass (encoded another way
// too), a video upside down (what the VLC task asks to undo), one that ends
// first or one whose frames change fail; max_frames_to_check bounds the
// frames compared; a missing result fails, and two files that are not
// videos pass, as in OSWorld (both "end" at once).
func TestCompareVideos(t *testing.T) {
	needPython(t, "cv2, numpy, PIL")
	b, m := boxMetric(t, "compare_videos")
	video := func(name, frames, flip, change, fourcc string) string {
		t.Helper()
		p := filepath.Join(b.cache, name)
		if out, err := osexec.Command("/usr/bin/python3", "-c", makeVideo, p, frames, flip, change, fourcc).CombinedOutput(); err != nil {
			t.Fatalf("making %s: %v: %s", name, err, out)
		}
		return p
	}
	gold := video("gold.mp4", "30", "0", "-1", "mp4v")
	garbage := filepath.Join(b.cache, "garbage.mp4")
	if err := os.WriteFile(garbage, []byte("not a video"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		result   any
		expected string
		opts     map[string]any
		want     float64
		wantErr  string
	}{
		{"same frames", video("same.mp4", "30", "0", "-1", "mp4v"), gold, nil, 1, ""},
		{"same frames, MJPG", video("same.avi", "30", "0", "-1", "MJPG"), gold, nil, 1, ""},
		{"upside down", video("flipped.mp4", "30", "1", "-1", "mp4v"), gold, nil, 0, ""},
		{"ends first", video("short.mp4", "20", "0", "-1", "mp4v"), gold, nil, 0, ""},
		{"frames change", video("changed.mp4", "30", "0", "10", "mp4v"), gold, nil, 0, ""},
		{"change after the frames checked", filepath.Join(b.cache, "changed.mp4"), gold, map[string]any{"max_frames_to_check": int64(8)}, 1, ""},
		{"no result", nil, gold, nil, 0, ""},
		{"neither a video", garbage, garbage, nil, 1, ""},
		{"threshold not a number", gold, gold, map[string]any{"threshold": "five"}, 0, "exit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := m.Fn(t.Context(), checks.Call{Env: b.checkEnv(""), Result: tt.result, Expected: tt.expected, Options: tt.opts})
			wantScore(t, s, err, tt.wantErr, tt.want, tt.want)
			wantNoFolder(t, b, ".osworld-videos-")
		})
	}
}
