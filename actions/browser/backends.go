package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// Public endpoints of the search services.
const (
	DuckDuckGoURL = "https://html.duckduckgo.com/html/"
	BraveURL      = "https://api.search.brave.com/res/v1/web/search"
	SerperURL     = "https://google.serper.dev/search"
)

// DuckDuckGo searches through DuckDuckGo's HTML results page; it needs no key.
// The page can answer with a bot check when used heavily; that is reported as
// an error suggesting another backend.
type DuckDuckGo struct {
	BaseURL   string       // results page; "" means DuckDuckGoURL
	Client    *http.Client // nil means http.DefaultClient
	UserAgent string       // "" means DefaultUserAgent
}

var isoDate = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)

// Search implements SearchBackend.
func (d DuckDuckGo) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	form := url.Values{"q": {q.Text}, "b": {""}}
	if q.Year != 0 {
		from, to := yearRange(q.Year)
		form.Set("df", from+".."+to)
	}
	endpoint := orDefault(d.BaseURL, DuckDuckGoURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, fmt.Errorf("duckduckgo: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", orDefault(d.UserAgent, DefaultUserAgent))
	req.Header.Set("Accept", "text/html")
	c := d.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("duckduckgo: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIBytes))
	if err != nil {
		return nil, fmt.Errorf("duckduckgo: read results: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("duckduckgo: HTTP %d (DuckDuckGo limits automated searches; try again later or configure another search backend)", resp.StatusCode)
	}
	return parseDuckDuckGo(body, count(q))
}

// parseDuckDuckGo reads results from html.duckduckgo.com markup: div.result
// blocks (ads carry result--ad) holding a.result__a (title, a /l/?uddg=
// redirect), a.result__snippet and an optional date in .result__extras__url.
func parseDuckDuckGo(page []byte, limit int) ([]SearchResult, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("duckduckgo: parse results: %w", err)
	}
	if doc.Find(".anomaly-modal, #challenge-form, .challenge-form").Length() > 0 {
		return nil, fmt.Errorf("duckduckgo: the search was refused with a bot check; try again later or configure another search backend")
	}
	var out []SearchResult
	doc.Find("div.result").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if s.HasClass("result--ad") {
			return true
		}
		a := s.Find("a.result__a").First()
		link := ddgLink(a.AttrOr("href", ""))
		if link == "" {
			return true
		}
		r := SearchResult{Title: oneLine(a.Text()), URL: link, Snippet: oneLine(s.Find(".result__snippet").First().Text())}
		s.Find(".result__extras__url span, .result__timestamp").EachWithBreak(func(_ int, sp *goquery.Selection) bool {
			if m := isoDate.FindString(sp.Text()); m != "" {
				r.Date = m
				return false
			}
			return true
		})
		out = append(out, r)
		return len(out) < limit
	})
	return out, nil
}

// ddgLink unwraps DuckDuckGo's redirect link; ads (y.js) and non-web links
// give "".
func ddgLink(href string) string {
	href = strings.TrimSpace(href)
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(u.Hostname(), "duckduckgo.com") || u.Host == "" {
		if u.Path == "/y.js" {
			return ""
		}
		if t := u.Query().Get("uddg"); t != "" {
			href = t
			if u, err = url.Parse(href); err != nil {
				return ""
			}
		}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return href
}

// SearXNG searches a SearXNG instance through its JSON API (the instance must
// enable the json format). SearXNG has no filter by calendar year, so a year
// is added to the query and results dated in another year are dropped.
type SearXNG struct {
	BaseURL string       // instance address, e.g. "http://localhost:8888"
	Client  *http.Client // nil means http.DefaultClient
}

// Search implements SearchBackend.
func (s SearXNG) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	endpoint := strings.TrimRight(s.BaseURL, "/")
	if !strings.HasSuffix(endpoint, "/search") {
		endpoint += "/search"
	}
	text := q.Text
	if q.Year != 0 {
		text += " " + strconv.Itoa(q.Year)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"?"+url.Values{
		"q": {text}, "format": {"json"}, "pageno": {"1"},
	}.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("searxng: %w", err)
	}
	var ans struct {
		Results []struct {
			URL           string  `json:"url"`
			Title         string  `json:"title"`
			Content       string  `json:"content"`
			PublishedDate *string `json:"publishedDate"`
		} `json:"results"`
	}
	if err := getJSON(s.Client, req, "searxng", &ans); err != nil {
		return nil, err
	}
	var out []SearchResult
	for _, r := range ans.Results {
		date := ""
		if r.PublishedDate != nil {
			date = isoDate.FindString(*r.PublishedDate)
		}
		if q.Year != 0 && date != "" && !strings.HasPrefix(date, strconv.Itoa(q.Year)) {
			continue
		}
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Date: date, Snippet: r.Content})
		if len(out) == count(q) {
			break
		}
	}
	return out, nil
}

// Brave searches with the Brave Search API (X-Subscription-Token).
type Brave struct {
	BaseURL string // web search endpoint; "" means BraveURL
	APIKey  string
	Client  *http.Client // nil means http.DefaultClient
}

// Search implements SearchBackend.
func (b Brave) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	v := url.Values{"q": {q.Text}, "count": {strconv.Itoa(min(count(q), 20))}}
	if q.Year != 0 {
		from, to := yearRange(q.Year)
		v.Set("freshness", from+"to"+to)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, orDefault(b.BaseURL, BraveURL)+"?"+v.Encode(), nil)
	if err != nil {
		return nil, fmt.Errorf("brave: %w", err)
	}
	req.Header.Set("X-Subscription-Token", b.APIKey)
	var ans struct {
		Web struct {
			Results []struct {
				Title       string `json:"title"`
				URL         string `json:"url"`
				Description string `json:"description"`
				Age         string `json:"age"`
				PageAge     string `json:"page_age"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := getJSON(b.Client, req, "brave", &ans); err != nil {
		return nil, err
	}
	var out []SearchResult
	for _, r := range ans.Web.Results {
		date := isoDate.FindString(r.PageAge)
		if date == "" {
			date = r.Age
		}
		out = append(out, SearchResult{Title: stripTags(r.Title), URL: r.URL, Date: date, Snippet: stripTags(r.Description)})
	}
	return out, nil
}

// Serper searches Google through serper.dev (POST JSON, X-API-KEY).
type Serper struct {
	BaseURL string // search endpoint; "" means SerperURL
	APIKey  string
	Client  *http.Client // nil means http.DefaultClient
}

// Search implements SearchBackend.
func (s Serper) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	body := map[string]any{"q": q.Text, "num": count(q)}
	if q.Year != 0 {
		body["tbs"] = fmt.Sprintf("cdr:1,cd_min:1/1/%d,cd_max:12/31/%d", q.Year, q.Year)
	}
	data, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, orDefault(s.BaseURL, SerperURL), bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("serper: %w", err)
	}
	req.Header.Set("X-API-KEY", s.APIKey)
	req.Header.Set("Content-Type", "application/json")
	var ans struct {
		Organic []struct {
			Title   string `json:"title"`
			Link    string `json:"link"`
			Snippet string `json:"snippet"`
			Date    string `json:"date"`
		} `json:"organic"`
	}
	if err := getJSON(s.Client, req, "serper", &ans); err != nil {
		return nil, err
	}
	var out []SearchResult
	for _, r := range ans.Organic {
		out = append(out, SearchResult{Title: r.Title, URL: r.Link, Date: r.Date, Snippet: r.Snippet})
	}
	return out, nil
}

var tags = regexp.MustCompile(`<[^>]*>`)

func stripTags(s string) string { return html.UnescapeString(tags.ReplaceAllString(s, "")) }

// orDefault returns s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
