//go:build !linux

package app

import "fyne.io/fyne/v2"

// placer would move the main window where the toolkit cannot; window placement
// is implemented for X11 only (place_x11.go). Here the strip stays where the
// toolkit puts it, and it cannot move out of the agent's way.
type placer struct{}

// toStrip does nothing and reports that it did not move the window.
func (p *placer) toStrip(fyne.Window, fyne.Size, []keepOut, bool, func(placement)) bool { return false }

// toFull does nothing.
func (p *placer) toFull(fyne.Window) {}
