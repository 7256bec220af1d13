package trace

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // frames may be JPEG (the model's view)
	_ "image/png"
	"io"
	"os"
)

// Limits of ReadFrame and DecodeFrame: a trace folder is data, possibly
// someone else's, so a frame is bounded before it is read or decoded.
const (
	MaxFrameBytes  = 64 << 20 // largest frame file read
	MaxFramePixels = 64 << 20 // largest frame decoded (8192x8192)
)

// ErrUnsafeFrame marks a frame path that names no file inside the trace
// folder: absolute, climbing out with "..", with backslashes or colons, or a
// symbolic link that resolves outside the folder.
var ErrUnsafeFrame = errors.New("the frame is not a file inside the trace folder")

// ReadFrame returns the content of the frame rel (a path from an event, with
// forward slashes) of the trace folder dir. Paths are resolved inside dir
// only (os.Root): a symbolic link may point elsewhere in the folder, never
// out of it. Files larger than MaxFrameBytes and anything but regular files
// are refused.
func ReadFrame(dir, rel string) ([]byte, error) {
	f, st, err := openFrame(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > MaxFrameBytes {
		return nil, fmt.Errorf("trace: frame %q: %d bytes, more than the %d a frame may have", rel, st.Size(), MaxFrameBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFrameBytes+1))
	if err != nil {
		return nil, fmt.Errorf("trace: frame %q: %w", rel, err)
	}
	if len(data) > MaxFrameBytes {
		return nil, fmt.Errorf("trace: frame %q: more than the %d bytes a frame may have", rel, MaxFrameBytes)
	}
	return data, nil
}

// FrameSize returns the dimensions of the frame rel of the trace folder dir,
// from its header, with ReadFrame's rules on where the file may be.
func FrameSize(dir, rel string) (w, h int, err error) {
	f, _, err := openFrame(dir, rel)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	cfg, _, err := image.DecodeConfig(io.LimitReader(f, MaxFrameBytes))
	if err != nil {
		return 0, 0, fmt.Errorf("trace: frame %q: %w", rel, err)
	}
	return cfg.Width, cfg.Height, nil
}

// openFrame opens the regular file rel inside the trace folder dir.
func openFrame(dir, rel string) (*os.File, os.FileInfo, error) {
	local, ok := framePath(rel)
	if !ok {
		return nil, nil, fmt.Errorf("trace: frame %q: %w", rel, ErrUnsafeFrame)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("trace: frame %q: %w", rel, err)
	}
	defer root.Close()
	f, err := root.Open(local)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("trace: frame %q: %w", rel, err)
		}
		// os.Root reports a path that escapes it as a plain error.
		return nil, nil, fmt.Errorf("trace: frame %q: %w (%v)", rel, ErrUnsafeFrame, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("trace: frame %q: %w", rel, err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("trace: frame %q: %w (not a regular file)", rel, ErrUnsafeFrame)
	}
	return f, st, nil
}

// DecodeFrame reads the frame rel of the trace folder dir (see ReadFrame)
// and decodes it (PNG or JPEG). It also returns the format name ("png",
// "jpeg") and the file's bytes. A picture of more than MaxFramePixels is
// refused before it is decoded.
func DecodeFrame(dir, rel string) (image.Image, string, []byte, error) {
	data, err := ReadFrame(dir, rel)
	if err != nil {
		return nil, "", nil, err
	}
	img, format, err := decodeImage(data)
	if err != nil {
		return nil, "", nil, fmt.Errorf("trace: frame %q: %w", rel, err)
	}
	return img, format, data, nil
}

// decodeImage decodes a PNG or JPEG after checking its size.
func decodeImage(data []byte) (image.Image, string, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, "", err
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > MaxFramePixels/cfg.Height {
		return nil, "", fmt.Errorf("a %dx%d picture: more than the %d pixels a frame may have", cfg.Width, cfg.Height, MaxFramePixels)
	}
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, "", err
	}
	return img, format, nil
}
