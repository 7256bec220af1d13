package packaging

import (
	"bufio"
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// fyneApp is what FyneApp.toml says of the app (what `fyne package` reads).
type fyneApp struct {
	Details struct {
		Icon, Name, ID, Version string
		Build                   int
	}
}

func readFyneApp(t *testing.T) fyneApp {
	t.Helper()
	var f fyneApp
	if _, err := toml.DecodeFile("../FyneApp.toml", &f); err != nil {
		t.Fatal(err)
	}
	if f.Details.Name == "" || f.Details.ID == "" || f.Details.Icon == "" || f.Details.Version == "" {
		t.Fatalf("FyneApp.toml lacks a detail: %+v", f.Details)
	}
	return f
}

// desktopEntry reads the [Desktop Entry] group of a .desktop file.
func desktopEntry(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	group := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			group = line
		case group == "[Desktop Entry]":
			k, v, _ := strings.Cut(line, "=")
			keys[k] = v
		}
	}
	return keys
}

// The sources agree with FyneApp.toml: the desktop entry is named by the app
// ID and shows its icon under that name and its Name, the .deb is the app's
// name, and the version the packages get starts with FyneApp's Version.
func TestFyneAppAgreesWithSources(t *testing.T) {
	app := readFyneApp(t).Details
	entry := desktopEntry(t, filepath.Join(app.ID+".desktop"))
	if entry["Name"] != app.Name || entry["Icon"] != app.ID {
		t.Errorf("desktop entry Name=%q Icon=%q, FyneApp.toml Name=%q ID=%q", entry["Name"], entry["Icon"], app.Name, app.ID)
	}
	control, err := os.ReadFile("control.in")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^Package: ` + regexp.QuoteMeta(app.Name) + `$`).Match(control) {
		t.Errorf("control.in's Package is not %q:\n%s", app.Name, control)
	}
	script, err := os.ReadFile("package.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "APP_ID="+app.ID+"\n") {
		t.Errorf("package.sh does not name the app ID %s", app.ID)
	}
	if _, err := os.Stat(filepath.Join("..", app.Icon)); err != nil {
		t.Errorf("FyneApp.toml's icon: %v", err)
	}
	v, err := exec.Command("./version.sh").Output()
	if err != nil {
		t.Fatalf("version.sh: %v", err)
	}
	if got := strings.TrimSpace(string(v)); got != app.Version && !strings.HasPrefix(got, app.Version+"~") {
		t.Errorf("version.sh says %q, FyneApp.toml's Version is %q", got, app.Version)
	}
}

// The built .deb agrees with FyneApp.toml: its package name, its version, the
// desktop entry named by the ID, and the icon it installs at 512x512 is
// FyneApp's icon, pixel for pixel.
func TestFyneAppAgreesWithDeb(t *testing.T) {
	p := needPackages(t)
	app := readFyneApp(t).Details
	if got := debField(t, p.deb, "Package"); got != app.Name {
		t.Errorf("Package %q, FyneApp Name %q", got, app.Name)
	}
	if got := debField(t, p.deb, "Version"); got != app.Version && !strings.HasPrefix(got, app.Version+"~") {
		t.Errorf("Version %q, FyneApp Version %q", got, app.Version)
	}
	root := extractDeb(t, p.deb)
	entry := desktopEntry(t, filepath.Join(root, "usr/share/applications", app.ID+".desktop"))
	if entry["Name"] != app.Name || entry["Icon"] != app.ID {
		t.Errorf("installed desktop entry Name=%q Icon=%q", entry["Name"], entry["Icon"])
	}
	want := decodePNG(t, filepath.Join("..", app.Icon))
	got := decodePNG(t, filepath.Join(root, "usr/share/icons/hicolor/512x512/apps", app.ID+".png"))
	if !samePixels(want, got) {
		t.Errorf("the 512x512 icon is not FyneApp.toml's %s", app.Icon)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}
