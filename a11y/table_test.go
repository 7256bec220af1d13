package a11y

import (
	"fmt"
	"image"
	"slices"
	"strings"
	"testing"
)

func TestLinearize(t *testing.T) {
	els := sample()
	table, omitted := Linearize(els, TableOptions{})
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	want := []string{
		"role\tname\ttext\tstates\tcenter (x, y)\tsize (w, h)",
		"push button\tCancel\t\tfocused\t(140, 215)\t(80, 30)",
		"dialog\tSave changes?\t\tactive\t(200, 150)\t(400, 300)",
		"check box\tAutosave\t\tchecked\t(50, 115)\t(80, 30)",
		"check box\tBackup\t\tdisabled\t(50, 155)\t(80, 30)",
		"push button\tDon't Save\t\t\t(50, 215)\t(80, 30)",
		"push button\tSave\t\tis-default\t(240, 215)\t(80, 30)",
		"label\tSave changes to document?\t\t\t(50, 25)\t(80, 30)",
	}
	if omitted != 0 || !slices.Equal(lines, want) {
		t.Errorf("Linearize =\n%s\nwant\n%s", table, strings.Join(want, "\n"))
	}
	t.Run("budget", func(t *testing.T) {
		table, omitted := Linearize(els, TableOptions{MaxChars: 300})
		if omitted == 0 || len(table) > 300 || !strings.Contains(table, "more elements not shown") {
			t.Errorf("cut table (%d bytes, %d omitted):\n%s", len(table), omitted, table)
		}
		if !strings.Contains(table, "Cancel") {
			t.Error("the focused element was cut before less relevant ones")
		}
	})
	t.Run("map", func(t *testing.T) {
		half := func(r image.Rectangle) image.Rectangle { return image.Rect(r.Min.X/2, r.Min.Y/2, r.Max.X/2, r.Max.Y/2) }
		table, _ := Linearize(els[3:4], TableOptions{Map: half})
		if !strings.Contains(table, "(70, 107)\t(40, 15)") {
			t.Errorf("mapped table:\n%s", table)
		}
	})
	t.Run("format", func(t *testing.T) {
		unit := func(r image.Rectangle) (string, string) {
			return fmt.Sprintf("%.3f, %.3f", float64(r.Min.X+r.Max.X)/800, float64(r.Min.Y+r.Max.Y)/600),
				fmt.Sprintf("%.3f, %.3f", float64(r.Dx())/400, float64(r.Dy())/300)
		}
		table, _ := Linearize(els[3:4], TableOptions{Format: unit, Map: func(image.Rectangle) image.Rectangle { return image.Rectangle{} }})
		if !strings.Contains(table, "(0.350, 0.717)\t(0.200, 0.100)") {
			t.Errorf("formatted table:\n%s", table)
		}
	})
}
