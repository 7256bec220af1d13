//go:build linux

package eval

import (
	_ "embed"
	"os"
	"path/filepath"
)

// The settings files of OSWorld's VM snapshot that its tasks' checks read,
// made by the real apps (snapshot/):
//
//   - vlcrc is what VLC 3.0 writes (vlc --reset-config, as the box's user)
//     once its first-run privacy dialog has been answered (qt-privacy-ask=0),
//     cut to the [qt] section and the [core] keys OSWorld's VLC checks read
//     (input-record-path, one-instance-when-started-from-file,
//     global-key-play-pause), every value VLC's default, commented as VLC
//     writes defaults. Without it VLC shows its privacy dialog and writes no
//     vlcrc until it is answered, and vlc_config found no file: a check
//     error, where OSWorld's snapshot gives a plain failure.
//   - registrymodifications.xcu is what LibreOffice 7.4 writes in a new
//     profile (soffice --headless --terminate_after_init): without it, a
//     check that runs before LibreOffice has written its profile found no
//     file.
//   - chrome-Preferences is the Preferences of a Chrome profile that was
//     used and closed: the keys of a new Chromium 156 profile that no check
//     reads (its languages) and a clean exit (no "Restore pages?" bubble).
//     The snapshot's browser has a profile, so tasks edit its Preferences in
//     their setup (chrome/3299584d adds start-up pages with jq: in a fresh
//     home without the file the edit did nothing, and the check, which takes
//     no "session" key for the default start-up, passed once Chromium had
//     written its own file).
var (
	//go:embed snapshot/vlcrc
	snapshotVLCRC []byte
	//go:embed snapshot/registrymodifications.xcu
	snapshotLibreOffice []byte
	//go:embed snapshot/chrome-Preferences
	snapshotChrome []byte
)

// snapshotFolders are the folders of the snapshot's home (xdg-user-dirs').
var snapshotFolders = []string{"Desktop", "Documents", "Downloads", "Music", "Pictures", "Public", "Templates", "Videos"}

// prepareDesktop makes in a fresh home the state OSWorld's VM snapshot has
// where a task's check reads it: the screen lock is off (the snapshot's
// GNOME has lock-enabled false; GSettings' default is true, with which
// os/a4d98375 passed without the agent doing anything), the folders of an
// Ubuntu home are there (tasks write into ~/Desktop without making it), and
// VLC, LibreOffice and Chrome have their settings files. (The default video player
// is system-wide: boxfiles.go.)
func prepareDesktop(home string) error {
	for _, d := range snapshotFolders {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			return err
		}
	}
	for name, data := range map[string][]byte{
		".config/glib-2.0/settings/keyfile":                    []byte("[org/gnome/desktop/screensaver]\nlock-enabled=false\n"),
		".config/vlc/vlcrc":                                    snapshotVLCRC,
		".config/libreoffice/4/user/registrymodifications.xcu": snapshotLibreOffice,
		".config/google-chrome/Default/Preferences":            snapshotChrome,
	} {
		p := filepath.Join(home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
