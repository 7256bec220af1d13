package calibrate

import (
	"fmt"
	"image"
	"strings"

	"deskpilot/agent/dialect"
	"deskpilot/internal/config"
	"deskpilot/vision"
)

// Suggestion is what to set so deskpilot reads the model in a convention.
// Empty fields stay as they are.
type Suggestion struct {
	Dialect, CoordMode, PyAutoGUICoords string
	MaxSide                             int
	// Current says the configured settings already read it so.
	Current bool
	// Fixable is false when no setting makes deskpilot read it (x/y
	// swapped, the monitor offset, factor-32 pixels): Note says why.
	Fixable bool
	Note    string
}

// String renders the settings as config.toml lines.
func (s Suggestion) String() string {
	if !s.Fixable {
		return s.Note
	}
	if s.Current {
		return "the configured settings read the model this way"
	}
	var parts []string
	if s.Dialect != "" {
		parts = append(parts, fmt.Sprintf("dialect = %q", s.Dialect))
	}
	if s.CoordMode != "" {
		parts = append(parts, fmt.Sprintf("coord_mode = %q", s.CoordMode))
	}
	if s.PyAutoGUICoords != "" {
		parts = append(parts, fmt.Sprintf("pyautogui_coords = %q", s.PyAutoGUICoords))
	}
	if s.MaxSide != 0 {
		parts = append(parts, fmt.Sprintf("image_max_side = %d", s.MaxSide))
	}
	return strings.Join(parts, ", ")
}

// Apply writes the suggestion into s.
func (s Suggestion) Apply(set *config.Settings) {
	if s.Dialect != "" {
		set.Dialect = s.Dialect
	}
	if s.CoordMode != "" {
		set.CoordMode = s.CoordMode
	}
	if s.PyAutoGUICoords != "" {
		set.PyAutoGUICoords = s.PyAutoGUICoords
	}
	if s.MaxSide != 0 {
		set.MaxSide = s.MaxSide
	}
}

// ownKey is the convention key of a dialect's own space on a monitor, as
// the fit names it.
func ownKey(sp dialect.Space, monitor image.Point) string {
	switch sp.Mode {
	case vision.CoordNorm1000, vision.CoordNorm1000Round:
		return "norm1000"
	case vision.CoordNorm999:
		return "norm999"
	case vision.CoordUnit:
		return "unit"
	}
	switch sp.Image {
	case monitor:
		return "screen"
	case smartSize(monitor, 28):
		return "smart28"
	case smartSize(monitor, 32):
		return "smart32"
	}
	return "pixels"
}

// same reports whether two convention keys map alike on a geometry (the
// sent image may be the screen or its smart-resize).
func same(a, b string, g Geometry) bool {
	alias := func(k string) string {
		switch {
		case k == "pixels" && g.Sent == g.Monitor.Size():
			return "screen"
		case k == "pixels" && g.Sent == smartSize(g.Monitor.Size(), 28):
			return "smart28"
		case k == "pixels" && g.Sent == smartSize(g.Monitor.Size(), 32):
			return "smart32"
		}
		return k
	}
	return alias(a) == alias(b)
}

// Suggest says what to set for a convention, given the configured dialect
// (name), its space on the monitor and the geometry.
func Suggest(c Convention, dialectName string, own dialect.Space, g Geometry) Suggestion {
	switch {
	case c.Swapped:
		return Suggestion{Note: "the model swaps x and y: no setting reads it so; try another dialect or model"}
	case c.Root:
		return Suggestion{Note: fmt.Sprintf("the model adds the monitor's offset %v (it answers in root-window coordinates): no setting reads it so; calibrate a single-monitor setup or another dialect", g.Monitor.Min)}
	}
	if same(c.Key, ownKey(own, g.Monitor.Size()), g) {
		return Suggestion{Current: true, Fixable: true}
	}
	py := dialectName == "pyautogui" || dialectName == "opencua"
	s := Suggestion{Fixable: true}
	switch c.Key {
	case "pixels":
		switch {
		case dialectName == dialect.Default:
			s.CoordMode = "pixels"
		case dialectName == "pyautogui":
			s.PyAutoGUICoords = "pixels"
		default:
			s.Dialect, s.CoordMode = dialect.Default, "pixels"
		}
	case "norm1000":
		if dialectName != dialect.Default {
			s.Dialect = dialect.Default
		}
		s.CoordMode = "norm1000"
	case "norm999":
		s.Dialect = "qwen3"
	case "unit":
		if !py {
			s.Dialect = "pyautogui"
		}
		s.PyAutoGUICoords = "unit"
	case "smart28":
		if py {
			s.PyAutoGUICoords = "smart"
		} else {
			s.Dialect = "qwen2.5"
		}
	case "screen":
		// The screenshot goes out unscaled, so its pixels are the screen's.
		s.MaxSide = max(g.Monitor.Dx(), g.Monitor.Dy())
		if dialectName != dialect.Default {
			s.Dialect = dialect.Default
		}
		s.CoordMode = "pixels"
	default:
		return Suggestion{Note: "no setting reads " + c.Name + "; try another dialect"}
	}
	return s
}
