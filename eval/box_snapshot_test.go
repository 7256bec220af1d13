//go:build linux

package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBoxSudo: OSWorld's "echo password | sudo -S ..." in the box. The
// password is checked; installing what the machine has succeeds and changes
// nothing; installing what it lacks, or anything that needs root, fails with
// a clear message; the rest runs as the box's user.
func TestBoxSudo(t *testing.T) {
	b := testBox(t)
	for _, tt := range []struct {
		name, script string
		code         int
		out          string // in stdout+stderr
	}{
		{"wrong password", "echo wrong | sudo -S true", 1, "incorrect password"},
		{"as the user", "echo password | sudo -S mkdir ~/Desktop/made && echo password | sudo -S id -un && ls -d ~/Desktop/made", 0, "user\n/home/user/Desktop/made"},
		{"no -S after one", "sudo touch ~/t.txt && ls ~/t.txt", 0, "/home/user/t.txt"},
		{"options", "echo password | sudo -S -E -H -u root -- id -u", 0, "1000"},
		{"another user", "echo password | sudo -S -u charles true", 1, "only the user 'user'"},
		{"apt update", "echo password | sudo -S apt-get update -y", 0, "nothing done"},
		{"apt install of what is here", "echo password | sudo -S apt install python3 -y", 0, "python3 is already the newest version"},
		{"apt install of what is not", "echo password | sudo -S apt-get install -y deskpilot-no-such-package", 100, "deskpilot-no-such-package not installed on this machine"},
		{"needs root", "echo password | sudo -S touch /etc/deskpilot-test", 1, "not as root"},
		{"pip of what is not", "echo password | sudo -S pip install deskpilot-no-such-dist", 1, "not installed on this machine"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := b.exec(t.Context(), shell(tt.script))
			if err != nil {
				t.Fatal(err)
			}
			if all := res.stdout + res.stderr; res.code != tt.code || !strings.Contains(all, tt.out) {
				t.Errorf("exit %d, want %d; output:\n%s\nwant %q in it", res.code, tt.code, all, tt.out)
			}
		})
	}
	if _, err := os.Stat("/etc/deskpilot-test"); err == nil {
		t.Error("the box's sudo wrote into the machine's /etc")
	}
}

// TestBoxSnapshotState: a fresh home has what OSWorld's VM snapshot has where
// the tasks' checks read it: VLC's and LibreOffice's settings files (read back
// by the apps themselves), and GNOME Videos as the default video player.
func TestBoxSnapshotState(t *testing.T) {
	needTools(t, "vlc", "xdg-mime", "totem")
	b := testBox(t)
	// VLC reads the vlcrc: no privacy dialog (qt-privacy-ask=0); it keeps
	// the file and its own defaults.
	res, err := b.exec(t.Context(), shell(`xdg-mime query default video/mp4; xdg-mime query default video/x-matroska
grep -c '^#qt-bgcone=1$' ~/.config/vlc/vlcrc; grep '^qt-privacy-ask=' ~/.config/vlc/vlcrc
ls ~/.config/libreoffice/4/user/registrymodifications.xcu`))
	if err != nil {
		t.Fatal(err)
	}
	want := "org.gnome.Totem.desktop\norg.gnome.Totem.desktop\n1\nqt-privacy-ask=0\n/home/user/.config/libreoffice/4/user/registrymodifications.xcu\n"
	if res.stdout != want {
		t.Errorf("box says:\n%s%s\nwant:\n%s", res.stdout, res.stderr, want)
	}
	// Set as a person would (xdg-mime default, as the file manager's "Open
	// With" does), the default is VLC.
	res, err = b.exec(t.Context(), shell(`xdg-mime default vlc.desktop video/mp4 && xdg-mime query default video/mp4`))
	if err != nil || res.stdout != "vlc.desktop\n" {
		t.Errorf("after xdg-mime default: %q %q %v", res.stdout, res.stderr, err)
	}
	// VLC starts on the snapshot's vlcrc and leaves it as it is.
	res, err = b.exec(t.Context(), shell(`cvlc --intf dummy --no-video vlc://quit 2>/dev/null; echo exit $?`))
	if err != nil || !strings.Contains(res.stdout, "exit 0") {
		t.Errorf("vlc on the snapshot's vlcrc: %q %q %v", res.stdout, res.stderr, err)
	}
	if data, err := os.ReadFile(filepath.Join(b.home, ".config", "vlc", "vlcrc")); err != nil || !strings.Contains(string(data), "qt-privacy-ask=0") {
		t.Errorf("vlcrc after VLC ran: %v; want qt-privacy-ask=0 kept", err)
	}
}

// TestNeedsNetwork: a task whose setup opens a web page on the internet is
// not run offline (status needs_network, before any display), and is with
// --task-network host; a page on the box's loopback needs no network.
func TestNeedsNetwork(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want bool
	}{
		{"https://www.amazon.com", true},
		{"http://funbrain.com/", true},
		{"http://127.0.0.1:8080/page", false},
		{"http://localhost/", false},
		{"http://[::1]:9/", false},
		{"file:///home/user/a.html", false},
		{"about:blank", false},
		{"chrome://settings", false},
	} {
		got := internetURL(step{kind: "chrome_open_tabs", urls: []string{tt.url}}) != ""
		if got != tt.want {
			t.Errorf("%s: needs network %v, want %v", tt.url, got, tt.want)
		}
	}
	task := &Task{ID: "chrome/tabs", os: &osTask{config: []step{
		{kind: "chrome_open_tabs", urls: []string{"http://localhost:1/", "https://www.amazon.com"}}}}}
	h := &harness{o: Options{}, inputs: &Inputs{Dir: t.TempDir(), Offline: true}}
	err := h.preflight(task)
	if statusOf(err) != StatusNeedsNetwork || !strings.Contains(err.Error(), "needs network: https://www.amazon.com") {
		t.Errorf("offline: %v (status %q), want needs network", err, statusOf(err))
	}
	// A check that reads a live site (chrome/b4f95342's expected value comes
	// from recreation.gov) needs the network too, whatever the setup opens.
	live := &Task{ID: "chrome/live", os: &osTask{eval: evaluator{funcs: []string{"check_direct_json_object"},
		result:   []*getter{{kind: "active_tab_html_parse"}},
		expected: []*getter{{kind: "gotoRecreationPage_and_get_html_content"}}}}}
	err = h.preflight(live)
	if statusOf(err) != StatusNeedsNetwork || !strings.Contains(err.Error(),
		"needs network: https://www.recreation.gov/ (the check's getter gotoRecreationPage_and_get_html_content reads the live site;") {
		t.Errorf("a live check offline: %v (status %q), want needs network naming the getter", err, statusOf(err))
	}
	h.o.TaskNetwork = "host"
	for _, tk := range []*Task{task, live} {
		if err := h.preflight(tk); err != nil {
			t.Errorf("%s with --task-network host: %v", tk.ID, err)
		}
	}
}

// TestBoxVLCFirstRun: with the snapshot's vlcrc, VLC opens its main window
// at once, as on OSWorld's VM; without it (a home VLC never ran in) it first
// asks its privacy question, and writes no vlcrc until it is answered.
func TestBoxVLCFirstRun(t *testing.T) {
	needTools(t, "vlc")
	for _, tt := range []struct {
		name    string
		vlcrc   bool
		privacy bool
	}{{"snapshot", true, false}, {"no vlcrc", false, true}} {
		t.Run(tt.name, func(t *testing.T) {
			b := testBox(t)
			if !tt.vlcrc {
				if err := os.Remove(filepath.Join(b.home, ".config", "vlc", "vlcrc")); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.launch(t.Context(), []string{"vlc"}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			if _, err := b.d.WaitWindows(ctx, 1); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second) // a dialog VLC shows after its window
			ws, err := b.d.Windows(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, w := range ws {
				if w.Viewable {
					titles = append(titles, w.Title)
				}
			}
			all := strings.Join(titles, " | ")
			t.Logf("windows: %q", all)
			if got := strings.Contains(all, "Privacy"); got != tt.privacy {
				t.Errorf("windows %q: privacy question shown %v, want %v", all, got, tt.privacy)
			}
			if !tt.privacy && !strings.Contains(all, "VLC media player") {
				t.Errorf("windows %q: want VLC's main window", all)
			}
		})
	}
}

// TestNeedsNetworkRecreation: OSWorld's chrome/b4f95342 ("find the next
// available date for Albion Basin"), verbatim from its tree, is
// needs_network offline, its line naming the check's live site, not
// unsupported.
func TestNeedsNetworkRecreation(t *testing.T) {
	s, err := Load(osworldTree(t))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{o: Options{}, inputs: &Inputs{Dir: t.TempDir(), Offline: true}}
	for _, task := range s.Tasks {
		if task.ID != "chrome/b4f95342-463e-4179-8c3f-193cd7241fb2" {
			continue
		}
		if task.Problem != nil {
			t.Fatalf("%s: %v", task.ID, task.Problem)
		}
		err := h.preflight(task)
		if statusOf(err) != StatusNeedsNetwork || !strings.Contains(err.Error(), "gotoRecreationPage_and_get_html_content reads the live site") {
			t.Errorf("%s offline: %v (status %q); want needs_network naming the getter", task.ID, err, statusOf(err))
		}
		return
	}
	t.Fatal("chrome/b4f95342 is not in OSWorld's tree")
}
