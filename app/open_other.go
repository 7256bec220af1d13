//go:build !linux

package app

import (
	"net/url"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
)

// openFile opens path with the system's opener, through the toolkit.
func openFile(path string) error {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/… becomes file:///C:/…
	}
	return fyne.CurrentApp().OpenURL(&url.URL{Scheme: "file", Path: p})
}
