package app

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// surface is what text is drawn on: a theme colour, or a tinted panel (box)
// of a colour at an alpha over the window background.
type surface struct {
	name  string
	fill  fyne.ThemeColorName
	tint  fyne.ThemeColorName // "" = fill is opaque
	alpha uint8
}

func (s surface) color(th fyne.Theme, v fyne.ThemeVariant) color.Color {
	bg := th.Color(s.fill, v)
	if s.tint == "" {
		return bg
	}
	return over(th.Color(s.tint, v), s.alpha, bg)
}

// textUse is a text colour and every surface the app draws it on.
type textUse struct {
	text fyne.ThemeColorName
	on   []surface
}

// appTextUses lists the text colours the app uses and where: labels of every
// importance on the window, dialogs, menus and the tinted panels (banner,
// result, failed steps, guidance, strip); code colours on the code panel;
// entries and placeholders; button labels on their fills.
func appTextUses() []textUse {
	bg := surface{name: "background", fill: theme.ColorNameBackground}
	panels := []surface{bg,
		{name: "dialog", fill: theme.ColorNameOverlayBackground},
		{name: "menu", fill: theme.ColorNameMenuBackground},
		{name: "live panel", fill: theme.ColorNameInputBackground},
		{name: "warning panel", fill: theme.ColorNameBackground, tint: theme.ColorNameWarning, alpha: 40},
		{name: "error panel", fill: theme.ColorNameBackground, tint: theme.ColorNameError, alpha: 40},
		{name: "failed step", fill: theme.ColorNameBackground, tint: theme.ColorNameError, alpha: 22},
		{name: "success panel", fill: theme.ColorNameBackground, tint: theme.ColorNameSuccess, alpha: 40},
		{name: "guidance panel", fill: theme.ColorNameBackground, tint: theme.ColorNamePrimary, alpha: 40},
	}
	code := []surface{{name: "code panel", fill: theme.ColorNameInputBackground},
		{name: "selection", fill: theme.ColorNameInputBackground, tint: theme.ColorNameSelection, alpha: 255}}
	var uses []textUse
	for _, n := range []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameDisabled,
		theme.ColorNamePrimary, theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNameError,
		theme.ColorNameHyperlink} {
		uses = append(uses, textUse{n, panels})
	}
	for _, n := range []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNamePrimary,
		theme.ColorNameSuccess, theme.ColorNameWarning, theme.ColorNamePlaceHolder, theme.ColorNameDisabled} {
		uses = append(uses, textUse{n, code})
	}
	return append(uses,
		textUse{theme.ColorNameForeground, []surface{{name: "button", fill: theme.ColorNameButton},
			{name: "hovered button", fill: theme.ColorNameButton, tint: theme.ColorNameHover, alpha: 255}}},
		textUse{theme.ColorNameDisabled, []surface{{name: "disabled button", fill: theme.ColorNameDisabledButton}}},
		textUse{theme.ColorNameForegroundOnPrimary, []surface{{name: "primary button", fill: theme.ColorNamePrimary}}},
		textUse{theme.ColorNameForegroundOnError, []surface{{name: "danger button", fill: theme.ColorNameError}}},
		textUse{theme.ColorNameForegroundOnWarning, []surface{{name: "warning button", fill: theme.ColorNameWarning}}},
		textUse{theme.ColorNameForegroundOnSuccess, []surface{{name: "success button", fill: theme.ColorNameSuccess}}},
	)
}

// TestTextContrast computes the contrast of every text colour on every
// surface it is drawn on, in both variants, from the theme the app sets.
func TestTextContrast(t *testing.T) {
	th := newHarness(t).app.Settings().Theme()
	for _, v := range []struct {
		name    string
		variant fyne.ThemeVariant
	}{{"dark", theme.VariantDark}, {"light", theme.VariantLight}} {
		t.Run(v.name, func(t *testing.T) {
			for _, u := range appTextUses() {
				fg := th.Color(u.text, v.variant)
				for _, s := range u.on {
					if r := contrast(fg, s.color(th, v.variant)); r < 4.5 {
						t.Errorf("%s text on %s: %.2f:1, want at least 4.5:1", u.text, s.name, r)
					}
				}
			}
		})
	}
}

// TestPlaceholderLooksLikeOne: a placeholder is readable but clearly dimmer
// than typed text, so an example is not taken for a value.
func TestPlaceholderLooksLikeOne(t *testing.T) {
	th := newHarness(t).app.Settings().Theme()
	for _, v := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		in := th.Color(theme.ColorNameInputBackground, v)
		text, ph := contrast(th.Color(theme.ColorNameForeground, v), in), contrast(th.Color(theme.ColorNamePlaceHolder, v), in)
		if text/ph < 1.8 {
			t.Errorf("variant %v: typed text %.2f:1, placeholder %.2f:1; the placeholder should be clearly dimmer", v, text, ph)
		}
	}
}

func TestContrastFormula(t *testing.T) {
	tests := []struct {
		name string
		a, b color.Color
		want float64
	}{
		{"black on white", color.Black, color.White, 21},
		{"same", rgb(0x777777), rgb(0x777777), 1},
		{"grey on white", rgb(0x767676), color.White, 4.54}, // the usual AA threshold grey
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contrast(tt.a, tt.b); got < tt.want-0.01 || got > tt.want+0.01 {
				t.Errorf("contrast = %.3f, want %.2f", got, tt.want)
			}
		})
	}
}
