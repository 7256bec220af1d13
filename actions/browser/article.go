package browser

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Limits of the article extraction.
const (
	maxArticleElems = 100_000 // larger pages are shown whole
	minArticleChars = 250     // a shorter "article" is not trusted
)

// RestHeading introduces, below the article, the rest of the page (menus,
// related links, comments), which stays readable.
const RestHeading = "## The rest of the page"

// article finds the page's main content with the Go port of Mozilla's
// Readability (readeck/go-readability), on a copy of the tree. It returns
// nil when the page has no article worth the name (a home page, a search
// form, a list of links).
func article(root *html.Node, base *url.URL) (*html.Node, string) {
	p := readability.NewParser()
	p.MaxElemsToParse = maxArticleElems
	a, err := p.ParseDocument(root, base)
	if err != nil || a.Node == nil {
		return nil, ""
	}
	if len(strings.TrimSpace(textOf(a.Node, maxText))) < minArticleChars {
		return nil, a.Title()
	}
	return a.Node, a.Title()
}

// withoutArticle drops from rest the paragraphs the article already shows.
func withoutArticle(rest, art string) string {
	seen := map[string]bool{}
	for _, p := range strings.Split(art, "\n") {
		if k := collapseSpace(p); len(k) > 3 {
			seen[k] = true
		}
	}
	var kept []string
	for _, p := range strings.Split(rest, "\n") {
		if !seen[collapseSpace(p)] {
			kept = append(kept, p)
		}
	}
	return tidyText(strings.Join(kept, "\n"))
}

// metaTitle is the page's own name for its content: og:title or
// twitter:title, else a JSON-LD headline, else fallback (Readability's
// reading of <title>, which drops a site name after a separator), else the
// <title> or first <h1>.
func metaTitle(root *html.Node, fallback string) string {
	var og, tw, ld string
	walk(root, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.Meta:
			key := strings.ToLower(attr(n, "property") + attr(n, "name"))
			switch key {
			case "og:title":
				og = firstNonEmpty(og, attr(n, "content"))
			case "twitter:title":
				tw = firstNonEmpty(tw, attr(n, "content"))
			}
		case atom.Script:
			if strings.EqualFold(attr(n, "type"), "application/ld+json") && ld == "" {
				ld = ldHeadline(textOf(n, 1<<20))
			}
		case atom.Body:
			return false // metadata lives in the head
		}
		return true
	})
	for _, t := range []string{og, ld, tw, fallback, pageTitle(root)} {
		if t = collapseSpace(strings.ToValidUTF8(t, "\uFFFD")); t != "" {
			if r := []rune(t); len(r) > maxTitle {
				t = string(r[:maxTitle]) + "…"
			}
			return t
		}
	}
	return ""
}

func firstNonEmpty(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// ldHeadline reads "headline" (or "name" of an Article) from JSON-LD, which
// may be one object, a list, or an object with an @graph list.
func ldHeadline(s string) string {
	var v any
	if json.Unmarshal([]byte(strings.TrimSpace(s)), &v) != nil {
		return ""
	}
	var find func(v any, depth int) string
	find = func(v any, depth int) string {
		if depth > 4 {
			return ""
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				if h := find(e, depth+1); h != "" {
					return h
				}
			}
		case map[string]any:
			if h, ok := x["headline"].(string); ok && strings.TrimSpace(h) != "" {
				return h
			}
			if g, ok := x["@graph"]; ok {
				return find(g, depth+1)
			}
		}
		return ""
	}
	return find(v, 0)
}

// decodeRedirect returns the target of a search engine's click-tracking
// link — DuckDuckGo "/l/?uddg=", Google "/url?q=" (or url=), Bing
// "/ck/a?...&u=a1<base64>" — and u itself for any other address.
func decodeRedirect(u *url.URL) *url.URL {
	if u == nil {
		return u
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	q := u.Query()
	var target string
	switch {
	case strings.HasSuffix(host, "duckduckgo.com") && strings.HasPrefix(u.Path, "/l/"):
		target = q.Get("uddg")
	case (strings.HasPrefix(host, "google.") || strings.Contains(host, ".google.")) && u.Path == "/url":
		target = firstNonEmpty(q.Get("q"), q.Get("url"))
	case strings.HasSuffix(host, "bing.com") && strings.HasPrefix(u.Path, "/ck/a"):
		if enc, ok := strings.CutPrefix(q.Get("u"), "a1"); ok {
			if b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "=")); err == nil {
				target = string(b)
			}
		}
	}
	t, err := url.Parse(target)
	if target == "" || err != nil || (t.Scheme != "http" && t.Scheme != "https") || t.Host == "" {
		return u
	}
	return t
}
