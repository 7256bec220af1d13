package vision

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// Format is an image encoding for the model.
type Format string

const (
	// FormatPNG is lossless and keeps text crisp. The default.
	FormatPNG Format = "png"
	// FormatJPEG is lossy: smaller on a busy desktop, but it smears small
	// text. Its quality is Encoder.Quality.
	FormatJPEG Format = "jpeg"
	// FormatWebP is lossless WebP (VP8L): the pixels of PNG in fewer bytes,
	// at a much higher encoding cost (see Encoder).
	FormatWebP Format = "webp"
)

// ParseFormat parses "png", "jpeg" ("jpg" too) or "webp" (case and
// surrounding space ignored); "" is FormatPNG.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "png":
		return FormatPNG, nil
	case "jpeg", "jpg":
		return FormatJPEG, nil
	case "webp":
		return FormatWebP, nil
	}
	return "", fmt.Errorf("parse image format %q: want %q, %q or %q", s, FormatPNG, FormatJPEG, FormatWebP)
}

// normal returns f with "" (and any unknown value) read as FormatPNG.
func (f Format) normal() Format {
	switch f {
	case FormatJPEG, FormatWebP:
		return f
	}
	return FormatPNG
}

// MIME returns the media type of f: "image/png", "image/jpeg" or
// "image/webp"; "" and unknown formats are PNG.
func (f Format) MIME() string { return "image/" + string(f.normal()) }

// Ext returns the file extension of f without the dot: "png", "jpeg" or
// "webp"; "" and unknown formats are PNG.
func (f Format) Ext() string { return string(f.normal()) }

// dataURLPrefix returns "data:<mime>;base64,".
func dataURLPrefix(f Format) string { return "data:" + f.MIME() + ";base64," }

// DataURLLen returns the length of the data URL of n encoded bytes in f.
func DataURLLen(f Format, n int) int {
	return len(dataURLPrefix(f)) + base64.StdEncoding.EncodedLen(n)
}

// DataURL returns data as a base64 data URL of f's media type,
// "data:image/png;base64,...", built with a single allocation.
func DataURL(f Format, data []byte) string {
	var sb strings.Builder
	sb.Grow(DataURLLen(f, len(data)))
	sb.WriteString(dataURLPrefix(f))
	// Encode in chunks through a small stack buffer: no second copy of the
	// whole payload.
	var buf [3 * 1024 * 4 / 3]byte
	for len(data) > 0 {
		n := min(len(data), 3*1024)
		base64.StdEncoding.Encode(buf[:], data[:n])
		sb.Write(buf[:base64.StdEncoding.EncodedLen(n)])
		data = data[n:]
	}
	return sb.String()
}

// AppendDataURL appends the data URL of data (see DataURL) to dst and
// returns the extended slice. It lets a caller that keeps only the encoded
// bytes write the URL straight into a request body when it sends one: the
// base64 alphabet and the prefix need no escaping inside a JSON string.
func AppendDataURL(dst []byte, f Format, data []byte) []byte {
	dst = append(dst, dataURLPrefix(f)...)
	return base64.StdEncoding.AppendEncode(dst, data)
}
