package trace

import (
	"deskpilot/actions"

	"bytes"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"os"
	"slices"
)

// The field of a typed secret, as Redact flattens it: a box this size
// (screen pixels) centred on the point where the run last pressed a button
// before it typed the secret. Wide enough for a text field whose middle was
// clicked.
const (
	secretFieldWidth  = 640
	secretFieldHeight = 56
)

// secretFields returns, by step, the screen regions (root pixels) where the
// step's image may show a typed secret: the field of every action that typed
// a secret (actions.TypesSecret) in an earlier step. The field is around the
// recorded point of the last action before it whose gesture pressed a button
// (a click, however its point was found: coordinates, text, element, mark,
// grounder); without one the field is unknown and the whole screen is
// returned. The actions' traits are those recorded with them.
func secretFields(t *Trace) map[int][]image.Rectangle {
	whole := image.Rect(-1<<20, -1<<20, 1<<20, 1<<20)
	out := map[int][]image.Rectangle{}
	var last *[2]int
	var active []image.Rectangle
	for _, s := range t.Steps {
		if len(active) > 0 {
			out[s.Number] = slices.Clone(active)
		}
		for _, a := range s.Actions {
			switch {
			case a.Gesture.Presses():
				if a.Screen != nil && a.Error == "" {
					last = a.Screen
				}
			case a.Types == actions.TypesSecret: // failed ones too: part of the secret may have been typed
				r := whole
				if last != nil {
					c := image.Pt(last[0], last[1])
					r = image.Rect(c.X-secretFieldWidth/2, c.Y-secretFieldHeight/2, c.X+secretFieldWidth/2, c.Y+secretFieldHeight/2)
				}
				if !slices.Contains(active, r) {
					active = append(active, r)
				}
			}
		}
	}
	return out
}

// imageRects maps screen regions (root pixels) into an image of size img
// showing screen, rounding outwards and clipping. Without a known screen
// every region is the whole image.
func imageRects(rects []image.Rectangle, screen Rect, img image.Point) []image.Rectangle {
	bounds := image.Rectangle{Max: img}
	var out []image.Rectangle
	for _, r := range rects {
		m := bounds
		if screen.W > 0 && screen.H > 0 {
			r = r.Sub(image.Pt(screen.X, screen.Y))
			m = image.Rect(
				floorDiv(r.Min.X*img.X, screen.W), floorDiv(r.Min.Y*img.Y, screen.H),
				-floorDiv(-r.Max.X*img.X, screen.W), -floorDiv(-r.Max.Y*img.Y, screen.H),
			).Intersect(bounds)
		}
		if !m.Empty() {
			out = append(out, m)
		}
	}
	return out
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// cardMarker marks a dataset card deskpilot wrote and may rewrite.
const cardMarker = "<!-- deskpilot dataset card: rewritten by `deskpilot traces export --format dataset` -->"

// writeCard writes the dataset card at path unless a card someone else
// wrote is there; it returns "" or why it left the file alone.
func writeCard(path string, rows int) string {
	old, err := os.ReadFile(path)
	switch {
	case err == nil && !bytes.Contains(old, []byte(cardMarker)):
		return path + " was not written by deskpilot: left as it is"
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s: %v", path, err)
	}
	if err := writeFileAtomic(path, fmt.Appendf(nil, cardText, cardMarker, rows)); err != nil {
		return fmt.Sprintf("%s: %v", path, err)
	}
	return ""
}

// cardText is the dataset card; %s is the marker, %d the number of rows.
const cardText = `---
pretty_name: deskpilot computer-use traces
tags:
- computer-use
- gui-agent
- screenshots
- deskpilot
task_categories:
- image-text-to-text
---
%s

# deskpilot computer-use traces

Steps of desktop tasks run by deskpilot, an agent that shows a
vision language model the screen and runs the short Starlark program it answers
with. Each row is one step: the screenshot the model looked at, what it thought, the
code it wrote, what that code did on the desktop and what the model was told back.
%d rows. Load it with ` + "`datasets.load_dataset(\"imagefolder\", data_dir=...)`" + `.

## Files

- ` + "`metadata.jsonl`" + `: one row per step (the columns below).
- ` + "`images/<trace>-<step>.png`" + ` (or ` + "`.jpg`" + `): the image of each row.

## Columns

| column | type | meaning |
|---|---|---|
| file_name | string | the image, relative to this folder |
| trace | string | the recording the step comes from (trace folder name); with step, the row's key |
| started | string | when the run started (RFC 3339, UTC) |
| task | string | the task the person gave |
| model | string | the model that wrote the step |
| coord_mode | string | how the code writes points: ` + "`pixels`" + ` (pixels of the model's image) or ` + "`norm1000`" + ` (0-1000 on both axes) |
| screen | {x, y, w, h} | the display the run drove, root pixels |
| image_source | string | ` + "`model`" + `: the downscaled, annotated view the model saw; ` + "`screen`" + `: the full-resolution screen (when no view was recorded) |
| image_width, image_height | int | size of the image, pixels |
| step | int | the step, 1-based |
| steps | int | steps in the run |
| thought | string | the model's reply without its code |
| code | string | the code that ran |
| actions | list | what the code did: {name, args, model [x, y] as written, screen [x, y] root pixels, image [x, y] pixels of this row's image, to [x, y] end of a drag, result, error} |
| observation | string | what the model was told after the step |
| error | string | the code's error, if any |
| answer | string | the final answer, when given in this step |
| outcome | string | how the run ended: answered, failed, max_steps, cancelled ("" when it did not end) |
| redacted | list | regions flattened in the image for privacy, {x, y, w, h} image pixels |

## Privacy

Screenshots show a desktop. Secrets the runs knew (API keys, typed passwords) were
replaced by ` + "`[redacted]`" + ` when the traces were written, and values configured as
secrets when exporting were replaced in every column. With ` + "`--redact`" + `, the field
of every typed secret is flattened to one colour in later images (listed in
` + "`redacted`" + `). Other things on screen are not: review the images before you share them.
`
