package desktop

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// PortalImpl is one xdg-desktop-portal implementation (a .portal file).
type PortalImpl struct {
	Name       string   // "gnome", from gnome.portal
	Interfaces []string // "org.freedesktop.impl.portal.RemoteDesktop", ...
	UseIn      []string // desktops it serves when no portals.conf decides
}

// Has reports whether the implementation provides the impl interface
// "org.freedesktop.impl.portal."+short.
func (p PortalImpl) Has(short string) bool {
	return slices.Contains(p.Interfaces, "org.freedesktop.impl.portal."+short)
}

// PortalConfig is what a diagnosis finds about the portal set-up.
type PortalConfig struct {
	Impls []PortalImpl
	// Conf is the portals.conf xdg-desktop-portal reads ("" = none: it
	// falls back to each implementation's UseIn).
	Conf string
	// Ignored are portals.conf files it skips because it cannot read them.
	Ignored []string
	// Chosen maps "RemoteDesktop" and "ScreenCast" to the implementation
	// that serves them ("" = none).
	Chosen map[string]string
}

// PortalDirs are where portal files live, for FindPortalConfig.
type PortalDirs struct {
	Impls  string   // the .portal files: /usr/share/xdg-desktop-portal/portals
	Config []string // portals.conf folders, in the order xdg-desktop-portal searches them
}

// DefaultPortalDirs are the system's folders, from the XDG variables.
func DefaultPortalDirs(getenv func(string) string) PortalDirs {
	home, _ := os.UserHomeDir()
	cfgHome := getenv("XDG_CONFIG_HOME")
	if cfgHome == "" {
		cfgHome = filepath.Join(home, ".config")
	}
	dataHome := getenv("XDG_DATA_HOME")
	if dataHome == "" {
		dataHome = filepath.Join(home, ".local", "share")
	}
	cfgDirs := strings.Split(getenv("XDG_CONFIG_DIRS"), ":")
	if getenv("XDG_CONFIG_DIRS") == "" {
		cfgDirs = []string{"/etc/xdg"}
	}
	dirs := []string{filepath.Join(cfgHome, "xdg-desktop-portal")}
	for _, d := range cfgDirs {
		dirs = append(dirs, filepath.Join(d, "xdg-desktop-portal"))
	}
	dirs = append(dirs, "/etc/xdg-desktop-portal", filepath.Join(dataHome, "xdg-desktop-portal"), "/usr/share/xdg-desktop-portal")
	return PortalDirs{Impls: "/usr/share/xdg-desktop-portal/portals", Config: dirs}
}

// FindPortalConfig reads the implementations and the portals.conf that
// xdg-desktop-portal would use for desktop (XDG_CURRENT_DESKTOP, ":"-separated),
// and works out which implementation serves RemoteDesktop and ScreenCast.
func FindPortalConfig(d PortalDirs, desktop string) PortalConfig {
	var pc PortalConfig
	files, _ := filepath.Glob(filepath.Join(d.Impls, "*.portal"))
	slices.Sort(files)
	for _, f := range files {
		pc.Impls = append(pc.Impls, readPortalFile(f))
	}
	var desks []string
	for _, s := range strings.Split(desktop, ":") {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			desks = append(desks, s)
		}
	}
	var names []string
	for _, s := range desks {
		names = append(names, s+"-portals.conf")
	}
	names = append(names, "portals.conf")
	var prefs map[string][]string
search:
	for _, dir := range d.Config {
		for _, n := range names {
			path := filepath.Join(dir, n)
			st, err := os.Stat(path)
			if err != nil {
				continue
			}
			if !readableByOwnerOfSession(st) {
				pc.Ignored = append(pc.Ignored, path)
				continue
			}
			p, err := readPortalsConf(path)
			if err != nil {
				pc.Ignored = append(pc.Ignored, path)
				continue
			}
			pc.Conf, prefs = path, p
			break search
		}
	}
	pc.Chosen = map[string]string{}
	for _, iface := range []string{"RemoteDesktop", "ScreenCast"} {
		pc.Chosen[iface] = pc.choose(iface, prefs, desks)
	}
	return pc
}

// readableByOwnerOfSession reports whether the user xdg-desktop-portal runs
// as (this process's real user) can read the file: a portals.conf of mode
// 0600 owned by someone else (root, after `sudo tee`) is skipped without a word.
func readableByOwnerOfSession(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	mode := st.Mode().Perm()
	switch {
	case int(sys.Uid) == os.Getuid():
		return mode&0o400 != 0
	case int(sys.Gid) == os.Getgid():
		return mode&0o040 != 0
	}
	return mode&0o004 != 0
}

// choose is the implementation serving iface: portals.conf's entry for it,
// else its default list; without a portals.conf, the first (by name) whose
// UseIn names the desktop. Only one that implements iface counts.
func (pc PortalConfig) choose(iface string, prefs map[string][]string, desks []string) string {
	impl := func(name string) (PortalImpl, bool) {
		for _, p := range pc.Impls {
			if p.Name == name {
				return p, true
			}
		}
		return PortalImpl{}, false
	}
	if prefs != nil {
		list, ok := prefs["org.freedesktop.impl.portal."+iface]
		if !ok {
			list = prefs["default"]
		}
		for _, n := range list {
			if n == "none" {
				return ""
			}
			if n == "*" {
				return pc.chooseByUseIn(iface, desks)
			}
			if p, ok := impl(n); ok && p.Has(iface) {
				return n
			}
		}
		return ""
	}
	return pc.chooseByUseIn(iface, desks)
}

func (pc PortalConfig) chooseByUseIn(iface string, desks []string) string {
	for _, p := range pc.Impls {
		for _, u := range p.UseIn {
			if slices.Contains(desks, strings.ToLower(u)) && p.Has(iface) {
				return p.Name
			}
		}
	}
	return ""
}

func readPortalFile(path string) PortalImpl {
	p := PortalImpl{Name: strings.TrimSuffix(filepath.Base(path), ".portal")}
	f, err := os.Open(path)
	if err != nil {
		return p
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "Interfaces":
			p.Interfaces = splitList(v)
		case "UseIn":
			p.UseIn = splitList(v)
		}
	}
	return p
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// readPortalsConf reads the [preferred] group of a portals.conf.
func readPortalsConf(path string) (map[string][]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	group := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			group = strings.Trim(line, "[]")
		case group == "preferred":
			if k, v, ok := strings.Cut(line, "="); ok {
				out[strings.TrimSpace(k)] = splitList(v)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s has no [preferred] entries", path)
	}
	return out, nil
}

// PortalTokenPath is where the portal backend keeps its restore token:
// $XDG_STATE_HOME/deskpilot/portal-restore-token (~/.local/state when unset).
func PortalTokenPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "deskpilot", "portal-restore-token")
}

// NoPersistNote is what the portal backend says, once per install, when the
// desktop's RemoteDesktop portal cannot remember consent.
func NoPersistNote(version uint32) string {
	return fmt.Sprintf("portal: this desktop's RemoteDesktop portal is version %d, which cannot remember consent (version 2, xdg-desktop-portal 1.17+, can): the desktop asks on every run", version)
}
