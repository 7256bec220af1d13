package checks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// This file is OSWorld's getters of the browser's active tab. OSWorld reads
// the active tab's URL from the text of Chrome's address bar in the
// accessibility tree ("Address and search bar"), which Chrome shows without
// "https://" and "www.", and puts the task's goto_prefix (default
// "https://") before it. Here the URL comes from the DevTools endpoint
// instead (the active tab is the first page of /json/list) and is shortened
// the way the address bar shows it, so the tasks' prefixes give what they
// give in OSWorld.

// activeTabGetters are the getters of the active tab.
func activeTabGetters() map[string]Getter {
	return map[string]Getter{
		"gotoRecreationPage_and_get_html_content": recreationGetter(),
		"active_url_from_accessTree":              {Fn: getActiveURL},
		"active_tab_info":                         {Fn: getActiveTabInfo},
		"page_info":                               {Fn: getPageInfo, Check: needStrings("url")},
		"pdf_from_url":                            {Fn: getPDFFromURL, Check: needStrings("path", "dest")},
		"active_tab_url_parse":                    {Fn: getActiveTabURLParse, Check: needList("parse_keys")},
		"url_dashPart":                            {Fn: getURLDashPart, Check: needKeys("partIndex", "needDeleteId", "returnType")},
		"active_tab_html_parse":                   {Fn: getActiveTabHTMLParse, Check: needKeys("category")},
		"info_from_website":                       {Fn: getInfoFromWebsite},
	}
}

func needKeys(keys ...string) func(map[string]any) error {
	return func(cfg map[string]any) error {
		for _, k := range keys {
			if _, ok := cfg[k]; !ok {
				return fmt.Errorf("needs %q", k)
			}
		}
		return nil
	}
}

func needList(k string) func(map[string]any) error {
	return func(cfg map[string]any) error {
		_, err := strList(cfg[k], k)
		return err
	}
}

// addressBarText is what Chrome's address bar shows for u when it is not
// being edited: http(s) URLs without the scheme and a leading "www.", and
// without the "/" of a bare root path; the new-tab page shows nothing.
func addressBarText(u string) string {
	switch strings.TrimSuffix(u, "/") {
	case "chrome://newtab", "chrome://new-tab-page", "chrome-search://local-ntp/local-ntp.html":
		return ""
	}
	lower := strings.ToLower(u)
	var rest string
	switch {
	case strings.HasPrefix(lower, "https://"):
		rest = u[len("https://"):]
	case strings.HasPrefix(lower, "http://"):
		rest = u[len("http://"):]
	default:
		return u
	}
	if strings.HasPrefix(strings.ToLower(rest), "www.") {
		rest = rest[len("www."):]
	}
	if strings.Count(rest, "/") == 1 && strings.HasSuffix(rest, "/") {
		rest = strings.TrimSuffix(rest, "/")
	}
	return rest
}

// activeTabURL is get_active_url_from_accessTree: goto_prefix and the
// address bar's text; ok is false for Python's None (no browser, no tab, an
// empty address bar).
func activeTabURL(ctx context.Context, env Env, cfg map[string]any) (string, bool) {
	ts, err := listTargets(ctx, env)
	if err != nil {
		return "", false
	}
	for _, t := range ts {
		if t.Type != "page" {
			continue
		}
		text := addressBarText(t.URL)
		if text == "" {
			return "", false
		}
		prefix := "https://"
		if p, ok := cfg["goto_prefix"]; ok {
			prefix = PyStr(p)
		}
		return prefix + text, true
	}
	return "", false
}

func getActiveURL(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	u, ok := activeTabURL(ctx, env, cfg)
	if !ok {
		return nil, nil
	}
	return u, nil
}

// pageLoadTimeout is Playwright's default navigation timeout.
const pageLoadTimeout = 30 * time.Second

// getActiveTabInfo is get_active_tab_info: the active tab's URL opened in a
// new page, and that page's title, URL and HTML once it has loaded; None
// when there is no URL or the page does not load.
func getActiveTabInfo(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	u, ok := activeTabURL(ctx, env, cfg)
	if !ok {
		return nil, nil
	}
	info, err := openPage(ctx, env, u)
	if err != nil {
		return nil, nil // OSWorld returns None when the page does not open
	}
	return info, nil
}

// getPageInfo is get_page_info: the config's url opened in a new page, its
// {title, url, content}. A browser that does not answer, or a page that does
// not load within 30 s, is an error, as Playwright's.
func getPageInfo(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	u, err := strKey(cfg, "url")
	if err != nil {
		return nil, err
	}
	return openPage(ctx, env, u)
}

// openPage opens u in a new tab of the browser, waits for its load event
// (at most pageLoadTimeout), reads {title, url, content} as Playwright's
// page.title(), page.url and page.content() give them, and closes the tab.
func openPage(ctx context.Context, env Env, u string) (map[string]any, error) {
	var info struct{ Title, URL, Content string }
	err := withPage(ctx, env, u, func(ctx context.Context, s *cdpSession) error {
		return s.eval(ctx, `({Title: document.title, URL: location.href, Content: `+pageContentJS+`})`, &info)
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{"title": info.Title, "url": info.URL, "content": info.Content}, nil
}

// withPage runs f on a new tab that has loaded u, then closes the tab.
func withPage(ctx context.Context, env Env, u string, f func(context.Context, *cdpSession) error) error {
	data, err := devtoolsDo(ctx, env, "PUT", "/json/new")
	if err != nil {
		return err
	}
	var t devtoolsTarget
	if err := json.Unmarshal(data, &t); err != nil || t.WS == "" {
		return fmt.Errorf("devtools /json/new: no page (%v)", err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		devtools(cctx, env, "/json/close/"+url.PathEscape(t.ID)) //nolint:errcheck // the page may be gone
	}()
	s, err := dialCDP(ctx, env, t.WS)
	if err != nil {
		return err
	}
	defer s.close()
	lctx, cancel := context.WithTimeout(ctx, pageLoadTimeout)
	defer cancel()
	if err := s.navigate(lctx, u); err != nil {
		return err // Playwright's goto raises, also on its timeout
	}
	return f(ctx, s)
}

// getActiveTabURLParse is get_active_tab_url_parse: the query parameters
// parse_keys names (the first value of each, "" when absent), renamed by
// replace.
func getActiveTabURLParse(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	u, ok := activeTabURL(ctx, env, cfg)
	if !ok {
		return nil, nil
	}
	keys, err := strList(cfg["parse_keys"], "parse_keys")
	if err != nil {
		return nil, err
	}
	q := pyParseQS(urlQuery(u))
	out := map[string]any{}
	for _, k := range keys {
		v := ""
		if vs := q[k]; len(vs) > 0 {
			v = vs[0]
		}
		out[k] = v
	}
	if r, ok := cfg["replace"]; ok {
		m, err := obj(r, "replace")
		if err != nil {
			return nil, err
		}
		for from, to := range m {
			v, ok := out[from]
			if !ok {
				return nil, fmt.Errorf("replace: KeyError %q", from)
			}
			delete(out, from)
			out[PyStr(to)] = v
		}
	}
	return out, nil
}

// urlQuery is urlparse(u).query: after the first "?", before the "#".
func urlQuery(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[i+1:]
	}
	return ""
}

// pyParseQS is urllib.parse.parse_qs with its defaults: "&"-separated
// fields, those without "=" or with an empty value dropped, "+" as a space,
// percent escapes decoded as UTF-8 with replacement.
func pyParseQS(q string) map[string][]string {
	out := map[string][]string{}
	for _, f := range strings.Split(q, "&") {
		name, value, ok := strings.Cut(f, "=")
		if !ok || value == "" {
			continue
		}
		n := pyUnquote(strings.ReplaceAll(name, "+", " "))
		out[n] = append(out[n], pyUnquote(strings.ReplaceAll(value, "+", " ")))
	}
	return out
}

// pyUnquote is urllib.parse.unquote: %XX escapes decoded, invalid ones
// kept, the bytes read as UTF-8 with U+FFFD for what is not.
func pyUnquote(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s)+0 && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// getURLDashPart is get_url_dashPart: the partIndex-th "/"-separated part of
// the active URL (negative counts from the end), without its query when
// needDeleteId; a string, or {key: part} for returnType "json".
func getURLDashPart(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	u, ok := activeTabURL(ctx, env, cfg)
	if !ok {
		return nil, nil
	}
	parts := strings.Split(u, "/")
	i, ok := pyInt(cfg["partIndex"])
	if !ok {
		return nil, errors.New("partIndex: want an integer")
	}
	if i < 0 {
		i += len(parts)
	}
	if i < 0 || i >= len(parts) {
		return nil, fmt.Errorf("partIndex %v: IndexError: list index out of range", cfg["partIndex"])
	}
	part := parts[i]
	if PyTruthy(cfg["needDeleteId"]) {
		part, _, _ = strings.Cut(part, "?")
	}
	switch cfg["returnType"] {
	case "string":
		return part, nil
	case "json":
		k, err := key(cfg, "key")
		if err != nil {
			return nil, err
		}
		return map[string]any{PyStr(k): part}, nil
	}
	return nil, nil
}

// getPDFFromURL is get_pdf_from_url: the config's path (a URL) opened in a
// new page and printed to PDF (Playwright's page.pdf: DevTools'
// Page.printToPDF with its defaults, backgrounds off) as dest in the cache
// folder. A browser that does not answer, or a page that does not load, is
// an error, as Playwright's.
func getPDFFromURL(ctx context.Context, env Env, cfg map[string]any) (any, error) {
	u, err := strKey(cfg, "path")
	if err != nil {
		return nil, err
	}
	dest, err := strKey(cfg, "dest")
	if err != nil {
		return nil, err
	}
	if !filepath.IsLocal(dest) {
		return nil, fmt.Errorf("dest %q must be a file name", dest)
	}
	var pdf []byte
	err = withPage(ctx, env, u, func(ctx context.Context, s *cdpSession) error {
		res, err := s.call(ctx, "Page.printToPDF", map[string]any{"printBackground": false, "preferCSSPageSize": false})
		if err != nil {
			return err
		}
		var r struct {
			Data []byte `json:"data"` // base64 in the JSON
		}
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		pdf = r.Data
		return nil
	})
	if err != nil {
		return nil, err
	}
	dst := filepath.Join(env.CacheDir(), dest)
	if err := os.WriteFile(dst, pdf, 0o600); err != nil {
		return nil, err
	}
	return dst, nil
}
