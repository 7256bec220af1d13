//go:build linux && cgo && !noocr

package ocr

/*
#cgo LDFLAGS: -lgomp

// Declared here rather than through <omp.h>, which lives in GCC's private
// include directory.
void omp_set_dynamic(int);
void omp_set_num_threads(int);
void omp_set_max_active_levels(int);

// oneThread makes OpenMP parallel regions started from the calling OS thread
// run on that thread alone. Tesseract asks for 4 threads with explicit
// num_threads clauses, which omp_set_num_threads does not override. With at
// most 0 active levels every region is inactive, so it gets one thread,
// whatever the clause says, and libgomp decides so without work: dynamic
// adjustment (the other way to cap a clause) reads the load average from
// /proc and calls sysinfo at every region, which took a quarter of the CPU
// time of a read. These settings belong to the calling thread, which is why
// workers lock their OS thread.
static void oneThread(void) {
	omp_set_dynamic(0);
	omp_set_num_threads(1);
	omp_set_max_active_levels(0);
}
*/
import "C"

import (
	"fmt"
	"image"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/otiai10/gosseract/v2"
)

// tessInitMu serialises Tesseract's initialisation in the whole process:
// gosseract's Init swaps the process's stderr (file descriptor 2) for
// /dev/null and back around TessBaseAPI::Init, so two concurrent Inits can
// leave stderr pointing at /dev/null for good. It also guards the library's
// static data-path lookup. It is the only process-wide state of this package
// and exists because the resource it guards, fd 2, is process-wide.
var tessInitMu sync.Mutex

// tessVars returns the Tesseract settings every engine uses.
func tessVars() [][2]string {
	return [][2]string{
		// Segments are small regions of one band; a single uniform block reads
		// table rows and UI rows left to right and is cheaper than full
		// layout analysis.
		{"tessedit_pageseg_mode", strconv.Itoa(int(gosseract.PSM_SINGLE_BLOCK))},
		// prepare already turns light-on-dark text dark-on-light; retrying
		// inverted lines would double the work on low-confidence lines.
		{"tessedit_do_invert", "0"},
		// Quiet: warnings such as "Estimating resolution" never reach stderr.
		{"debug_file", os.DevNull},
	}
}

// tesseractAvailable reports whether Tesseract has English data, so New can
// fail clearly instead of letting Init print to stderr.
func tesseractAvailable() error {
	tessInitMu.Lock()
	defer tessInitMu.Unlock()
	langs, err := gosseract.GetAvailableLanguages()
	if err != nil {
		return fmt.Errorf("%w: list Tesseract languages: %v", ErrUnavailable, err)
	}
	if !slices.Contains(langs, "eng") {
		return fmt.Errorf("%w: Tesseract has no English data (install tesseract-ocr-eng)", ErrUnavailable)
	}
	return nil
}

// sizeVars returns the settings that depend on how much the image was
// enlarged: the resolution (screens are about 96 dpi).
func sizeVars(scale float64) [][2]string {
	return [][2]string{{"user_defined_dpi", strconv.Itoa(int(96 * scale))}}
}

// tesseract is an engine over one gosseract client.
type tesseract struct {
	client *gosseract.Client
}

// newTesseract returns the factory of Tesseract engines with the settings
// vars: call it on a goroutine locked to its OS thread.
func newTesseract(vars [][2]string) engineFactory {
	return func() (engine, error) {
		C.oneThread()
		c := gosseract.NewClient()
		c.Trim = false
		for _, kv := range vars {
			if err := c.SetVariable(gosseract.SettableVariable(kv[0]), kv[1]); err != nil {
				c.Close()
				return nil, fmt.Errorf("tesseract: set %s: %w", kv[0], err)
			}
		}
		t := &tesseract{client: c}
		// The first recognition initialises the API (loads the model and
		// applies the settings): do it now, on a blank image, under the lock.
		tessInitMu.Lock()
		_, err := t.recognize(image.NewGray(image.Rect(0, 0, 8, 8)), 1)
		tessInitMu.Unlock()
		if err != nil {
			c.Close()
			return nil, err
		}
		return t, nil
	}
}

func (t *tesseract) recognize(img *image.Gray, scale float64) ([]rawWord, error) {
	if err := t.client.SetImageFromBytes(pgm(img)); err != nil {
		return nil, fmt.Errorf("tesseract: set image: %w", err)
	}
	for _, kv := range sizeVars(scale) {
		if err := t.client.SetVariable(gosseract.SettableVariable(kv[0]), kv[1]); err != nil {
			return nil, fmt.Errorf("tesseract: set %s: %w", kv[0], err)
		}
	}
	boxes, err := t.client.GetBoundingBoxesVerbose()
	if err != nil {
		return nil, fmt.Errorf("tesseract: recognise: %w", err)
	}
	words := make([]rawWord, 0, len(boxes))
	for _, b := range boxes {
		text := strings.TrimSpace(b.Word)
		if text == "" {
			continue
		}
		words = append(words, rawWord{
			text: text, box: b.Box, conf: b.Confidence,
			block: b.BlockNum, para: b.ParNum, line: b.LineNum,
		})
	}
	return words, nil
}

func (t *tesseract) close() { t.client.Close() }

// pgm encodes img as a binary PGM (P5), which Leptonica reads without
// decompression.
func pgm(img *image.Gray) []byte {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	head := fmt.Sprintf("P5\n%d %d\n255\n", w, h)
	out := make([]byte, len(head)+w*h)
	n := copy(out, head)
	for y := range h {
		n += copy(out[n:], img.Pix[y*img.Stride:][:w])
	}
	return out
}

// defaultEngine returns the Tesseract engine factory, or ErrUnavailable when
// Tesseract has no English data.
func defaultEngine() (engineFactory, error) {
	if err := tesseractAvailable(); err != nil {
		return nil, err
	}
	return newTesseract(tessVars()), nil
}
