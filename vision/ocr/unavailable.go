//go:build !linux || !cgo || noocr

package ocr

import (
	"fmt"
	"runtime"
)

// defaultEngine reports that this build has no OCR engine.
func defaultEngine() (engineFactory, error) {
	return nil, fmt.Errorf("%w in this build (%s/%s): deskpilot reads text on screen with Tesseract, "+
		"which needs Linux, cgo and libtesseract; build without the noocr tag to enable it",
		ErrUnavailable, runtime.GOOS, runtime.GOARCH)
}
