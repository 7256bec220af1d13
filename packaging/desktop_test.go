package packaging

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/vision/xdisplay"
)

// The .deb's desktop entry passes desktop-file-validate, and its Exec line,
// run as a desktop would (the binary found on PATH), opens the app's window
// on a private display. The screenshot is kept in $DESKPILOT_SCREENSHOTS when
// that is set, to be looked at.
func TestDesktopEntryOpensApp(t *testing.T) {
	p := needPackages(t)
	root := extractDeb(t, p.deb)
	file := filepath.Join(root, "usr/share/applications/io.github.deskpilot.desktop")
	if out, err := runErr(t.Context(), nil, "desktop-file-validate", file); err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("desktop-file-validate: %v\n%s", err, out)
	}
	entry := desktopEntry(t, file)
	argv := execArgs(entry["Exec"])
	if len(argv) == 0 {
		t.Fatalf("no Exec line: %v", entry)
	}

	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatalf("no private display: %v", err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	home := t.TempDir()
	// The desktop finds the program on its PATH, where the .deb puts it.
	path := filepath.Join(root, "usr/bin") + ":/usr/bin:/bin"
	prog := lookPath(argv[0], path)
	if prog == "" {
		t.Fatalf("Exec's %s is not on PATH %s", argv[0], path)
	}
	cmd := d.Command(ctx, prog, argv[1:]...)
	cmd.Env = append(cmd.Env, "PATH="+path, "HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		cancel()
		<-done
	}()
	w, err := d.WaitWindow(ctx, "deskpilot")
	if err != nil {
		select {
		case err := <-done:
			t.Fatalf("%v exited (%v) before a window showed:\n%s", argv, err, tail(out.String(), 3000))
		default:
		}
		t.Fatalf("no deskpilot window: %v\n%s", err, tail(out.String(), 3000))
	}
	if w.Bounds.Dx() < 300 || w.Bounds.Dy() < 200 {
		t.Errorf("the window is %v", w.Bounds)
	}
	shot := filepath.Join(t.TempDir(), "desktop-entry.png")
	if dir := os.Getenv("DESKPILOT_SCREENSHOTS"); dir != "" {
		shot = filepath.Join(dir, "desktop-entry.png")
	}
	// The window paints after it maps: wait until its client area holds more
	// than the few colours of an empty window.
	for {
		run(t, d.Env(), "import", "-window", "root", shot)
		if colours(t, shot, w.Bounds) > 16 || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := colours(t, shot, w.Bounds); n <= 16 {
		t.Errorf("the window shows %d colours: it did not paint", n)
	}
	t.Logf("screenshot: %s (window %q at %v)", shot, w.Title, w.Bounds)
}

// execArgs splits a desktop entry's Exec value into arguments, without its
// field codes (%f, %U, ...). The values here need no quoting rules.
func execArgs(exec string) []string {
	var args []string
	for _, f := range strings.Fields(exec) {
		if len(f) == 2 && f[0] == '%' {
			continue
		}
		args = append(args, f)
	}
	return args
}

// lookPath finds name in the folders of path, "" when it is in none.
func lookPath(name, path string) string {
	if strings.Contains(name, "/") {
		return name
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// colours counts the distinct colours of a PNG inside area.
func colours(t *testing.T, path string, area image.Rectangle) int {
	t.Helper()
	img := decodePNG(t, path)
	seen := map[[4]uint32]bool{}
	r := img.Bounds().Intersect(area)
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, ca := img.At(x, y).RGBA()
			seen[[4]uint32{cr, cg, cb, ca}] = true
		}
	}
	return len(seen)
}
