package wiring

import (
	"errors"

	"deskpilot/actions/inspect"
	"deskpilot/vision/ocr"
)

// Engines are the engines every run of one process shares: the OCR reader,
// whose engines start once and whose cache serves every run, and the file
// inspector's PDF engine, which starts on the first PDF a run reads (seconds)
// and is reused by later runs. A process that starts many runs (the app, an
// evaluation) makes one with NewEngines and gives its fields to each Open in
// Options.OCR and Options.PDF; Close it at exit, after the runs.
type Engines struct {
	// OCR reads text on the screen; nil when this build or machine cannot
	// (each run then says so itself).
	OCR *ocr.Reader
	// PDF is the file inspector's PDF engine.
	PDF *inspect.PDFEngine
}

// NewEngines makes the process's shared engines. Nothing starts until a run
// uses it.
func NewEngines() *Engines {
	e := &Engines{PDF: inspect.NewPDFEngine(inspect.PDFOptions{})}
	if r, err := NewOCR(); err == nil {
		e.OCR = r
	}
	return e
}

// Close stops the engines. Safe twice.
func (e *Engines) Close() error {
	var errs []error
	if e.OCR != nil {
		errs = append(errs, e.OCR.Close())
	}
	if e.PDF != nil {
		errs = append(errs, e.PDF.Close())
	}
	return errors.Join(errs...)
}
