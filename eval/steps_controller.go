//go:build linux

package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"deskpilot/eval/checks"
	"deskpilot/internal/wait"
)

// Ports and waits of the Chrome steps, as OSWorld's controller has them.
const (
	devtoolsPort     = 9222 // where OSWorld's tasks socat Chrome's 1337
	devtoolsTries    = 15   // connection attempts, 5 s apart
	devtoolsPause    = 5 * time.Second
	closeTabsPause   = 5 * time.Second // chrome_close_tabs waits for Chrome to finish launching
	devtoolsRequestT = 60 * time.Second
)

// runControllerStep runs a SetupController step not run in steps.go.
func (b *box) runControllerStep(ctx context.Context, s step) error {
	if s.cannot != "" {
		return &UnsupportedError{What: "config step", Name: s.kind + ": " + s.cannot}
	}
	switch s.kind {
	case "download":
		return b.download(ctx, s.files)
	case "upload_file":
		return b.uploadFiles(s.files)
	case "activate_window", "close_window":
		msg := map[string]string{"activate_window": "_NET_ACTIVE_WINDOW", "close_window": "_NET_CLOSE_WINDOW"}[s.kind]
		w, ok, err := b.windowAction(s.window, msg)
		switch {
		case err != nil:
			return err
		case !ok:
			// wmctrl exits 1 and OSWorld's server goes on: so does the task.
			b.log.printf("no window matches %q (strict %v, by class %v): nothing done, as wmctrl\n", s.window.name, s.window.strict, s.window.byClass)
		default:
			b.log.printf("%s: window 0x%x %q (%s)\n", msg, uint32(w.id), w.title, w.class)
		}
		return nil
	case "chrome_open_tabs":
		return b.chromeOpenTabs(ctx, s.urls)
	case "chrome_close_tabs":
		if err := wait.Sleep(ctx, closeTabsPause); err != nil {
			return err
		}
		return b.chromeCloseTabs(ctx, s.urls)
	case "update_browse_history":
		return b.updateBrowseHistory(ctx, s.history)
	case "googledrive":
		return b.googleDrive(ctx, s.drive)
	case "login":
		return b.login(ctx, s.login)
	}
	return fmt.Errorf("unknown step type %q", s.kind) // decodeStep lets none through
}

// taskPath maps a path a task names on OSWorld's VM to the task's files:
// /home/user is the task's fresh home, as ~ is.
func (b *box) taskPath(p string) string {
	if p == "/home/user" || strings.HasPrefix(p, "/home/user/") {
		p = "~" + strings.TrimPrefix(p, "/home/user")
	}
	return b.path(p)
}

// destPath is where a download or upload step puts a file: as taskPath, and a
// relative path is in the home, the working folder of the task's commands
// (OSWorld's server saves it in its own working folder, where the task's
// later commands run too: os/5ced85fc downloads "eval.sh", then runs
// "chmod +x eval.sh").
func (b *box) destPath(p string) string {
	if !filepath.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "$") {
		p = "~/" + p
	}
	return b.taskPath(p)
}

// download puts each file, from the harness's cache (downloaded there first
// unless the evaluation is offline), at its path in the task's files.
func (b *box) download(ctx context.Context, files []stepFile) error {
	in := b.inputs()
	for _, f := range files {
		src, err := in.Get(ctx, f.url)
		if err != nil {
			return err
		}
		dst := b.destPath(f.path)
		if err := b.inside(dst); err != nil {
			return err
		}
		if err := in.copyInput(f.url, src, dst); err != nil {
			return fmt.Errorf("download %s to %s: %w", f.url, f.path, err)
		}
		b.log.printf("download %s -> %s\n", f.url, dst)
	}
	return nil
}

// uploadFiles copies files of the task's own folder into the task's files
// (OSWorld uploads from the machine running it).
func (b *box) uploadFiles(files []stepFile) error {
	for _, f := range files {
		src := b.path(f.local)
		rel, err := filepath.Rel(b.taskDir, src)
		if err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("upload_file %s: only files of the task's folder can be uploaded", f.local)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("upload_file: %w", err)
		}
		dst := b.destPath(f.path)
		if err := b.inside(dst); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// inside refuses a destination outside the task's home and cache: a task
// writes only its own files.
func (b *box) inside(dst string) error {
	for _, root := range []string{b.home, b.cache} {
		if rel, err := filepath.Rel(root, dst); err == nil && filepath.IsLocal(rel) {
			return nil
		}
	}
	return fmt.Errorf("%s is outside the task's home", dst)
}

// devtools is an HTTP client for Chrome's DevTools endpoint on the box's
// port 9222.
func (b *box) devtools() *http.Client {
	return &http.Client{
		Timeout: devtoolsRequestT,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return b.dial(ctx, devtoolsPort)
		}},
	}
}

// target is an entry of /json/list.
type target struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	URL  string `json:"url"`
}

// devtoolsCall does one request to the endpoint and decodes its JSON answer
// into out (when not nil).
func devtoolsCall(ctx context.Context, c *http.Client, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:"+fmt.Sprint(devtoolsPort)+path, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("devtools %s %s: HTTP %s: %s", method, path, resp.Status, cut(string(body), 200))
	}
	if out != nil {
		return json.Unmarshal(body, out)
	}
	return nil
}

// pages lists Chrome's open tabs, retrying the connection as OSWorld's
// controller does (15 attempts, 5 s apart) while Chrome starts.
func (b *box) pages(ctx context.Context, c *http.Client) ([]target, error) {
	var err error
	for try := 0; try < devtoolsTries; try++ {
		if try > 0 {
			if werr := wait.Sleep(ctx, devtoolsPause); werr != nil {
				return nil, werr
			}
		}
		var all []target
		if err = devtoolsCall(ctx, c, http.MethodGet, "/json/list", &all); err == nil {
			var out []target
			for _, t := range all {
				if t.Type == "page" {
					out = append(out, t)
				}
			}
			return out, nil
		}
		b.log.printf("devtools: attempt %d: %v\n", try+1, err)
	}
	return nil, fmt.Errorf("chrome's DevTools endpoint (port %d) did not answer: %w", devtoolsPort, err)
}

// chromeOpenTabs opens each URL in a new tab and, after the first, closes the
// tab Chrome started with, as OSWorld's controller does over Playwright.
func (b *box) chromeOpenTabs(ctx context.Context, urls []string) error {
	c := b.devtools()
	before, err := b.pages(ctx, c)
	if err != nil {
		return err
	}
	for i, u := range urls {
		var t target
		if err := devtoolsCall(ctx, c, http.MethodPut, "/json/new?"+url.QueryEscape(u), &t); err != nil {
			return fmt.Errorf("open %s: %w", u, err)
		}
		b.log.printf("opened tab %d: %s\n", i+1, u)
		if i == 0 && len(before) > 0 {
			first := before[len(before)-1] // /json/list lists the newest first
			if err := devtoolsCall(ctx, c, http.MethodGet, "/json/close/"+first.ID, nil); err != nil {
				return fmt.Errorf("close the default tab: %w", err)
			}
		}
	}
	return nil
}

// chromeCloseTabs closes, for each URL, the first tab whose URL is the same by
// OSWorld's compare_urls.
func (b *box) chromeCloseTabs(ctx context.Context, urls []string) error {
	c := b.devtools()
	pages, err := b.pages(ctx, c)
	if err != nil {
		return err
	}
	for _, u := range urls {
		for i, p := range pages {
			if checks.CompareURLs(p.URL, u) {
				if err := devtoolsCall(ctx, c, http.MethodGet, "/json/close/"+p.ID, nil); err != nil {
					return fmt.Errorf("close %s: %w", p.URL, err)
				}
				b.log.printf("closed tab %s\n", p.URL)
				pages = append(pages[:i], pages[i+1:]...)
				break
			}
		}
	}
	return nil
}

// chromeEpochOffset is the seconds from 1601-01-01 (Chrome's epoch) to 1970-01-01.
const chromeEpochOffset = 11644473600

// updateBrowseHistory adds visits to a copy of OSWorld's history database and
// installs it as the profile's History, as OSWorld's controller does. Like
// OSWorld (datetime.now(), naive), visit times are the local wall clock.
func (b *box) updateBrowseHistory(ctx context.Context, items []historyItem) error {
	in := b.inputs()
	src, err := in.Get(ctx, historyDBURL)
	if err != nil {
		return err
	}
	db := filepath.Join(b.cache, "history_new.sqlite")
	if err := in.copyInput(historyDBURL, src, db); err != nil {
		return err
	}
	now := time.Now()
	_, offset := now.Zone()
	var sql strings.Builder
	sql.WriteString("BEGIN;\n")
	for _, it := range items {
		secs := float64(now.Unix()+int64(offset)+chromeEpochOffset) + float64(now.Nanosecond())/1e9 - it.ago
		ts := int64(secs * 1e6)
		fmt.Fprintf(&sql, "INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) VALUES (%s, %s, 1, 0, %d, 0);\n", sqlQuote(it.url), sqlQuote(it.title), ts)
		fmt.Fprintf(&sql, "INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) VALUES (last_insert_rowid(), %d, 0, 805306368, 0, 0);\n", ts)
	}
	sql.WriteString("COMMIT;\n")
	cmd := exec.CommandContext(ctx, "sqlite3", "-bail", db)
	cmd.Stdin = strings.NewReader(sql.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return &NotInstalledError{App: "sqlite3"}
		}
		return fmt.Errorf("update_browse_history: sqlite3: %v: %s", err, cut(string(out), 300))
	}
	dst := b.taskPath("~/.config/google-chrome/Default/History")
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	data, err := os.ReadFile(db)
	if err != nil {
		return err
	}
	b.log.printf("update_browse_history: %d visits added to %s\n", len(items), dst)
	return os.WriteFile(dst, data, 0o600)
}

// sqlQuote is an SQL string literal.
func sqlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// NotInstalledError is a program a task starts that this machine does not
// have (VS Code, which Debian does not package).
type NotInstalledError struct{ App string }

func (e *NotInstalledError) Error() string { return "app not installed: " + e.App }
