//go:build linux

package eval

import (
	"os"
	"path/filepath"
)

// defaultInputs is the cache used without Options.Inputs: the user's cache
// folder, downloading what is missing.
func defaultInputs() (*Inputs, error) {
	dir, err := DefaultInputsDir()
	if err != nil {
		return nil, err
	}
	return &Inputs{Dir: dir}, nil
}

// preflight says why t cannot run here, before a display is started for it:
// a step that cannot be done here (*UnsupportedError), an input the offline
// cache lacks (*NotCachedError, the first one), or a program the task starts
// that is not installed (*NotInstalledError). nil means go.
func (h *harness) preflight(t *Task) error {
	if t.os == nil {
		return nil
	}
	steps := append(append([]step{}, t.os.config...), t.os.eval.post...)
	for _, s := range steps {
		if s.cannot != "" {
			return &UnsupportedError{What: "config step", Name: s.kind + ": " + s.cannot}
		}
	}
	for _, s := range steps {
		if s.kind != "launch" && s.kind != "execute" && s.kind != "command" || s.cmd.shell {
			continue
		}
		if app := s.cmd.args[0]; !appInstalled(app) {
			return &NotInstalledError{App: filepath.Base(app)}
		}
	}
	if h.inputs.Offline {
		for _, u := range t.URLs() {
			if !h.inputs.Cached(u) {
				return &NotCachedError{URL: u}
			}
		}
	}
	return nil
}

// appInstalled reports whether a task's program is in the task's box: on the
// box's PATH (this machine's system folders), or one of the names
// prepareApps provides (google-chrome for Chromium, python for python3).
func appInstalled(name string) bool {
	if filepath.IsAbs(name) {
		fi, err := os.Stat(name)
		return err == nil && !fi.IsDir()
	}
	if boxHas(name) {
		return true
	}
	if alias, ok := appAliases[name]; ok {
		return boxHas(alias)
	}
	return false
}
