// Package clocale keeps Fyne from logging an error on every start under the
// POSIX locale with a charset ("C.UTF-8", the default of containers and CI).
//
// fyne.io/fyne/v2/lang reads the user's locale while it is initialised, turns
// "C.UTF-8" into the language tag "C", fails to parse it, and logs "Fyne error:
// Error parsing user locale C" — on every deskpilot command, even those that never
// open a window. Under a C locale, messages are English; saying so in LANGUAGE
// (which only gettext message catalogues read) makes Fyne pick English quietly.
//
// This is the one package of deskpilot that does work in init, because it must run
// before Fyne's init: main imports it for that effect alone. Go initialises packages
// in import-path order once their own imports are ready; this one needs only os and
// strings, and "deskpilot/..." sorts before "fyne.io/...", so it always runs first.
package clocale

import (
	"os"
	"strings"
)

func init() { apply(os.Getenv, os.Setenv) }

// apply sets LANGUAGE=en when the effective message locale is C or POSIX with a
// charset and LANGUAGE is unset.
func apply(getenv func(string) string, setenv func(string, string) error) {
	if getenv("LANGUAGE") != "" {
		return
	}
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "C.") || strings.HasPrefix(v, "POSIX.") {
			_ = setenv("LANGUAGE", "en")
		}
		return
	}
}
