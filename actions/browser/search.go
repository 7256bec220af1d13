package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// SearchBackend answers a web search. Implementations here: DuckDuckGo,
// SearXNG, Brave and Serper. They must be safe for concurrent use.
type SearchBackend interface {
	Search(ctx context.Context, q SearchQuery) ([]SearchResult, error)
}

// SearchQuery is one web search.
type SearchQuery struct {
	Text  string
	Year  int // only results published that year; 0 means any time
	Count int // results wanted; 0 means 10
}

// SearchResult is one hit.
type SearchResult struct {
	Title   string
	URL     string
	Date    string // publication date as the backend gives it; may be ""
	Snippet string
}

// maxAPIBytes caps a search or archive API response.
const maxAPIBytes = 4 << 20

// NewSearchBackend returns the backend named in the config: "duckduckgo"
// (the default for ""), "searxng" (baseURL required), "brave" or "serper"
// (apiKey required). baseURL "" means the service's public endpoint; client
// nil means http.DefaultClient.
func NewSearchBackend(name, baseURL, apiKey string, client *http.Client) (SearchBackend, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", "duckduckgo", "ddg":
		return DuckDuckGo{BaseURL: baseURL, Client: client}, nil
	case "searxng", "searx":
		if baseURL == "" {
			return nil, errors.New("search: searxng needs the address of an instance (base URL)")
		}
		return SearXNG{BaseURL: baseURL, Client: client}, nil
	case "brave":
		if apiKey == "" {
			return nil, errors.New("search: brave needs an API key")
		}
		return Brave{BaseURL: baseURL, APIKey: apiKey, Client: client}, nil
	case "serper":
		if apiKey == "" {
			return nil, errors.New("search: serper needs an API key")
		}
		return Serper{BaseURL: baseURL, APIKey: apiKey, Client: client}, nil
	}
	return nil, fmt.Errorf("search: unknown backend %q; choose duckduckgo, searxng, brave or serper", name)
}

// Search runs a web search with the configured backend and shows the results
// as a numbered markdown list (title and link, date, snippet). The results
// page is never split into viewports. year 0 means any time.
func (b *Browser) Search(ctx context.Context, query string, year int) (string, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return "", errors.New("browser: web_search needs a query")
	}
	if year != 0 && (year < 1900 || year > 2200) {
		return "", fmt.Errorf("browser: web_search year %d is not a plausible year; pass a year like 2023 or None", year)
	}
	ctx, cancel := context.WithTimeout(ctx, b.opts.Timeout)
	defer cancel()
	results, err := b.opts.Search.Search(ctx, SearchQuery{Text: query, Year: year, Count: 10})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("browser: search %q: timed out after %s: %w", query, b.opts.Timeout, context.DeadlineExceeded)
		}
		return "", fmt.Errorf("browser: search %q: %w", query, err)
	}
	p := newPage("search: "+query, "Search results for '"+query+"'", formatResults(query, year, results), b.opts.Viewport, false)
	return b.show(p), nil
}

// formatResults renders results as a numbered markdown list.
func formatResults(query string, year int, results []SearchResult) string {
	within := ""
	if year != 0 {
		within = fmt.Sprintf(" (published in %d)", year)
	}
	if len(results) == 0 {
		hint := "Try a broader query: fewer, more general words"
		if year != 0 {
			hint += ", or no year filter"
		}
		return fmt.Sprintf("No results found for '%s'%s. %s.", query, within, hint)
	}
	var b strings.Builder
	noun := "results"
	if len(results) == 1 {
		noun = "result"
	}
	fmt.Fprintf(&b, "A web search for '%s'%s found %d %s:\n\n## Web Results\n", query, within, len(results), noun)
	for i, r := range results {
		title := oneLine(r.Title)
		if title == "" {
			title = r.URL
		}
		fmt.Fprintf(&b, "\n%d. [%s](%s)\n", i+1, strings.ReplaceAll(title, "]", "\\]"), r.URL)
		if r.Date != "" {
			fmt.Fprintf(&b, "   Date published: %s\n", oneLine(r.Date))
		}
		if s := oneLine(r.Snippet); s != "" {
			fmt.Fprintf(&b, "   %s\n", s)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// getJSON sends req with c and decodes a JSON answer into v, naming the
// service in errors.
func getJSON(c *http.Client, req *http.Request, service string, v any) error {
	if c == nil {
		c = http.DefaultClient
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", service, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIBytes))
	if err != nil {
		return fmt.Errorf("%s: read answer: %w", service, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %s", service, resp.StatusCode, oneLine(string(body[:min(len(body), 300)])))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s: unexpected answer: %w", service, err)
	}
	return nil
}

func count(q SearchQuery) int {
	if q.Count <= 0 {
		return 10
	}
	return q.Count
}

// yearRange is the first and last day of year as YYYY-MM-DD.
func yearRange(year int) (string, string) {
	return fmt.Sprintf("%04d-01-01", year), fmt.Sprintf("%04d-12-31", year)
}
