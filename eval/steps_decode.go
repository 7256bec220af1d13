//go:build linux

package eval

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The config steps of OSWorld's SetupController beyond the basic ones
// (osworld.go): each "type" is one _<type>_setup method there, called with the
// step's parameters as keyword arguments. docs/eval.md lists what deskpilot
// does for each.

// stepFile is one file of a download step (url) or an upload_file step
// (local): where it goes in the task's files (path).
type stepFile struct {
	url, local, path string
}

// windowMatch picks windows as OSWorld's server does with wmctrl -a/-c: the
// first window whose title contains name, case-insensitively; with strict the
// whole title, case-sensitively; with byClass the WM_CLASS instead of the title.
type windowMatch struct {
	name            string
	strict, byClass bool
}

// historyItem is one entry update_browse_history adds to Chrome's history.
type historyItem struct {
	url, title string
	ago        float64 // visit_time_from_now_in_seconds
}

// historyDBURL is the empty Chrome history database OSWorld's
// update_browse_history starts from (a fixed Google Drive file).
const historyDBURL = "https://drive.usercontent.google.com/u/0/uc?id=1Lv74QkJYDWVX0RIgg0Co-DUcoYpVL0oX&export=download"

// decodeControllerStep reads the parameters of the SetupController steps not
// decoded in osworld.go; an unknown type is an *UnsupportedError.
func decodeControllerStep(s *step, raw json.RawMessage) error {
	switch s.kind {
	case "download", "upload_file":
		return decodeFiles(s, raw)
	case "activate_window", "close_window":
		p, err := object(raw, s.kind+" parameter", "window_name", "strict", "by_class")
		if err != nil {
			return err
		}
		if err := str(p["window_name"], &s.window.name); err != nil || s.window.name == "" {
			return fmt.Errorf("%s: window_name must be a non-empty string", s.kind)
		}
		s.window.strict = pyTruthy(p["strict"])
		s.window.byClass = pyTruthy(p["by_class"])
	case "chrome_open_tabs", "chrome_close_tabs":
		key := "urls_to_open"
		if s.kind == "chrome_close_tabs" {
			key = "urls_to_close"
		}
		p, err := object(raw, s.kind+" parameter", key)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(p[key], &s.urls); err != nil || isNull(p[key]) {
			return fmt.Errorf("%s: %s must be a list of URLs", s.kind, key)
		}
	case "update_browse_history":
		return decodeHistory(s, raw)
	case "change_wallpaper":
		p, err := object(raw, s.kind+" parameter", "path")
		if err != nil {
			return err
		}
		if err := str(p["path"], &s.path); err != nil || s.path == "" {
			return errors.New("change_wallpaper: path must be a non-empty string")
		}
		s.cannot = "change_wallpaper sets a GNOME wallpaper; the task's openbox desktop has none"
	case "googledrive":
		return decodeDrive(s, raw)
	case "login":
		return decodeLogin(s, raw)
	case "tidy_desktop", "act", "replay":
		s.cannot = s.kind + " is not implemented by OSWorld's own SetupController (it raises NotImplementedError)"
	default:
		return &UnsupportedError{What: "config step", Name: s.kind}
	}
	return nil
}

// decodeFiles reads download's files [{url, path}] or upload_file's files
// [{local_path, path}].
func decodeFiles(s *step, raw json.RawMessage) error {
	p, err := object(raw, s.kind+" parameter", "files")
	if err != nil {
		return err
	}
	var files []map[string]json.RawMessage
	if err := json.Unmarshal(p["files"], &files); err != nil || isNull(p["files"]) {
		return fmt.Errorf("%s: files must be a list of objects", s.kind)
	}
	src := "url"
	if s.kind == "upload_file" {
		src = "local_path"
	}
	for i, f := range files {
		var sf stepFile
		from := &sf.url
		if src == "local_path" {
			from = &sf.local
		}
		if err := str(f[src], from); err != nil || *from == "" {
			return fmt.Errorf("%s: files[%d].%s must be a non-empty string", s.kind, i, src)
		}
		if err := str(f["path"], &sf.path); err != nil || sf.path == "" {
			return fmt.Errorf("%s: files[%d].path must be a non-empty string", s.kind, i)
		}
		s.files = append(s.files, sf)
	}
	return nil
}

// decodeHistory reads update_browse_history's history
// [{url, title, visit_time_from_now_in_seconds}]; other parameters are
// accepted and ignored, as the method's **config does.
func decodeHistory(s *step, raw json.RawMessage) error {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(raw, &p); err != nil || p == nil {
		return errors.New("update_browse_history: want a JSON object")
	}
	var items []struct {
		URL   *string  `json:"url"`
		Title *string  `json:"title"`
		Ago   *float64 `json:"visit_time_from_now_in_seconds"`
	}
	if err := json.Unmarshal(p["history"], &items); err != nil || isNull(p["history"]) {
		return errors.New("update_browse_history: history must be a list of {url, title, visit_time_from_now_in_seconds}")
	}
	for i, it := range items {
		if it.URL == nil || it.Title == nil || it.Ago == nil {
			return fmt.Errorf("update_browse_history: history[%d] needs url, title and visit_time_from_now_in_seconds", i)
		}
		s.history = append(s.history, historyItem{*it.URL, *it.Title, *it.Ago})
	}
	return nil
}

// stepURLs are the URLs a step downloads.
func (s step) stepURLs() []string {
	var out []string
	for _, f := range s.files {
		if f.url != "" {
			out = append(out, f.url)
		}
	}
	if s.kind == "update_browse_history" {
		out = append(out, historyDBURL)
	}
	if s.drive != nil {
		for _, op := range s.drive.ops {
			if op.kind == "upload" {
				out = append(out, op.url)
			}
		}
	}
	return out
}
