package screen

import (
	"cmp"
	"deskpilot/internal/xconn"
	"fmt"
	"image"
	"slices"

	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/xproto"
)

// Display is one monitor's part of the root window.
type Display struct {
	// Index is the position in the list Displays returns (left to right, then top
	// to bottom), used to pick a target display in configuration.
	Index int
	// Name is the RandR monitor name (e.g. "DP-1"), or "root" for the fallback.
	Name string
	// Bounds is the monitor's rectangle in root coordinates (pixels).
	Bounds image.Rectangle
	// Primary reports whether RandR marks the monitor as primary.
	Primary bool
}

// Displays lists the monitors: RandR 1.5 monitors (which include ones defined with
// xrandr --setmonitor), else the active CRTCs (RandR 1.2), else the whole root window
// as one display. They are ordered by position, left to right then top to bottom.
func (s *Screen) Displays() ([]Display, error) {
	var ds []Display
	major, minor, ok := s.randrVersion()
	switch {
	case ok && (major > 1 || minor >= 5):
		var err error
		if ds, err = s.monitors(); err != nil {
			return nil, fmt.Errorf("screen: displays: %w", err)
		}
	case ok && minor >= 2:
		var err error
		if ds, err = s.crtcs(); err != nil {
			return nil, fmt.Errorf("screen: displays: %w", err)
		}
	}
	if len(ds) == 0 {
		size, err := s.Size()
		if err != nil {
			return nil, err
		}
		ds = []Display{{Name: "root", Bounds: image.Rectangle{Max: size}, Primary: true}}
	}
	slices.SortStableFunc(ds, func(a, b Display) int {
		return cmp.Or(cmp.Compare(a.Bounds.Min.X, b.Bounds.Min.X), cmp.Compare(a.Bounds.Min.Y, b.Bounds.Min.Y))
	})
	for i := range ds {
		ds[i].Index = i
	}
	return ds, nil
}

// randrVersion initialises RandR and negotiates version 1.6 at most.
func (s *Screen) randrVersion() (major, minor uint32, ok bool) {
	if err := xconn.Enable(s.conn, xconn.RandR); err != nil {
		return 0, 0, false
	}
	v, err := randr.QueryVersion(s.conn, 1, 6).Reply()
	if err != nil {
		return 0, 0, false
	}
	return v.MajorVersion, v.MinorVersion, true
}

// monitors lists the active RandR monitors.
func (s *Screen) monitors() ([]Display, error) {
	r, err := randr.GetMonitors(s.conn, s.root, true).Reply()
	if err != nil {
		return nil, fmt.Errorf("get monitors: %w", err)
	}
	ds := make([]Display, 0, len(r.Monitors))
	for _, m := range r.Monitors {
		name, err := xproto.GetAtomName(s.conn, m.Name).Reply()
		if err != nil {
			return nil, fmt.Errorf("monitor name: %w", err)
		}
		ds = append(ds, Display{
			Name:    name.Name,
			Bounds:  image.Rect(int(m.X), int(m.Y), int(m.X)+int(m.Width), int(m.Y)+int(m.Height)),
			Primary: m.Primary,
		})
	}
	return ds, nil
}

// crtcs lists the enabled CRTCs, named after their first output.
func (s *Screen) crtcs() ([]Display, error) {
	res, err := randr.GetScreenResourcesCurrent(s.conn, s.root).Reply()
	if err != nil {
		return nil, fmt.Errorf("screen resources: %w", err)
	}
	var primary randr.Output
	if p, err := randr.GetOutputPrimary(s.conn, s.root).Reply(); err == nil {
		primary = p.Output
	}
	var ds []Display
	for _, c := range res.Crtcs {
		info, err := randr.GetCrtcInfo(s.conn, c, res.ConfigTimestamp).Reply()
		if err != nil {
			return nil, fmt.Errorf("crtc info: %w", err)
		}
		if info.Width == 0 || info.Height == 0 || len(info.Outputs) == 0 {
			continue
		}
		d := Display{
			Name:    fmt.Sprintf("crtc-%d", c),
			Bounds:  image.Rect(int(info.X), int(info.Y), int(info.X)+int(info.Width), int(info.Y)+int(info.Height)),
			Primary: slices.Contains(info.Outputs, primary) && primary != 0,
		}
		if out, err := randr.GetOutputInfo(s.conn, info.Outputs[0], res.ConfigTimestamp).Reply(); err == nil {
			d.Name = string(out.Name)
		}
		ds = append(ds, d)
	}
	return ds, nil
}
