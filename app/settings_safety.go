package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"deskpilot/agent/dialect"
)

// groundingFields and safetyFields are the settings of what the observation
// adds to the screenshot and of what the agent may do unasked. Each field's
// label ends with its config key, so the file and the window read alike.
type groundingFields struct {
	a11y, ocr, marks      *widget.Check
	grounder, grounderURL *widget.Entry
	grounderDialect       *widget.Select
	box                   *fyne.Container
}

type safetyFields struct {
	confirm                        map[string]*widget.Check
	allow, deny, denyApps, folders *widget.Entry
	private                        *widget.Check
	box                            *fyne.Container
}

// confirmDoc says what each confirmation entry asks about.
var confirmDoc = map[string]string{
	"launch":          "launch: every program started",
	"open_url":        "open_url: every page opened in the desktop browser",
	"close_combos":    "close_combos: keys that close windows or end the session",
	"send_after_read": "send_after_read: sending to a new domain after reading a home file",
}

func newGroundingFields(grid func([][2]any) *fyne.Container) *groundingFields {
	g := &groundingFields{
		a11y:  widget.NewCheck("a11y: the visible accessible elements, as a table", nil),
		ocr:   widget.NewCheck("ocr: the text lines read on the screen", nil),
		marks: widget.NewCheck("Number the controls on each screenshot, for click_mark(n)", nil),
	}
	g.grounder = widget.NewEntry()
	g.grounder.SetPlaceHolder("finds elements described in words, e.g. UI-TARS-1.5-7B")
	g.grounderURL = widget.NewEntry()
	g.grounderURL.SetPlaceHolder("its endpoint (empty: the Base URL above)")
	g.grounderDialect = widget.NewSelect(append([]string{autoDialect}, dialect.GrounderNames()...), nil)
	g.box = grid([][2]any{
		{"Observe (observe)", container.NewVBox(g.a11y, g.ocr)},
		{"Marks (marks)", g.marks},
		{"Grounder (grounder.model)", g.grounder},
		{"Grounder URL (grounder.base_url)", g.grounderURL},
		{"Grounder dialect (grounder.dialect)", g.grounderDialect},
	})
	return g
}

func (g *groundingFields) set(f settingsForm) {
	g.a11y.SetChecked(f.ObserveA11y)
	g.ocr.SetChecked(f.ObserveOCR)
	g.marks.SetChecked(f.Marks)
	g.grounder.SetText(f.GrounderModel)
	g.grounderURL.SetText(f.GrounderBaseURL)
	g.grounderDialect.SetSelected(f.GrounderDialect)
}

func (g *groundingFields) read(f *settingsForm) {
	f.ObserveA11y, f.ObserveOCR, f.Marks = g.a11y.Checked, g.ocr.Checked, g.marks.Checked
	f.GrounderModel, f.GrounderBaseURL, f.GrounderDialect = g.grounder.Text, g.grounderURL.Text, g.grounderDialect.Selected
}

func newSafetyFields(grid func([][2]any) *fyne.Container) *safetyFields {
	s := &safetyFields{confirm: map[string]*widget.Check{}}
	checks := container.NewVBox()
	for _, r := range confirmRisks {
		c := widget.NewCheck(confirmDoc[r], nil)
		s.confirm[r] = c
		checks.Add(c)
	}
	list := func(ph string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(ph)
		return e
	}
	s.allow = list("e.g. example.com, wikipedia.org (empty: any domain)")
	s.deny = list("e.g. facebook.com")
	s.denyApps = list("e.g. rm, gnome-terminal")
	s.folders = list("e.g. /srv/reports (besides the home and downloads)")
	s.private = widget.NewCheck("visit_page may reach private and loopback addresses", nil)
	s.box = grid([][2]any{
		{"Ask before (confirm)", checks},
		{"Only domains (allow_domains)", s.allow},
		{"Never domains (deny_domains)", s.deny},
		{"Never launch (deny_apps)", s.denyApps},
		{"Local pages (browser_allow_private)", s.private},
		{"More folders (inspect_folders)", s.folders},
	})
	return s
}

func (s *safetyFields) set(f settingsForm) {
	for r, c := range s.confirm {
		c.SetChecked(f.Confirm[r])
	}
	s.allow.SetText(f.AllowDomains)
	s.deny.SetText(f.DenyDomains)
	s.denyApps.SetText(f.DenyApps)
	s.folders.SetText(f.InspectDirs)
	s.private.SetChecked(f.AllowPrivate)
}

func (s *safetyFields) read(f *settingsForm) {
	f.Confirm = map[string]bool{}
	for r, c := range s.confirm {
		f.Confirm[r] = c.Checked
	}
	f.AllowDomains, f.DenyDomains, f.DenyApps, f.InspectDirs = s.allow.Text, s.deny.Text, s.denyApps.Text, s.folders.Text
	f.AllowPrivate = s.private.Checked
}
