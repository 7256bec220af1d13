//go:build linux

package eval

import (
	"os"
	"path/filepath"
	"strings"
)

// appAliases are programs OSWorld's VM has under another name than Debian:
// Google Chrome is Chromium here, python is python3.
var appAliases = map[string]string{"google-chrome": "chromium", "python": "python3"}

// chromeShim runs Chromium as OSWorld's tasks start google-chrome: with the
// profile where OSWorld's getters read it (~/.config/google-chrome), without
// the first-run and default-browser prompts the VM snapshot has dismissed, the
// password store in the profile (no keyring in a task), and no sandbox of its
// own (the task's box is the sandbox; Chromium's needs privileges a box has
// not). --test-type hides the banner --no-sandbox would show.
const chromeShim = `#!/bin/sh
exec chromium --user-data-dir="$HOME/.config/google-chrome" --no-first-run --no-default-browser-check \
  --password-store=basic --disable-dev-shm-usage --no-sandbox --test-type "$@"
`

const pythonShim = `#!/bin/sh
exec python3 "$@"
`

// pkillShim is pkill where Chromium stands in for Google Chrome: OSWorld's
// tasks end Chrome with "pkill chrome" (so that it writes its profile before
// the check reads it, and a relaunch starts afresh), which matches Chrome's
// processes on their VM but not Chromium's, named chromium. The pattern
// "chrome" given alone matches both here; every other pattern, and every
// option, go to pkill as they are.
const pkillShim = `#!/bin/sh
for a; do
  shift
  if [ "$a" = chrome ]; then set -- "$@" 'chrome|chromium'; else set -- "$@" "$a"; fi
done
exec /usr/bin/pkill "$@"
`

// prepareApps puts, in the task's ~/.local/bin (first on its PATH, in the box
// and in the agent's environment), the programs of appAliases the box lacks
// under OSWorld's name but has under Debian's, and with Chromium as
// google-chrome, pkillShim.
func (b *box) prepareApps() error {
	bin := filepath.Join(b.home, ".local", "bin")
	aliased := func(name string) bool { return !boxHas(name) && boxHas(appAliases[name]) }
	shims := []struct {
		name, script string
		needed       bool
	}{
		{"google-chrome", chromeShim, aliased("google-chrome")},
		{"python", pythonShim, aliased("python")},
		{"pkill", pkillShim, aliased("google-chrome") && isExecutable("/usr/bin/pkill")},
	}
	made := false
	for _, s := range shims {
		if !s.needed {
			continue
		}
		if err := os.MkdirAll(bin, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(bin, s.name), []byte(s.script), 0o755); err != nil {
			return err
		}
		made = true
	}
	if made {
		path, _ := b.lookup("PATH")
		b.env = setEnv(b.env, "PATH="+strings.TrimSuffix(bin+":"+path, ":"))
	}
	return nil
}

// boxSystemPath is the box's PATH after the task's ~/.local/bin.
var boxSystemPath = []string{"/usr/local/bin", "/usr/bin", "/bin"}

// isExecutable reports whether path is an executable regular file.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// boxHas reports whether the box finds the program name on its PATH (the
// machine's system folders, which the box shares read-only).
func boxHas(name string) bool {
	for _, dir := range boxSystemPath {
		if isExecutable(filepath.Join(dir, name)) {
			return true
		}
	}
	return false
}
