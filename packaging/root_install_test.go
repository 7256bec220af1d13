package packaging

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The .deb installs into a clean Debian root with apt alone, which pulls in
// every library it needs: with its Depends only the binary starts, its desktop
// entry opens the app window and a headless run answers; with the Recommends
// too (apt's default) `deskpilot doctor` passes every check and a run reads
// the screen with OCR. Removing it (purge) takes back every file it brought
// and leaves nothing of it behind.
func TestDebInstallsInCleanRoot(t *testing.T) {
	p := needPackages(t)
	r := newDebRoot(t)
	deb := "/tmp/" + filepath.Base(p.deb)
	data, err := os.ReadFile(p.deb)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, deb), data, 0o644); err != nil {
		t.Fatal(err)
	}
	clean := r.snapshot(t)
	if len(clean) < 1000 {
		t.Fatalf("the root holds %d paths", len(clean))
	}
	cleanPkgs := r.run(t, nil, "dpkg-query", "-W", "-f", "${Package}\n")

	// Depends only, and an X server to show it on.
	t0 := time.Now()
	r.run(t, nil, "apt-get", "install", "-y", "--no-install-recommends", deb, "xvfb")
	t.Logf("installed with its Depends in %s", time.Since(t0).Round(time.Second))
	owned := r.run(t, nil, "dpkg-query", "-L", "deskpilot")
	if v := r.run(t, nil, "deskpilot", "--version"); !strings.HasPrefix(v, "deskpilot "+p.version+" ") {
		t.Errorf("--version in the root: %s", v)
	}
	display := r.startX(t, 1280, 800)
	home := []string{"HOME=/tmp/home", "DISPLAY=" + display}
	r.run(t, nil, "mkdir", "-p", "/tmp/home")
	srv := sizeModel(t, false)
	out := r.run(t, home, "deskpilot", "run", "--base-url", srv.URL, "--model", "scripted", "--json", "-q", "How big is the screen?")
	checkRun(t, out, 1280, 800)
	appWindow(t, r, home, display)

	// Purge takes back exactly the package's files.
	installed := r.snapshot(t)
	r.run(t, nil, "apt-get", "purge", "-y", "deskpilot")
	purged := r.snapshot(t)
	if gained := minus(purged, installed); len(gained) > 0 {
		t.Errorf("purging deskpilot added %v", gained)
	}
	mine := map[string]bool{}
	for _, f := range strings.Split(strings.TrimSpace(owned), "\n") {
		mine[f] = true
	}
	for _, f := range minus(installed, purged) {
		if !mine[strings.TrimSuffix(f, "/")] {
			t.Errorf("purging deskpilot removed %s, which is not its own", f)
		}
	}
	for f := range mine {
		if purged[f] {
			t.Errorf("purging deskpilot left its %s", f)
		}
	}

	// As a user installs it: apt's default brings the Recommends too. A
	// desktop session has a session bus, which AT-SPI and the keyring live on:
	// dbus-daemon gives the root one, and doctor runs inside it.
	t0 = time.Now()
	r.run(t, nil, "apt-get", "install", "-y", deb, "dbus-daemon")
	t.Logf("installed with its Recommends in %s", time.Since(t0).Round(time.Second))
	for _, rec := range []string{"tesseract-ocr-eng", "xdg-utils", "at-spi2-core", "mousepad"} {
		r.run(t, nil, "dpkg-query", "-W", rec)
	}
	srv = sizeModel(t, true)
	model := append([]string{"OPENAI_BASE_URL=" + srv.URL, "DESKPILOT_MODEL=scripted"}, home...)
	doc := r.run(t, model, "dbus-run-session", "--", "deskpilot", "doctor")
	for _, check := range []string{"display", "capture", "input", "model", "a11y", "ocr", "xdg-open"} {
		if !strings.Contains(doc, "ok   "+check) {
			t.Errorf("doctor did not pass %s:\n%s", check, doc)
		}
	}
	out = r.run(t, model, "deskpilot", "run", "--observe", "screenshot,ocr", "--json", "-q", "How big is the screen?")
	checkRun(t, out, 1280, 800)

	// Removed with what apt brought for it, the root holds the packages it
	// held before (and those apt keeps of priority required) and nothing of
	// deskpilot. Recommends of the base system's own packages, such as
	// ca-certificates for apt, count as removable here.
	r.run(t, nil, "apt-get", "purge", "-y", "--autoremove", "-o", "APT::AutoRemove::RecommendsImportant=false",
		"-o", "APT::AutoRemove::SuggestsImportant=false", "deskpilot", "xvfb", "dbus-daemon")
	got := lines(r.run(t, nil, "dpkg-query", "-W", "-f", "${Package}\n"))
	if fewer := minus(lines(cleanPkgs), got); len(fewer) > 0 {
		t.Errorf("purging removed packages of the clean root: %v", fewer)
	}
	for _, pkg := range minus(got, lines(cleanPkgs)) {
		// apt never removes by itself a package of priority required (mount,
		// tzdata), which a root of --variant=apt lacks.
		if prio := r.run(t, nil, "dpkg-query", "-W", "-f", "${Priority}", pkg); prio != "required" {
			t.Errorf("purging left the package %s (priority %s)", pkg, prio)
		} else {
			t.Logf("apt keeps %s (priority required)", pkg)
		}
	}
	after := r.snapshot(t)
	for _, f := range minus(after, clean) {
		if strings.Contains(f, "deskpilot") {
			t.Errorf("left behind: %s", f)
		}
	}
	t.Logf("the root after purging differs from the clean one by %d new and %d missing paths (state other packages' scripts left): %v",
		len(minus(after, clean)), len(minus(clean, after)), first(minus(after, clean), 40))
}

// appWindow runs the installed desktop entry's Exec line in the root and
// waits for the app's window on its display, watched from outside with
// xdotool, then takes a screenshot (kept in $DESKPILOT_SCREENSHOTS when set).
func appWindow(t *testing.T, r *debRoot, env []string, display string) {
	t.Helper()
	entry := desktopEntry(t, filepath.Join(r.dir, "usr/share/applications/io.github.deskpilot.desktop"))
	argv := execArgs(entry["Exec"])
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := r.command(ctx, env, argv...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		cancel()
		<-done
	}()
	x := []string{"DISPLAY=" + display, "PATH=/usr/bin:/bin"}
	for {
		if _, err := runErr(ctx, x, "xdotool", "search", "--onlyvisible", "--name", "^deskpilot$"); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("%v in the root exited (%v) before its window showed:\n%s", argv, err, tail(out.String(), 3000))
		case <-ctx.Done():
			t.Fatalf("no deskpilot window in the root:\n%s", tail(out.String(), 3000))
		case <-time.After(200 * time.Millisecond):
		}
	}
	// The root runs no window manager: the app's window is the whole screen.
	whole := image.Rect(0, 0, 1<<16, 1<<16)
	shot := filepath.Join(t.TempDir(), "root-app.png")
	if dir := os.Getenv("DESKPILOT_SCREENSHOTS"); dir != "" {
		shot = filepath.Join(dir, "root-app.png")
	}
	for {
		run(t, x, "import", "-display", display, "-window", "root", shot)
		if colours(t, shot, whole) > 16 || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := colours(t, shot, whole); n <= 16 {
		t.Errorf("the root's screen shows %d colours: the window did not paint", n)
	}
	t.Logf("screenshot of the app in the root: %s", shot)
}

// lines is the set of s's lines.
func lines(s string) map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		m[l] = true
	}
	return m
}

func first(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
