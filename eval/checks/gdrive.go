package checks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"deskpilot/eval/gdrive"
)

// This file is OSWorld's getter googledrive_file (chrome.py's
// get_googledrive_file) and the Chrome side of its login step
// (SetupController._login_setup), over the author's Google Drive.

// DriveSettingsDefault is the settings file OSWorld's googledrive steps and
// getters use when they name none (relative to OSWorld's repository).
const DriveSettingsDefault = "evaluation_examples/settings/googledrive/settings.yml"

// DriveEnv is an Env that reaches the Google Drive of the person running
// the tasks. Only the harness talks to Drive: the tokens never enter the
// task's box.
type DriveEnv interface {
	// GoogleDrive is the Drive authorised with the PyDrive settings file
	// settingsFile (relative to OSWorld's repository, as OSWorld runs).
	GoogleDrive(settingsFile string) (*gdrive.Client, error)
}

func driveGetters() map[string]Getter {
	return map[string]Getter{"googledrive_file": {Fn: getGoogleDriveFile, Check: checkGoogleDriveFile}}
}

// DriveSettings is the settings file a googledrive_file getter config uses,
// and whether cfg is one.
func DriveSettings(cfg map[string]any) (string, bool) {
	if cfg["type"] != "googledrive_file" {
		return "", false
	}
	s, ok := cfg["settings_file"].(string)
	if !ok {
		s = DriveSettingsDefault
	}
	return s, true
}

// driveRequest is one file to fetch: the queries walking down from the
// root, and where it goes in the cache folder.
type driveRequest struct {
	queries []string
	dest    string
}

// driveQueries are the queries get_googledrive_file builds for a path: a
// folder for each part but the last, then the file, none in the trash.
// The titles are put between single quotes as they are (a quote in one
// makes a query Drive refuses, as OSWorld's does).
func driveQueries(path []string) []string {
	out := make([]string, len(path))
	for i, p := range path {
		if i < len(path)-1 {
			out[i] = "title = '" + p + "' and mimeType = '" + gdrive.FolderType + "' and trashed = false"
		} else {
			out[i] = "title = '" + p + "' and trashed = false"
		}
	}
	return out
}

// parseDriveConfig reads the getter's four forms, tried in OSWorld's
// order: query, path (one file), query_list, path_list (a list of files,
// with dest a list of the same length). list says the result is a list.
func parseDriveConfig(cfg map[string]any) (reqs []driveRequest, list bool, err error) {
	dest := func() (string, error) {
		d, err := strKey(cfg, "dest")
		if err == nil && !filepath.IsLocal(d) {
			err = fmt.Errorf("dest %q is not inside the cache folder", d)
		}
		return d, err
	}
	dests := func(n int) ([]string, error) {
		ds, err := strList(cfg["dest"], "dest")
		if err != nil {
			return nil, err
		}
		if len(ds) != n {
			return nil, fmt.Errorf("AssertionError: %d files and %d dest", n, len(ds))
		}
		for _, d := range ds {
			if !filepath.IsLocal(d) {
				return nil, fmt.Errorf("dest %q is not inside the cache folder", d)
			}
		}
		return ds, nil
	}
	lists := func(k string) ([][]string, error) {
		l, ok := cfg[k].([]any)
		if !ok {
			return nil, fmt.Errorf("%s: want a list of lists of strings, got %s", k, PyType(cfg[k]))
		}
		out := make([][]string, len(l))
		for i, x := range l {
			if out[i], err = strList(x, fmt.Sprintf("%s[%d]", k, i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	switch {
	case hasKey(cfg, "query"):
		q, err := strList(cfg["query"], "query")
		if err != nil {
			return nil, false, err
		}
		d, err := dest()
		return []driveRequest{{q, d}}, false, err
	case hasKey(cfg, "path"):
		p, err := strList(cfg["path"], "path")
		if err != nil {
			return nil, false, err
		}
		d, err := dest()
		return []driveRequest{{driveQueries(p), d}}, false, err
	case hasKey(cfg, "query_list"):
		qs, err := lists("query_list")
		if err != nil {
			return nil, true, err
		}
		ds, err := dests(len(qs))
		if err != nil {
			return nil, true, err
		}
		for i, q := range qs {
			reqs = append(reqs, driveRequest{q, ds[i]})
		}
		return reqs, true, nil
	default:
		if !hasKey(cfg, "path_list") {
			return nil, true, errors.New("KeyError: 'path_list' (give query, path, query_list or path_list)")
		}
		ps, err := lists("path_list")
		if err != nil {
			return nil, true, err
		}
		ds, err := dests(len(ps))
		if err != nil {
			return nil, true, err
		}
		for i, p := range ps {
			reqs = append(reqs, driveRequest{driveQueries(p), ds[i]})
		}
		return reqs, true, nil
	}
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func checkGoogleDriveFile(cfg map[string]any) error {
	if v, ok := cfg["settings_file"]; ok {
		if _, ok := v.(string); !ok {
			return errors.New("settings_file: want a string")
		}
	}
	_, _, err := parseDriveConfig(cfg)
	return err
}

// getGoogleDriveFile is get_googledrive_file: each file found by walking
// its queries down from the Drive's root (the first match of each, the
// next query among its children), downloaded into the cache folder as its
// dest: the local path, or None when a query finds nothing or the file has
// no content to download (a Google Docs file asked as its own type, as
// PyDrive's GetContentFile with the file's mimeType raises). Unlike
// OSWorld, which logs any exception and gives None, a request that fails
// (credentials, HTTP errors) is an error naming it; the task scores 0
// either way.
func getGoogleDriveFile(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	reqs, list, err := parseDriveConfig(cfg)
	if err != nil {
		return nil, err
	}
	de, ok := env.(DriveEnv)
	if !ok {
		return nil, fmt.Errorf("%w: googledrive_file: no Google Drive access here", ErrUnavailable)
	}
	settings, _ := DriveSettings(cfg)
	drive, err := de.GoogleDrive(settings)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, r := range reqs {
		v, err := driveFile(ctx, drive, r.queries, filepath.Join(env.CacheDir(), r.dest))
		if err != nil {
			return nil, err
		}
		if !list {
			return v, nil
		}
		out = append(out, v)
	}
	return out, nil
}

// driveFile is get_single_file.
func driveFile(ctx context.Context, drive *gdrive.Client, queries []string, dst string) (any, error) {
	parent := "root"
	var file *gdrive.File
	for _, q := range queries {
		found, err := drive.List(ctx, "( "+q+" ) and \""+parent+"\" in parents")
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, nil
		}
		file = &found[0] // the first candidate, as OSWorld's HACK
		parent = file.ID
	}
	if file == nil {
		return nil, nil // no query: Python's unbound variable, caught
	}
	if err := drive.Download(ctx, *file, file.MimeType, dst); err != nil {
		if errors.Is(err, gdrive.ErrNotDownloadable) {
			return nil, nil
		}
		return nil, err
	}
	return dst, nil
}

// DriveLoginURL is the page the login step opens: Google Drive, which
// shows Google's sign-in when the browser is not signed in. Tests point it
// at a page of their own.
var DriveLoginURL = "https://drive.google.com/drive/my-drive"

// GoogleDriveLogin is _login_setup for platform googledrive: a new tab of
// the browser in the box (DevTools on its port 9222) opens Google Drive,
// and when Google's sign-in page shows, types the email, presses Next,
// types the password and presses Next. As in OSWorld, a page that does not
// load or does not show those fields in time ends the step quietly (logged):
// the sign-in is best effort. logf must not be given the password; it is
// not.
func GoogleDriveLogin(ctx context.Context, env Env, email, password string, logf func(string, ...any)) error {
	driveURL := DriveLoginURL
	data, err := devtoolsDo(ctx, env, "PUT", "/json/new")
	if err != nil {
		return err
	}
	var t devtoolsTarget
	if err := json.Unmarshal(data, &t); err != nil || t.WS == "" {
		return fmt.Errorf("devtools /json/new: no page (%v)", err)
	}
	s, err := dialCDP(ctx, env, t.WS)
	if err != nil {
		return err
	}
	defer s.close() // the tab stays open, as Playwright leaves it
	gctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	err = s.navigate(gctx, driveURL)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		logf("login: opening %s: %v (going on, as OSWorld)\n", driveURL, err)
	}
	steps := []struct {
		what    string
		field   string
		text    string
		wait    time.Duration
		button  string
		secrecy bool
	}{
		{"email", `input[type="email"]`, email, 3 * time.Second, "#identifierNext > div > button", false},
		{"password", `input[type="password"]`, password, 5 * time.Second, "#passwordNext > div > button", true},
	}
	for _, st := range steps {
		if err := waitVisible(ctx, s, st.field, st.wait); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			logf("login: timeout when waiting for google drive login page to load (%s field)\n", st.what)
			return nil
		}
		if err := fill(ctx, s, st.field, st.text); err != nil {
			return fmt.Errorf("login: typing the %s: %s", st.what, redactText(err.Error(), password))
		}
		// Playwright's click waits up to 30 s for the button.
		if err := waitVisible(ctx, s, st.button, 30*time.Second); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			logf("login: timeout when waiting for the %s Next button\n", st.what)
			return nil
		}
		if err := clickSelector(ctx, s, st.button); err != nil {
			return fmt.Errorf("login: %s Next: %s", st.what, redactText(err.Error(), password))
		}
		logf("login: %s entered\n", st.what)
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.waitLoaded(lctx); err != nil && ctx.Err() == nil {
		logf("login: timeout when waiting for the page after sign-in\n")
	}
	return ctx.Err()
}

func redactText(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// waitVisible waits up to d for an element matching sel with a box on the
// page (Playwright's state "visible").
func waitVisible(ctx context.Context, s *cdpSession, sel string, d time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	expr := `(() => { const e = document.querySelector(` + jsString(sel) + `); if (!e) return false; const r = e.getBoundingClientRect(); const st = getComputedStyle(e); return r.width > 0 && r.height > 0 && st.visibility !== 'hidden'; })()`
	for {
		var ok bool
		if err := s.eval(wctx, expr, &ok); err == nil && ok {
			return nil
		}
		select {
		case <-wctx.Done():
			return wctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// fill is Playwright's fill: focus the field, select what it holds, and
// insert the text as typed text (input events), replacing it.
func fill(ctx context.Context, s *cdpSession, sel, text string) error {
	if err := s.eval(ctx, `(() => { const e = document.querySelector(`+jsString(sel)+`); e.focus(); try { e.select(); } catch (_) {} return true; })()`, nil); err != nil {
		return err
	}
	_, err := s.call(ctx, "Input.insertText", map[string]any{"text": text})
	return err
}

// clickSelector clicks the middle of the element's box with the mouse.
func clickSelector(ctx context.Context, s *cdpSession, sel string) error {
	var pt struct{ X, Y float64 }
	if err := s.eval(ctx, `(() => { const e = document.querySelector(`+jsString(sel)+`); e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return {X: r.x + r.width / 2, Y: r.y + r.height / 2}; })()`, &pt); err != nil {
		return err
	}
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		p := map[string]any{"type": typ, "x": pt.X, "y": pt.Y}
		if typ != "mouseMoved" {
			p["button"], p["clickCount"] = "left", 1
		}
		if _, err := s.call(ctx, "Input.dispatchMouseEvent", p); err != nil {
			return err
		}
	}
	return nil
}
