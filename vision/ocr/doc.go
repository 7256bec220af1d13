// Package ocr owns reading the text on screen: it turns a frame into words
// and lines with boxes and confidences (Reader.Read), finds a text among them
// the way a person would name it (Text.Find, Text.Closest), and writes them
// as a budgeted text layer for a model's observation (Text.Layer). It is the
// engine behind the find_text and click_text builtins, the OCR marks of
// set-of-marks, and the "ocr" observation.
//
// Reading uses Tesseract 5 in process (github.com/otiai10/gosseract/v2, the
// English LSTM model of Debian's tesseract-ocr-eng). Builds without it (not
// linux, CGO_ENABLED=0, or the noocr tag) still compile: New then returns an
// error wrapping ErrUnavailable, and the matching and layer code works on any
// Text.
//
// Screens are not pages, so frames are prepared before Tesseract sees them:
// each 16x16 cell's dominant luminance is taken as its background and every
// pixel becomes dark in proportion to its distance from it, so light-on-dark
// text reads like dark-on-light; long horizontal and vertical ink runs
// (borders, button outlines) are erased so labels inside boxes stand alone;
// the result is enlarged twice (bilinear), which small bitmap fonts such as
// Xaw's need. Frames are then cut into bands and segments (see tiles.go) read
// in parallel, one Tesseract instance per worker, and cached by the hash of
// their pixels: an unchanged region is never read twice.
//
// Boxes are in the pixels of the frame given to Read, whose origin is usually
// (0, 0): add the captured display's origin to get X root coordinates.
package ocr
