package checks

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"time"
)

// chromeGetters are OSWorld's getters/chrome.py that read the browser's
// profile (~/.config/google-chrome) and its DevTools endpoint (port 9222).
func chromeGetters() map[string]Getter {
	pref := func(f func(map[string]any) any, fallback any) Getter {
		return Getter{Fn: func(ctx context.Context, env Env, _ map[string]any) (any, error) {
			data, err := chromeJSON(env, "Default/Preferences")
			if err != nil {
				return fallback, nil // OSWorld logs the error and returns its default
			}
			return f(data), nil
		}}
	}
	return map[string]Getter{
		"bookmarks": {Fn: getBookmarks},
		"default_search_engine": pref(func(d map[string]any) any {
			return dig(d, "Google", "default_search_provider_data", "template_url_data", "short_name")
		}, "Google"),
		"profile_name": pref(func(d map[string]any) any { return dig(d, nil, "profile", "name") }, nil),
		"chrome_font_size": pref(func(d map[string]any) any {
			return dig(d, map[string]any{"default_fixed_font_size": int64(13), "default_font_size": int64(16), "minimum_font_size": int64(13)}, "webkit", "webprefs")
		}, map[string]any{"default_fixed_font_size": int64(13), "default_font_size": int64(16)}),
		"enable_do_not_track": pref(func(d map[string]any) any {
			return pyBoolStr(PyTruthy(d["enable_do_not_track"]))
		}, "false"),
		"enable_enhanced_safety_browsing": pref(func(d map[string]any) any {
			return pyBoolStr(PyTruthy(dig(d, nil, "safebrowsing", "enhanced")))
		}, "Google"),
		"new_startup_page": pref(func(d map[string]any) any {
			if _, ok := d["session"]; !ok {
				return "true"
			}
			return pyBoolStr(PyEqual(dig(d, nil, "session", "restore_on_startup"), int64(5)))
		}, "Google"),
		"data_delete_automacally":       pref(dataDeleteAutomatically, "Google"),
		"find_unpacked_extension_path":  pref(func(d map[string]any) any { return extensionField(d, "path") }, "Google"),
		"find_installed_extension_name": pref(func(d map[string]any) any { return extensionField(d, "name") }, "Google"),
		"enabled_experiments": {Fn: func(ctx context.Context, env Env, _ map[string]any) (any, error) {
			data, err := chromeJSON(env, "Local State")
			if err != nil {
				return []any{}, nil
			}
			return dig(data, []any{}, "browser", "enabled_labs_experiments"), nil
		}},
		"open_tabs_info": {Fn: getOpenTabsInfo},
	}
}

// dataDeleteAutomatically is get_data_delete_automacally: "true" when the
// profile has default content settings (clearing data on exit is one,
// cookies 4). Chromium 156 keeps markers of its own migrations there in every
// profile (has_migrated_local_network_access), which the Chrome of OSWorld's
// VM predates: with them, a browser left as it was passed. Markers alone
// count as none.
func dataDeleteAutomatically(d map[string]any) any {
	p, _ := d["profile"].(map[string]any)
	v, ok := p["default_content_setting_values"]
	if m, isMap := v.(map[string]any); isMap {
		ok = false
		for k := range m {
			ok = ok || !strings.HasPrefix(k, "has_migrated_")
		}
	}
	return pyBoolStr(ok && v != nil)
}

func pyBoolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// dig follows keys through nested objects, as chained .get(k, {}) calls do;
// def is the last .get's default.
func dig(m map[string]any, def any, keys ...string) any {
	var v any = m
	for i, k := range keys {
		o, ok := v.(map[string]any)
		if !ok {
			return def
		}
		v, ok = o[k]
		if !ok {
			if i == len(keys)-1 {
				return def
			}
			return def
		}
	}
	return v
}

// extensionField lists extensions.settings[*].path or .manifest.name.
func extensionField(d map[string]any, field string) any {
	set, _ := dig(d, map[string]any{}, "extensions", "settings").(map[string]any)
	out := []any{}
	for _, v := range set {
		e, _ := v.(map[string]any)
		if field == "path" {
			out = append(out, e["path"])
		} else {
			out = append(out, dig(e, nil, "manifest", "name"))
		}
	}
	return out
}

// chromeProfile is the browser's profile folder in the task's home: Google
// Chrome's, else Chromium's (deskpilot runs Chromium as google-chrome).
func chromeProfile(env Env) string {
	for _, p := range []string{"~/.config/google-chrome", "~/.config/chromium"} {
		if full := env.Path(p); isDir(full) {
			return full
		}
	}
	return env.Path("~/.config/google-chrome")
}

func chromeJSON(env Env, name string) (map[string]any, error) {
	text, err := readText(filepath.Join(chromeProfile(env), name))
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := decodeJSON([]byte(text), &m); err != nil {
		return nil, err
	}
	return m, nil
}

// getBookmarks is the Bookmarks file's "roots" ([] when there is no file).
func getBookmarks(_ context.Context, env Env, _ map[string]any) (any, error) {
	text, err := readText(filepath.Join(chromeProfile(env), "Default", "Bookmarks"))
	if err != nil || text == "" {
		return []any{}, nil
	}
	var m map[string]any
	if err := decodeJSON([]byte(text), &m); err != nil {
		return nil, fmt.Errorf("bookmarks: %w", err)
	}
	return dig(m, map[string]any{}, "roots"), nil
}

// devtools sends GET path to the browser's DevTools endpoint in the box.
func devtools(ctx context.Context, env Env, path string) ([]byte, error) {
	return devtoolsDo(ctx, env, http.MethodGet, path)
}

// devtoolsDo sends an HTTP request to the DevTools endpoint.
func devtoolsDo(ctx context.Context, env Env, method, path string) ([]byte, error) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return env.Dial(ctx, 9222) },
	}}
	req, err := http.NewRequestWithContext(ctx, method, "http://127.0.0.1:9222"+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("devtools %s: %s", path, resp.Status)
	}
	return io.ReadAll(io.LimitReader(bufio.NewReader(resp.Body), 8<<20))
}

// getOpenTabsInfo lists the browser's pages as {"title", "url"}; [] when the
// browser does not answer (OSWorld's fallback after its relaunch fails).
func getOpenTabsInfo(ctx context.Context, env Env, _ map[string]any) (any, error) {
	data, err := devtools(ctx, env, "/json/list")
	if err != nil {
		return []any{}, nil
	}
	var targets []struct {
		Type, Title, URL string
	}
	if err := json.Unmarshal(data, &targets); err != nil {
		return nil, fmt.Errorf("devtools /json/list: %w", err)
	}
	out := []any{}
	for i := len(targets) - 1; i >= 0; i-- { // DevTools lists the newest first
		t := targets[i]
		if t.Type == "page" {
			out = append(out, map[string]any{"title": t.Title, "url": t.URL})
		}
	}
	return out, nil
}

// chromeMetrics are OSWorld's metrics/chrome.py.
func chromeMetrics() map[string]Metric {
	return map[string]Metric{
		"is_expected_tabs":                 {Fn: isExpectedTabs},
		"is_expected_active_tab":           {Fn: isExpectedActiveTab},
		"is_expected_url_pattern_match":    {Fn: isExpectedURLPatternMatch, Check: rulesWith("expected")},
		"is_expected_installed_extensions": {Fn: isExpectedInstalledExtensions, Check: rulesWith("expected")},
		"is_expected_bookmarks":            {Fn: isExpectedBookmarks, Check: rulesWith("type")},
		"check_enabled_experiments":        {Fn: checkEnabledExperiments, Check: rulesWith("type")},
		"check_font_size":                  {Fn: checkFontSize, Check: rulesWith("type")},
		"is_expected_search_query":         {Fn: isExpectedSearchQuery, Check: rulesWith("expect")},
		"is_added_to_steam_cart":           {Fn: isAddedToSteamCart, Check: rulesWith("items")},
		"check_history_deleted":            {Fn: checkHistoryDeleted, Check: rulesWith("type")},
		"is_cookie_deleted":                {Fn: isCookieDeleted, Check: rulesWith("type")},
		"is_shortcut_on_desktop":           {Fn: isShortcutOnDesktop, Check: rulesWith("type")},
	}
}

// compareURLs is OSWorld's compare_urls: scheme (http when absent) and host
// lower-cased, "www." removed, a lone "/" path dropped.
func compareURLs(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	as, ok1 := a.(string)
	bs, ok2 := b.(string)
	if !ok1 || !ok2 {
		return false
	}
	return normalizeURL(as) == normalizeURL(bs)
}

// normalizeURL is OSWorld's normalize_url: Python's urlparse, the scheme
// defaulting to http, the netloc lower-cased without "www.", a path of "/"
// emptied, and urlunparse, with the rules of both (Python 3.10, the VM's):
// no percent-decoding, "example.com/a" is a path (so it differs from
// "http://example.com/a"), and an opaque URL (data:, about:, mailto:) keeps
// everything after its scheme.
func normalizeURL(s string) string {
	s = strings.TrimLeft(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	s = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(s)
	scheme, rest := "", s
	if i := strings.IndexByte(s, ':'); i > 0 && isASCIILetter(s[0]) && strings.Trim(s[:i], schemeChars) == "" {
		scheme, rest = strings.ToLower(s[:i]), s[i+1:]
	}
	netloc := ""
	if strings.HasPrefix(rest, "//") {
		end := len(rest)
		if j := strings.IndexAny(rest[2:], "/?#"); j >= 0 {
			end = 2 + j
		}
		netloc, rest = rest[2:end], rest[end:]
	}
	fragment, query := "", ""
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		rest, fragment = rest[:i], rest[i+1:]
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, query = rest[:i], rest[i+1:]
	}
	path, params := rest, ""
	if usesParams[scheme] && strings.Contains(path, ";") {
		from := max(strings.LastIndexByte(path, '/'), 0)
		if i := strings.IndexByte(path[from:], ';'); i >= 0 {
			path, params = path[:from+i], path[from+i+1:]
		}
	}
	if scheme == "" {
		scheme = "http"
	}
	netloc = strings.ReplaceAll(strings.ToLower(netloc), "www.", "")
	if path == "/" {
		path = ""
	}
	out := path
	if params != "" {
		out += ";" + params
	}
	if netloc != "" || usesNetloc[scheme] && !strings.HasPrefix(out, "//") {
		if out != "" && out[0] != '/' {
			out = "/" + out
		}
		out = "//" + netloc + out
	}
	out = scheme + ":" + out
	if query != "" {
		out += "?" + query
	}
	if fragment != "" {
		out += "#" + fragment
	}
	return out
}

// Python's urllib.parse tables: the characters of a scheme, and the schemes
// that take a netloc and ;params.
const schemeChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-."

var (
	usesNetloc = setOf("", "ftp", "http", "gopher", "nntp", "telnet", "imap", "wais", "file", "mms", "https", "shttp",
		"snews", "prospero", "rtsp", "rtspu", "rsync", "svn", "svn+ssh", "sftp", "nfs", "git", "git+ssh", "ws", "wss")
	usesParams = setOf("", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtspu", "sip", "sips",
		"mms", "sftp", "tel")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isExpectedTabs(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	if r["type"] != "url" {
		return Score{Note: fmt.Sprintf("unknown type %v", r["type"])}, nil
	}
	want, _ := r["urls"].([]any)
	tabs, _ := c.Result.([]any)
	var got []any
	for _, t := range tabs {
		m, _ := t.(map[string]any)
		got = append(got, m["url"])
	}
	if len(want) != len(got) {
		return Score{Note: fmt.Sprintf("%d tabs open, expected %d: %s", len(got), len(want), show(got))}, nil
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || compareURLs(w, g)
		}
		if !found {
			return Score{Note: fmt.Sprintf("no tab shows %s: %s", show(w), show(got))}, nil
		}
	}
	return Score{Value: 1}, nil
}

func isExpectedActiveTab(_ context.Context, c Call) (Score, error) {
	if !PyTruthy(c.Result) {
		return Score{Note: "no active tab"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	if r["type"] != "url" {
		return Score{Note: fmt.Sprintf("unknown type %v", r["type"])}, nil
	}
	got := c.Result
	if m, ok := got.(map[string]any); ok {
		got = m["url"]
	}
	if compareURLs(r["url"], got) {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("the active tab shows %s, expected %s", show(got), show(r["url"]))}, nil
}

func isExpectedURLPatternMatch(_ context.Context, c Call) (Score, error) {
	if !PyTruthy(c.Result) {
		return Score{Note: "no URL"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	u := c.Result
	if m, ok := u.(map[string]any); ok {
		u = m["url"]
	}
	us, _ := u.(string)
	pats, err := regexps(r["expected"])
	if err != nil {
		return Score{}, err
	}
	for _, p := range pats {
		if !p.MatchString(us) {
			return Score{Note: fmt.Sprintf("%s does not match %s", show(us), p)}, nil
		}
	}
	return Score{Value: 1}, nil
}

func isExpectedInstalledExtensions(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	want, _ := r["expected"].([]any)
	got, _ := c.Result.([]any)
	for _, w := range want {
		if in, _ := PyIn(w, got); !in {
			return Score{Note: fmt.Sprintf("%s is not installed", show(w))}, nil
		}
	}
	return Score{Value: 1}, nil
}

func isExpectedBookmarks(_ context.Context, c Call) (Score, error) {
	if !PyTruthy(c.Result) {
		return Score{Note: "no bookmarks"}, nil
	}
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	roots, _ := c.Result.(map[string]any)
	children, _ := dig(roots, nil, "bookmark_bar", "children").([]any)
	pick := func(kind, field string) []string {
		var out []string
		for _, b := range children {
			m, _ := b.(map[string]any)
			if m["type"] == kind {
				s, _ := m[field].(string)
				out = append(out, s)
			}
		}
		return out
	}
	switch r["type"] {
	case "bookmark_bar_folders_names":
		want, _ := strList(r["names"], "names")
		if sameSet(pick("folder", "name"), want) {
			return Score{Value: 1}, nil
		}
		return Score{Note: fmt.Sprintf("bookmark bar folders %q", pick("folder", "name"))}, nil
	case "bookmark_bar_websites_urls":
		want, _ := strList(r["urls"], "urls")
		if sameSet(pick("url", "url"), want) {
			return Score{Value: 1}, nil
		}
		return Score{Note: fmt.Sprintf("bookmark bar URLs %q", pick("url", "url"))}, nil
	case "liked_authors_websites_urls":
		var folder map[string]any
		for _, b := range children {
			m, _ := b.(map[string]any)
			if m["type"] == "folder" && m["name"] == "Liked Authors" {
				folder = m
				break
			}
		}
		if folder == nil {
			return Score{Note: "no Liked Authors folder"}, nil
		}
		var got []string
		fc, _ := folder["children"].([]any)
		for _, b := range fc {
			m, _ := b.(map[string]any)
			if m["type"] == "url" {
				s, _ := m["url"].(string)
				got = append(got, s)
			}
		}
		urls, _ := r["urls"].([]any)
		choices := make([][]string, len(urls))
		for i, u := range urls {
			if s, ok := u.(string); ok {
				choices[i] = []string{s}
			} else {
				choices[i], _ = strList(u, "urls")
			}
		}
		if anyCombination(choices, nil, func(pick []string) bool { return sameSet(pick, got) }) {
			return Score{Value: 1}, nil
		}
		return Score{Note: fmt.Sprintf("Liked Authors holds %q", got)}, nil
	}
	return Score{}, fmt.Errorf("%v not support yet", r["type"])
}

// anyCombination reports whether f holds for one choice from each list.
func anyCombination(choices [][]string, picked []string, f func([]string) bool) bool {
	if len(picked) == len(choices) {
		return f(picked)
	}
	for _, c := range choices[len(picked)] {
		if anyCombination(choices, append(picked, c), f) {
			return true
		}
	}
	return false
}

func checkEnabledExperiments(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	if r["type"] != "names" {
		return Score{}, fmt.Errorf("%v not support yet", r["type"])
	}
	l, _ := c.Result.([]any)
	var names []any
	for _, e := range l {
		s, _ := e.(string)
		names = append(names, strings.SplitN(s, "@", 2)[0])
	}
	if names == nil {
		names = []any{}
	}
	if PyEqual(names, r["names"]) {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("experiments %s, expected %s", show(names), show(r["names"]))}, nil
}

func checkFontSize(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	m, err := obj(c.Result, "font size")
	if err != nil {
		return Score{}, err
	}
	size, err := key(m, "default_font_size")
	if err != nil {
		return Score{}, err
	}
	switch r["type"] {
	case "value":
		if PyEqual(size, r["value"]) {
			return Score{Value: 1}, nil
		}
	case "range":
		lo, err1 := pyCompare(r["min"], size)
		hi, err2 := pyCompare(size, r["max"])
		if err1 != nil || err2 != nil {
			return Score{}, fmt.Errorf("font size range: %v %v", err1, err2)
		}
		if lo < 0 && hi < 0 {
			return Score{Value: 1}, nil
		}
	default:
		return Score{}, fmt.Errorf("%v not support yet", r["type"])
	}
	return Score{Note: fmt.Sprintf("the default font size is %s", show(size))}, nil
}

func isExpectedSearchQuery(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	m, err := obj(c.Result, "active tab")
	if err != nil {
		return Score{}, err
	}
	pat, _ := dig(r, nil, "expect", "pattern").(string)
	re, err := pyRegexp(pat)
	if err != nil {
		return Score{}, err
	}
	u, _ := m["url"].(string)
	if re.MatchString(u) {
		return Score{Value: 1}, nil
	}
	return Score{Note: fmt.Sprintf("%s does not match %s", show(u), pat)}, nil
}

func isAddedToSteamCart(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	m, err := obj(c.Result, "active tab")
	if err != nil {
		return Score{}, err
	}
	content, _ := m["content"].(string)
	items, _ := strList(r["items"], "items")
	for _, it := range items {
		if !strings.Contains(content, it) {
			return Score{Note: fmt.Sprintf("the page lacks %q", it)}, nil
		}
	}
	return Score{Value: 1}, nil
}

func checkHistoryDeleted(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	if r["type"] != "keywords" {
		return Score{}, fmt.Errorf("%v not support yet", r["type"])
	}
	rows, _ := c.Result.([]any)
	kws, _ := strList(r["keywords"], "keywords")
	for _, kw := range kws {
		for _, row := range rows {
			l, _ := row.([]any)
			if len(l) > 0 {
				if s, _ := l[0].(string); strings.Contains(s, kw) {
					return Score{Note: fmt.Sprintf("the history still has %s", s)}, nil
				}
			}
		}
	}
	return Score{Value: 1}, nil
}

func isCookieDeleted(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	if r["type"] != "domains" {
		return Score{}, fmt.Errorf("%v not support yet", r["type"])
	}
	rows, ok := c.Result.([]any)
	if !ok {
		return Score{}, fmt.Errorf("'NoneType' object is not iterable (no cookie data)")
	}
	domains, _ := r["domains"].([]any)
	for _, d := range domains {
		for _, row := range rows {
			l, _ := row.([]any)
			if len(l) > 1 && compareURLs(d, l[1]) {
				return Score{Note: fmt.Sprintf("a cookie of %s remains", show(d))}, nil
			}
		}
	}
	return Score{Value: 1}, nil
}

func isShortcutOnDesktop(_ context.Context, c Call) (Score, error) {
	r, err := rules(c)
	if err != nil {
		return Score{}, err
	}
	if r["type"] != "name" {
		return Score{}, fmt.Errorf("%v not support yet", r["type"])
	}
	name, _ := r["name"].(string)
	m, _ := c.Result.(map[string]any)
	for _, v := range m {
		if s, _ := v.(string); strings.Contains(s, "Name="+name+"\n") {
			return Score{Value: 1}, nil
		}
	}
	return Score{Note: fmt.Sprintf("no desktop shortcut named %q", name)}, nil
}
