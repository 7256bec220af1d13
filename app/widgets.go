package app

import (
	"deskpilot/actions"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// box is a rounded panel behind content, coloured from the theme so it follows
// light and dark variants. fill is the colour name; alpha (0–255) how strongly it
// shows; stroke draws an outline in the full colour.
type box struct {
	widget.BaseWidget
	fill    fyne.ThemeColorName
	alpha   uint8
	stroke  bool
	content fyne.CanvasObject
}

func newBox(fill fyne.ThemeColorName, alpha uint8, stroke bool, content fyne.CanvasObject) *box {
	b := &box{fill: fill, alpha: alpha, stroke: stroke, content: content}
	b.ExtendBaseWidget(b)
	return b
}

// setFill changes the colour of the panel.
func (b *box) setFill(fill fyne.ThemeColorName, alpha uint8, stroke bool) {
	if b.fill == fill && b.alpha == alpha && b.stroke == stroke {
		return
	}
	b.fill, b.alpha, b.stroke = fill, alpha, stroke
	b.Refresh()
}

// CreateRenderer draws the panel and its content.
func (b *box) CreateRenderer() fyne.WidgetRenderer {
	r := &boxRenderer{b: b, rect: canvas.NewRectangle(color.Transparent)}
	r.rect.CornerRadius = theme.Size(theme.SizeNameInputRadius)
	r.Refresh()
	return r
}

type boxRenderer struct {
	b    *box
	rect *canvas.Rectangle
}

func (r *boxRenderer) Layout(s fyne.Size) {
	r.rect.Resize(s)
	r.b.content.Resize(s)
	r.b.content.Move(fyne.Position{})
}

func (r *boxRenderer) MinSize() fyne.Size { return r.b.content.MinSize() }

func (r *boxRenderer) Refresh() {
	th := r.b.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	c := color.NRGBAModel.Convert(th.Color(r.b.fill, v)).(color.NRGBA)
	full := c
	c.A = uint8(int(c.A) * int(r.b.alpha) / 255)
	r.rect.FillColor = c
	r.rect.StrokeWidth = 0
	if r.b.stroke {
		r.rect.StrokeColor = full
		r.rect.StrokeWidth = 1.5
	}
	r.rect.Refresh()
	r.b.content.Refresh()
}

func (r *boxRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.rect, r.b.content} }

func (r *boxRenderer) Destroy() {}

// tinted puts content on a soft panel of the named colour with an outline.
func tinted(name fyne.ThemeColorName, content fyne.CanvasObject) *box {
	return newBox(name, 40, true, content)
}

// panelBackground is the quiet background of the live view.
func panelBackground() fyne.CanvasObject {
	return newBox(theme.ColorNameInputBackground, 255, false, canvas.NewRectangle(color.Transparent))
}

// tightTheme is the current theme with less padding, for dense lists (actions).
type tightTheme struct{}

func (tightTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return appTheme().Color(n, v)
}
func (tightTheme) Font(s fyne.TextStyle) fyne.Resource     { return appTheme().Font(s) }
func (tightTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return appTheme().Icon(n) }
func (tightTheme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case theme.SizeNameInnerPadding:
		return 2
	case theme.SizeNamePadding:
		return 1
	}
	return appTheme().Size(n)
}

// appTheme is the app's theme (theme.Current would return the override itself).
func appTheme() fyne.Theme { return fyne.CurrentApp().Settings().Theme() }

// tight shows o with less padding, indented so its text lines up with normal labels.
func tight(o fyne.CanvasObject) fyne.CanvasObject {
	indent := appTheme().Size(theme.SizeNameInnerPadding) - tightTheme{}.Size(theme.SizeNameInnerPadding)
	return container.New(layout.NewCustomPaddedLayout(0, 0, indent, 0), container.NewThemeOverride(o, tightTheme{}))
}

// formLabel is a right-aligned bold form label at least width wide, so forms in
// different sections line up.
func formLabel(text string, width float32) fyne.CanvasObject {
	l := widget.NewLabelWithStyle(text, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	return container.New(&minWidth{width: width}, l)
}

// keyedLabel is formLabel with the setting's config key under the name, small
// and monospaced, so the window and the config file read alike.
func keyedLabel(name, key string, width float32) fyne.CanvasObject {
	l := widget.NewLabelWithStyle(name, fyne.TextAlignTrailing, fyne.TextStyle{Bold: true})
	k := widget.NewLabelWithStyle(key, fyne.TextAlignTrailing, fyne.TextStyle{})
	k.SizeName, k.Importance = theme.SizeNameCaptionText, widget.LowImportance
	return container.New(&minWidth{width: width}, container.New(layout.NewCustomPaddedVBoxLayout(-14), l, k))
}

// minWidth stacks its objects and is at least width wide.
type minWidth struct{ width float32 }

func (l *minWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Resize(size)
		o.Move(fyne.Position{})
	}
}

func (l *minWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	s := fyne.NewSize(l.width, 0)
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}

// heading is a section title.
func heading(s string) *widget.Label {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameSubHeadingText
	return l
}

// caption is a small upper-case label over a part of a card, with little padding.
func caption(s string) fyne.CanvasObject {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameCaptionText
	l.Importance = widget.LowImportance
	return container.New(layout.NewCustomPaddedLayout(4, 0, 0, 0), tight(l))
}

// showOutcome shows s on l in the success colour, or in the error colour
// when bad: the result of saving settings, a secret, a connection test.
func showOutcome(l *widget.Label, s string, bad bool) {
	l.SetText(s)
	l.Importance = widget.SuccessImportance
	if bad {
		l.Importance = widget.DangerImportance
	}
	l.Refresh()
	l.Show()
}

// actionLabel is one executed primitive; failed ones show in the error colour.
func actionLabel(a actions.Record) *widget.Label {
	l := widget.NewLabelWithStyle(actionText(a), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Wrapping = fyne.TextWrapWord
	if a.Error != "" {
		l.Importance = widget.DangerImportance
	}
	return l
}

// codeView shows Starlark code, coloured, on a code panel; long lines wrap.
type codeView struct {
	block   *codeBlock
	content *box
}

func newCodeView(grown func()) *codeView {
	b := newCodeBlock(grown)
	return &codeView{block: b, content: newBox(theme.ColorNameInputBackground, 255, false, b)}
}

// setCode replaces the code shown.
func (c *codeView) setCode(src string) { c.block.SetCode(src) }

// settle lays o's subtree out again, top down, with the children's current minimum
// sizes. Fyne re-lays a container out only when its size changes or when its
// minimum size change is noticed while painting, and it can miss the latter when
// several parts of a card change at once (wrapped text grows after its first
// layout), leaving parts drawn over each other; settle puts them right.
func settle(o fyne.CanvasObject) {
	switch c := o.(type) {
	case *fyne.Container:
		if c.Layout != nil {
			c.Layout.Layout(c.Objects, c.Size())
		}
		for _, ch := range c.Objects {
			if ch.Visible() {
				settle(ch)
			}
		}
	case *box:
		c.content.Resize(c.Size())
		settle(c.content)
	}
	// A ThemeOverride is left alone: its layouts need the overriding theme, which
	// Fyne only applies while it walks the tree itself.
}

// growTo resizes the content of a vertical scroll to fit its minimum height (at the
// scroll's width), settles it and refreshes the scroll bars.
func growTo(s *container.Scroll) {
	min := s.Content.MinSize()
	s.Content.Resize(fyne.NewSize(max(min.Width, s.Size().Width), max(min.Height, s.Size().Height)))
	settle(s.Content)
}
