package app

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// readableTheme is Fyne's default theme with the colours that carry text
// changed so every text the app shows has a contrast of at least 4.5:1
// (WCAG AA) against what it is drawn on, in the dark and the light variant.
// Fyne's own palette draws secondary text (LowImportance labels use the
// "disabled" colour) at about 1.55:1 on the dark background, and success,
// warning and error text at 1.5–3.7:1 on the light one. The variant follows
// the system setting (Fyne reads it); only the colours below differ.
type readableTheme struct {
	fyne.Theme
}

// newReadableTheme wraps Fyne's default theme.
func newReadableTheme() fyne.Theme { return readableTheme{theme.DefaultTheme()} }

// paletteColor is the readable colour n in variant v, when readableTheme
// changes it.
func paletteColor(n fyne.ThemeColorName, v fyne.ThemeVariant) (color.NRGBA, bool) {
	light := v == theme.VariantLight
	pick := func(dark, lightC color.NRGBA) (color.NRGBA, bool) {
		if light {
			return lightC, true
		}
		return dark, true
	}
	switch n {
	case theme.ColorNameForeground:
		return pick(rgb(0xf3f3f3), rgb(0x1d1d1f))
	case theme.ColorNameDisabled: // also LowImportance text: dimmer, still readable
		return pick(rgb(0x9e9ea2), rgb(0x5f5f63))
	case theme.ColorNamePlaceHolder:
		return pick(rgb(0x9a9a9e), rgb(0x626266))
	case theme.ColorNamePrimary:
		return pick(rgb(0x5c96ff), rgb(0x1757c4))
	case theme.ColorNameHyperlink:
		return pick(rgb(0x7aaaff), rgb(0x1452c0))
	case theme.ColorNameSuccess:
		return pick(rgb(0x4cd964), rgb(0x146b25))
	case theme.ColorNameWarning:
		return pick(rgb(0xffa726), rgb(0x9a5200))
	case theme.ColorNameError:
		return pick(rgb(0xff6b60), rgb(0xc0261f))
	case theme.ColorNameForegroundOnPrimary, theme.ColorNameForegroundOnSuccess,
		theme.ColorNameForegroundOnWarning, theme.ColorNameForegroundOnError:
		return pick(rgb(0x101012), rgb(0xffffff))
	case theme.ColorNameSelection: // under selected text: a quiet blue
		return pick(color.NRGBA{R: 0x3a, G: 0x5a, B: 0x99, A: 0x44}, color.NRGBA{R: 0x1a, G: 0x5f, B: 0xd6, A: 0x1c})
	}
	return color.NRGBA{}, false
}

// rgb is an opaque colour from 0xRRGGBB.
func rgb(v uint32) color.NRGBA {
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// Color returns the readable colour where the palette has one, else Fyne's.
func (t readableTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if v != theme.VariantLight {
		v = theme.VariantDark
	}
	if c, ok := paletteColor(n, v); ok {
		return c
	}
	return t.Theme.Color(n, v)
}

// luminance is the WCAG relative luminance of an opaque colour.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// contrast is the WCAG contrast ratio of two opaque colours, 1 to 21.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// over blends c, with its alpha scaled by alpha/255, over the opaque bg, as
// the box widget paints a tinted panel.
func over(c color.Color, alpha uint8, bg color.Color) color.NRGBA {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	b := color.NRGBAModel.Convert(bg).(color.NRGBA)
	a := float64(n.A) / 255 * float64(alpha) / 255
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*a + float64(y)*(1-a))) }
	return color.NRGBA{mix(n.R, b.R), mix(n.G, b.G), mix(n.B, b.B), 0xff}
}
