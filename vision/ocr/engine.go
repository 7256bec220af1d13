package ocr

import (
	"errors"
	"image"
)

// ErrUnavailable is returned by New when this build or this machine cannot
// run OCR: the build lacks Tesseract (not linux, CGO_ENABLED=0, or the noocr
// tag), or Tesseract's English data is not installed. Check it with
// errors.Is; the wrapped message says which.
var ErrUnavailable = errors.New("OCR unavailable")

// engine recognises the words of one prepared image (dark ink on white). An
// engine is used by one goroutine at a time; the Reader gives each worker its
// own.
type engine interface {
	// recognize returns the words of img with boxes in img's pixels; scale
	// says how much img was enlarged from screen pixels (Tesseract's size
	// thresholds depend on it).
	recognize(img *image.Gray, scale float64) ([]rawWord, error)
	// close frees the engine.
	close()
}

// rawWord is a word as the engine reports it: box in the prepared image's
// pixels, confidence 0..100, and the numbers of its block, paragraph and
// line so words can be grouped into lines.
type rawWord struct {
	text              string
	box               image.Rectangle
	conf              float64
	block, para, line int
}

// engineFactory makes one engine. It is called on the worker goroutine that
// will use the engine, after that goroutine has locked its OS thread.
type engineFactory func() (engine, error)
