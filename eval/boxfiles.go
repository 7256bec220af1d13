//go:build linux

package eval

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
)

// Where the box's stand-ins and system-wide settings are inside it.
const (
	boxTools = boxRun + "/bin" // on PATH after ~/.local/bin, before the system's
	boxXDG   = boxRun + "/xdg" // first of XDG_CONFIG_DIRS
)

// sudoSource is the box's sudo (box_sudo.py): the box has no root, so it
// checks OSWorld's password, does an install of what is installed already,
// fails clearly for anything else that needs root, and runs the rest as the
// box's user.
//
//go:embed box_sudo.py
var sudoSource string

// terminalSource is the box's gnome-terminal (box_terminal.sh): it starts
// GNOME Terminal's server in the box, where D-Bus activation would start it
// outside, then runs the real client.
//
//go:embed box_terminal.sh
var terminalSource string

// snapshotVideoTypes are the video types OSWorld's default_video_player
// getter asks xdg-mime about.
var snapshotVideoTypes = []string{"3gp", "3gpp", "3gpp2", "avi", "divx", "dv", "fli", "flv", "mp2t", "mp4",
	"mp4v-es", "mpeg", "mpeg-system", "msvideo", "ogg", "quicktime", "vnd.divx", "vnd.mpegurl",
	"vnd.rn-realvideo", "webm", "x-anim", "x-avi", "x-flc", "x-fli", "x-flv", "x-m4v", "x-matroska",
	"x-mpeg", "x-mpeg-system", "x-mpeg2", "x-ms-asf", "x-ms-asf-plugin", "x-ms-asx", "x-ms-wm", "x-ms-wmv",
	"x-ms-wmx", "x-ms-wvx", "x-msvideo", "x-nsv", "x-ogm", "x-ogm+ogg", "x-theora", "x-theora+ogg"}

// snapshotMimeapps is the system-wide default video player of OSWorld's
// Ubuntu snapshot: GNOME Videos (Totem), as Ubuntu's GNOME defaults list it.
// On Debian with VLC alone, VLC was the default, and multi_apps/937087b6
// ("set the default video player as VLC") passed with nothing done. xdg-mime
// uses an entry only when its desktop file is installed (the Makefile
// installs totem).
func snapshotMimeapps() string {
	var b strings.Builder
	b.WriteString("[Default Applications]\n")
	for _, t := range snapshotVideoTypes {
		b.WriteString("video/" + t + "=org.gnome.Totem.desktop\n")
	}
	return b.String()
}

// writeBoxFiles writes, under the box's own files (host side), what is
// bound at boxTools and boxXDG.
func writeBoxFiles(files string) error {
	for name, f := range map[string]struct {
		data string
		mode os.FileMode
	}{
		"bin/sudo":           {sudoSource, 0o755},
		"bin/gnome-terminal": {terminalSource, 0o755},
		"xdg/mimeapps.list":  {snapshotMimeapps(), 0o644},
	} {
		p := filepath.Join(files, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.data), f.mode); err != nil {
			return err
		}
	}
	return nil
}
