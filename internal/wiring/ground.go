package wiring

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"time"

	"deskpilot/a11y"
	"deskpilot/a11y/atspi"
	"deskpilot/agent"
	"deskpilot/agent/script"
	"deskpilot/internal/config"
	"deskpilot/vision/ocr"
)

// The grounding engines: the OCR reader (vision/ocr, one per process: the
// caller shares it through Options.OCR) and the accessibility tree
// (a11y/atspi, one client per desktop, connected on first use to the buses
// of the display driven), adapted to the interfaces agent/script declares.

// NewOCR returns the process's OCR reader (its engines start on the first
// read), or the error saying why this build or machine cannot read text.
// Close it at exit.
func NewOCR() (*ocr.Reader, error) { return ocr.New(ocr.Options{}) }

// textReader adapts an ocr.Reader to script.TextReader.
type textReader struct{ r *ocr.Reader }

func (t textReader) ReadText(ctx context.Context, frame *image.RGBA) (script.ScreenText, error) {
	txt, err := t.r.Read(ctx, frame)
	if err != nil {
		return nil, err
	}
	return screenText{txt}, nil
}

// pageOCR is the inspector's OCR for pages without a text layer (scanned
// PDFs): the agent's text reader, looked up when a page is read (the reader
// is set after the tools are made), its lines joined.
func pageOCR(a *agent.Agent) func(ctx context.Context, img image.Image) (string, error) {
	return func(ctx context.Context, img image.Image) (string, error) {
		t, ok := a.Text.(textReader)
		if !ok {
			return "", errors.New("no OCR engine in this deskpilot")
		}
		rgba, ok := img.(*image.RGBA)
		if !ok {
			rgba = image.NewRGBA(img.Bounds())
			draw.Draw(rgba, rgba.Rect, img, img.Bounds().Min, draw.Src)
		}
		txt, err := t.r.Read(ctx, rgba)
		if err != nil {
			return "", err
		}
		return txt.String(), nil
	}
}

// noText is the reader of a deskpilot that cannot read text: every read
// fails with err, which says why.
type noText struct{ err error }

func (n noText) ReadText(context.Context, *image.RGBA) (script.ScreenText, error) { return nil, n.err }

// screenText adapts an *ocr.Text to script.ScreenText.
type screenText struct{ t *ocr.Text }

func (s screenText) Find(text string, exact bool) []script.TextMatch {
	return matches(s.t.Find(text, exact))
}

func (s screenText) Closest(text string, n int) []script.TextMatch {
	return matches(s.t.Closest(text, n))
}

func (s screenText) Words() []script.TextWord {
	ws := s.t.Words()
	out := make([]script.TextWord, len(ws))
	for i, w := range ws {
		out[i] = script.TextWord{Text: w.Text, Box: w.Box, Conf: w.Conf}
	}
	return out
}

func (s screenText) Layer(maxChars int, format func(image.Point) string) string {
	return s.t.Layer(ocr.LayerOptions{MaxChars: maxChars, Position: format})
}

func matches(ms []ocr.Match) []script.TextMatch {
	out := make([]script.TextMatch, len(ms))
	for i, m := range ms {
		out[i] = script.TextMatch{Text: m.Text, Box: m.Box, Score: m.Score, Line: m.Line}
	}
	return out
}

// retryConnect is how long a failed connection to the accessibility bus is
// remembered before the next query tries again (a bus started meanwhile).
const retryConnect = 10 * time.Second

// errClosed answers queries after Ready.Close.
var errClosed = errors.New("the desktop is closed")

// elements is the accessibility tree of the desktop's display: an
// atspi.Client connected on first use. Safe for concurrent use.
type elements struct {
	o    atspi.Options
	lock chan struct{} // one slot: held while c, err, failed, closed are read or set

	c      *atspi.Client
	err    error
	failed time.Time
	closed bool
}

func newElements(o atspi.Options) *elements {
	return &elements{o: o, lock: make(chan struct{}, 1)}
}

// Elements reads the visible elements q selects (atspi.Client.Elements).
func (e *elements) Elements(ctx context.Context, q a11y.Query) ([]a11y.Element, a11y.Note, error) {
	c, err := e.client(ctx)
	if err != nil {
		return nil, a11y.Note{}, err
	}
	return c.Elements(ctx, q)
}

// client returns the connected client, connecting first if need be. A
// connection that failed fails again without trying for retryConnect.
func (e *elements) client(ctx context.Context) (*atspi.Client, error) {
	select {
	case e.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-e.lock }()
	switch {
	case e.closed:
		return nil, errClosed
	case e.c != nil:
		return e.c, nil
	case e.err != nil && time.Since(e.failed) < retryConnect:
		return nil, e.err
	}
	c, err := atspi.Connect(ctx, e.o)
	if err != nil {
		if ctx.Err() == nil {
			e.err, e.failed = err, time.Now()
		}
		return nil, err
	}
	e.c, e.err = c, nil
	return c, nil
}

// Close closes the client; later queries fail. Safe twice.
func (e *elements) Close() error {
	e.lock <- struct{}{}
	defer func() { <-e.lock }()
	e.closed = true
	if e.c == nil {
		return nil
	}
	err := e.c.Close()
	e.c = nil
	return err
}

// groundEngines are a Ready's grounding engines and what it must close.
type groundEngines struct {
	text     script.TextReader
	elements *elements
	ownOCR   *ocr.Reader // made for this Ready (Options.OCR was nil)
}

// openGround wires the engines for a desktop whose target monitor is bounds.
// The accessibility client reads the display cfg drives; when that is not
// this session's display (--x-display, an eval display), the environment's
// buses belong to another display and only the display's own (its root
// window's AT_SPI_BUS property) is used.
func openGround(cfg config.Config, bounds image.Rectangle, o Options) *groundEngines {
	g := &groundEngines{}
	switch r := o.OCR; {
	case r != nil:
		g.text = textReader{r}
	default:
		if r, err := NewOCR(); err != nil {
			g.text = noText{fmt.Errorf("reading text on the screen is not available: %w", err)}
		} else {
			g.ownOCR, g.text = r, textReader{r}
		}
	}
	foreign := cfg.XDisplay != "" && cfg.XDisplay != o.lookup("DISPLAY")
	g.elements = newElements(atspi.Options{XDisplay: cfg.XDisplay, XAuthority: o.XAuthority, Bounds: bounds, IgnoreEnv: foreign})
	return g
}

// close closes the accessibility client and an OCR reader made for the Ready.
func (g *groundEngines) close() error {
	if g == nil {
		return nil
	}
	errs := []error{g.elements.Close()}
	if g.ownOCR != nil {
		errs = append(errs, g.ownOCR.Close())
	}
	return errors.Join(errs...)
}
