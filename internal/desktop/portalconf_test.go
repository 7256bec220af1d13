//go:build linux

package desktop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// portalTree writes .portal files and portals.conf files under a temp dir.
func portalTree(t *testing.T, impls map[string]string, confs map[string]string) PortalDirs {
	t.Helper()
	root := t.TempDir()
	d := PortalDirs{Impls: filepath.Join(root, "portals"), Config: []string{filepath.Join(root, "user"), filepath.Join(root, "system")}}
	for _, dir := range append([]string{d.Impls}, d.Config...) {
		os.MkdirAll(dir, 0o755)
	}
	for name, ifaces := range impls {
		body := "[portal]\nDBusName=org.freedesktop.impl.portal.desktop." + name + "\nInterfaces=" + ifaces + "\nUseIn=gnome\n"
		os.WriteFile(filepath.Join(d.Impls, name+".portal"), []byte(body), 0o644)
	}
	for rel, body := range confs {
		os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644)
	}
	return d
}

const (
	gnomeIfaces = "org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.ScreenCast;org.freedesktop.impl.portal.RemoteDesktop;"
	gtkIfaces   = "org.freedesktop.impl.portal.FileChooser;org.freedesktop.impl.portal.Settings;"
)

func TestPortalConfUseIn(t *testing.T) {
	d := portalTree(t, map[string]string{"gnome": gnomeIfaces, "gtk": gtkIfaces}, nil)
	pc := FindPortalConfig(d, "GNOME")
	if pc.Conf != "" || pc.Chosen["RemoteDesktop"] != "gnome" || pc.Chosen["ScreenCast"] != "gnome" {
		t.Errorf("%+v", pc)
	}
	for _, f := range portalConfFindings(pc, "1.18.0", "portal") {
		if !f.OK && !f.Note {
			t.Errorf("unexpected failure: %+v", f)
		}
	}
}

func TestPortalConfBackendWithoutRemoteDesktopWins(t *testing.T) {
	d := portalTree(t, map[string]string{"gnome": gnomeIfaces, "gtk": gtkIfaces},
		map[string]string{"user/portals.conf": "[preferred]\ndefault=gtk\n"})
	pc := FindPortalConfig(d, "GNOME")
	if pc.Chosen["RemoteDesktop"] != "" {
		t.Fatalf("RemoteDesktop served by %q with default=gtk", pc.Chosen["RemoteDesktop"])
	}
	var fix string
	for _, f := range portalConfFindings(pc, "1.18.0", "portal") {
		if !f.OK && strings.HasPrefix(f.Detail, "RemoteDesktop") {
			fix = f.Fix
		}
	}
	if !strings.Contains(fix, "org.freedesktop.impl.portal.RemoteDesktop=gnome") || !strings.Contains(fix, pc.Conf) {
		t.Errorf("fix %q", fix)
	}
	// Naming the interface explicitly fixes it.
	os.WriteFile(pc.Conf, []byte("[preferred]\ndefault=gtk\norg.freedesktop.impl.portal.RemoteDesktop=gnome\n"), 0o644)
	if pc := FindPortalConfig(d, "GNOME"); pc.Chosen["RemoteDesktop"] != "gnome" {
		t.Errorf("after the fix: %+v", pc.Chosen)
	}
}

func TestPortalConfUnreadableIsReported(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	d := portalTree(t, map[string]string{"gnome": gnomeIfaces, "gtk": gtkIfaces},
		map[string]string{"user/portals.conf": "[preferred]\ndefault=gnome\n", "system/portals.conf": "[preferred]\ndefault=gtk\n"})
	user := filepath.Join(d.Config[0], "portals.conf")
	// Another user's 0600 file (root's, as `sudo tee` leaves it, seen by the
	// user's portal; here uid 12345's, seen by this root process): skipped.
	os.Chmod(user, 0o600)
	os.Chown(user, 12345, 12345)
	pc := FindPortalConfig(d, "GNOME")
	if len(pc.Ignored) != 1 || pc.Ignored[0] != user || pc.Conf != filepath.Join(d.Config[1], "portals.conf") {
		t.Fatalf("%+v", pc)
	}
	var fix string
	for _, f := range portalConfFindings(pc, "1.18.0", "portal") {
		if !f.OK && strings.Contains(f.Detail, user) {
			fix = f.Fix
		}
	}
	if fix != "chmod 644 "+user {
		t.Errorf("fix %q", fix)
	}
}

func TestPortalConfOldPortalIgnoresConf(t *testing.T) {
	d := portalTree(t, map[string]string{"gnome": gnomeIfaces}, map[string]string{"user/portals.conf": "[preferred]\ndefault=gnome\n"})
	var said bool
	for _, f := range portalConfFindings(FindPortalConfig(d, "GNOME"), "1.16.0", "portal") {
		said = said || strings.Contains(f.Detail, "does not read portals.conf")
	}
	if !said {
		t.Error("the note that xdg-desktop-portal 1.16 ignores portals.conf is missing")
	}
}
