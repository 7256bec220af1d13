package app

import (
	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"deskpilot/assets"
)

// ID is deskpilot's application ID (FyneApp.toml); Fyne keys preferences and
// storage by it.
const ID = "io.github.deskpilot"

// NewFyneApp creates the Fyne application for main. Built with plain `go build`
// (not the fyne tool), it sets the metadata of FyneApp.toml itself, including the
// fyneDo migration, so both builds behave the same.
func NewFyneApp() fyne.App {
	a := fyneapp.NewWithID(ID)
	if a.Metadata().Name == "" {
		fyneapp.SetMetadata(fyne.AppMetadata{
			ID: ID, Name: Title, Version: "0.1.0", Build: 1, Icon: icon(),
			Migrations: map[string]bool{"fyneDo": true},
		})
	}
	a.SetIcon(icon())
	return a
}

// icon is the app icon as a Fyne resource.
func icon() fyne.Resource {
	return fyne.NewStaticResource("deskpilot.png", assets.IconPNG())
}
