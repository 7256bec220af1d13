package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
)

// pyCompareVideos is OSWorld's compare_videos, run by python3 with OpenCV
// (Debian's python3-opencv, OSWorld's frame decoding) and Pillow: the two
// videos' frames are read side by side, up to max_frames_to_check of them;
// when one video ends, the verdict is whether both did; a frame pair whose
// perceptual hashes differ in more than threshold bits is a mismatch, and
// more than threshold mismatches end it false. The hash is imagehash's phash
// (8x8 bits: the frame in grey, resized to 32x32 with Lanczos, a 2-D DCT-II,
// its top-left 8x8 above their median); imagehash is not a Debian package,
// so the DCT is its definition, computed with numpy (scipy.fftpack's gives
// the same values up to rounding). A path is null for a file the getter did
// not find, as None in OSWorld. The verdict is the last line written: 1 or
// 0.
const pyCompareVideos = `import json, sys
import cv2, numpy
from PIL import Image

n = numpy.arange(32)
C = 2 * numpy.cos(numpy.pi * n.reshape(-1, 1) * (2 * n.reshape(1, -1) + 1) / 64)

def phash(frame):
    image = Image.fromarray(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
    pixels = numpy.asarray(image.convert("L").resize((32, 32), Image.LANCZOS), dtype=numpy.float64)
    low = (C @ pixels @ C.T)[:8, :8]
    return (low > numpy.median(low)).flatten()

def compare(path1, path2, max_frames_to_check=100, threshold=5):
    cap1, cap2 = cv2.VideoCapture(path1), cv2.VideoCapture(path2)
    checked = mismatches = 0
    while checked < max_frames_to_check:
        ret1, frame1 = cap1.read()
        ret2, frame2 = cap2.read()
        if not ret1 or not ret2:
            return ret1 == ret2
        checked += 1
        if numpy.count_nonzero(phash(frame1) != phash(frame2)) > threshold:
            mismatches += 1
            if mismatches > threshold:
                return False
    return True

args, options = json.loads(sys.argv[1]), json.loads(sys.argv[2])
ok = compare(*args, **options)
sys.stdout.flush()
print("1" if ok else "0")
`

// compareVideos is OSWorld's compare_videos (pyCompareVideos), run in the
// task's box on copies of the two videos in a new folder of its home,
// removed afterwards.
func compareVideos(ctx context.Context, c Call) (Score, error) {
	var files [][2]string
	args := []any{nil, nil} // paths in the box; null for no file
	for i, v := range []any{c.Result, c.Expected} {
		p, ok, err := pathArg(v, "compare_videos")
		if err != nil {
			return Score{}, err
		}
		if ok {
			name := [2]string{"result", "expected"}[i]
			files = append(files, [2]string{p, name})
			args[i] = name
		}
	}
	folder, inBox, err := boxFolder(c.Env, ".osworld-videos-", files)
	if err != nil {
		return Score{}, fmt.Errorf("compare_videos: %w", err)
	}
	defer os.RemoveAll(folder)
	for i, a := range args {
		if a != nil {
			args[i] = inBox + "/" + a.(string)
		}
	}
	opts := c.Options
	if opts == nil {
		opts = map[string]any{} // **{} in Python
	}
	a, err := json.Marshal(args)
	if err != nil {
		return Score{}, err
	}
	o, err := json.Marshal(opts)
	if err != nil {
		return Score{}, err
	}
	r, err := c.Env.Exec(ctx, []any{"python3", "-I", "-c", pyCompareVideos, string(a), string(o)}, false)
	if err != nil {
		return Score{}, fmt.Errorf("compare_videos: %w", err)
	}
	same, err := boxVerdict(r)
	if err != nil {
		return Score{}, fmt.Errorf("compare_videos: reading the videos failed (%w)", err)
	}
	if same {
		return Score{Value: 1}, nil
	}
	return Score{Note: "the videos' frames differ"}, nil
}
