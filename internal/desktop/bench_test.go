//go:build linux

package desktop

import (
	"strings"
	"testing"
	"time"

	"deskpilot/actions"
	"deskpilot/internal/testapps"
)

// BenchmarkType types into the form's notes box with each backend: a short
// Unicode text (x11: keymap borrowing; robotgo: paste) and 200 ASCII
// characters (robotgo: key events). Each op returns when the backend is done
// sending, not when the app has drawn the text.
func BenchmarkType(b *testing.B) {
	texts := map[string]string{
		"unicode12": "Grüße, 東京 ✓",
		"ascii200":  strings.Repeat("The quick brown fox jumps. ", 8)[:200],
	}
	for _, backend := range testBackends {
		for _, name := range []string{"unicode12", "ascii200"} {
			b.Run(backend+"/"+name, func(b *testing.B) {
				x := attach(b)
				d, err := Open(Options{Backend: backend})
				if err != nil {
					b.Fatal(err)
				}
				defer d.Close()
				f := testapps.StartForm(b, x)
				r, err := f.Widget("notes")
				if err != nil {
					b.Fatal(err)
				}
				p := actions.Point{X: (r.Min.X + r.Max.X) / 2, Y: (r.Min.Y + r.Max.Y) / 2}
				if err := d.Input().Click(b.Context(), p, actions.Left, 1); err != nil {
					b.Fatal(err)
				}
				time.Sleep(600 * time.Millisecond) // let the click focus the box (see pace)
				for b.Loop() {
					if err := d.Input().Type(b.Context(), texts[name]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
