package browser_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"deskpilot/actions/browser"
)

// fixture serves a testdata file after check approves the request.
func fixture(t *testing.T, file, contentType string, check func(r *http.Request) error) *string {
	t.Helper()
	data, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var url string
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := check(r); err != nil {
			t.Errorf("%s request: %v", file, err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Write(data)
	}))
	url = srv.URL
	return &url
}

func want(got, wantV, what string) error {
	if got != wantV {
		return fmt.Errorf("%s = %q, want %q", what, got, wantV)
	}
	return nil
}

const heritage = "1. [The Harbour Bridge at Vellmar | Coastal Heritage](https://heritage.example/bridges/vellmar.html)\n"

func TestSearchBackends(t *testing.T) {
	cases := []struct {
		name    string
		year    int
		backend func(t *testing.T) browser.SearchBackend
		want    string
	}{
		{
			name: "duckduckgo",
			backend: func(t *testing.T) browser.SearchBackend {
				u := fixture(t, "ddg_results.html", "text/html; charset=UTF-8", func(r *http.Request) error {
					if r.Method != http.MethodPost {
						return fmt.Errorf("method %s, want POST", r.Method)
					}
					return want(r.FormValue("q"), "vellmar harbour bridge", "q")
				})
				return browser.DuckDuckGo{BaseURL: *u + "/html/"}
			},
			want: "A web search for 'vellmar harbour bridge' found 3 results:\n\n## Web Results\n\n" + heritage +
				"   Date published: 2024-03-14\n" +
				"   The bridge opened on 14 March 1932. More than twelve thousand people walked across on the first day.\n\n" +
				"2. [Vellmar Harbour Bridge - Wikipedia](https://en.wikipedia.example/wiki/Vellmar_Harbour_Bridge)\n" +
				"   The Vellmar Harbour Bridge is a steel through arch bridge designed by Margit Olsen & built 1928–1932.\n\n" +
				"3. [Things to do in Vellmar: climb the arch](https://travel.example/guides/vellmar?section=sights&lang=en)\n" +
				"   Guided tours to the top of the Harbour Bridge run from May to September.",
		},
		{
			name: "duckduckgo year",
			year: 2024,
			backend: func(t *testing.T) browser.SearchBackend {
				u := fixture(t, "ddg_results.html", "text/html", func(r *http.Request) error {
					return want(r.FormValue("df"), "2024-01-01..2024-12-31", "df")
				})
				return browser.DuckDuckGo{BaseURL: *u}
			},
			want: "A web search for 'vellmar harbour bridge' (published in 2024) found 3 results:\n\n## Web Results\n\n" + heritage,
		},
		{
			name: "searxng",
			backend: func(t *testing.T) browser.SearchBackend {
				u := fixture(t, "searxng.json", "application/json", func(r *http.Request) error {
					if r.URL.Path != "/search" {
						return fmt.Errorf("path %s, want /search", r.URL.Path)
					}
					if err := want(r.URL.Query().Get("format"), "json", "format"); err != nil {
						return err
					}
					return want(r.URL.Query().Get("q"), "vellmar harbour bridge", "q")
				})
				return browser.SearXNG{BaseURL: *u + "/"}
			},
			want: "A web search for 'vellmar harbour bridge' found 3 results:\n\n## Web Results\n\n" + heritage +
				"   Date published: 2024-03-14\n" +
				"   The bridge opened on 14 March 1932. More than twelve thousand people walked across on the first day.\n\n" +
				"2. [Vellmar Harbour Bridge - Wikipedia](https://en.wikipedia.example/wiki/Vellmar_Harbour_Bridge)\n" +
				"   The Vellmar Harbour Bridge is a steel through arch bridge designed by Margit Olsen.\n\n" +
				"3. [Inspectors find Vellmar bridge in good shape](https://news.example/2021/bridge-inspection)\n" +
				"   Date published: 2021-06-02\n" +
				"   Engineers who inspected the bridge in 2021 found the arch in good condition.",
		},
		{
			name: "searxng year drops other years",
			year: 2021,
			backend: func(t *testing.T) browser.SearchBackend {
				u := fixture(t, "searxng.json", "application/json", func(r *http.Request) error {
					return want(r.URL.Query().Get("q"), "vellmar harbour bridge 2021", "q")
				})
				return browser.SearXNG{BaseURL: *u}
			},
			want: "A web search for 'vellmar harbour bridge' (published in 2021) found 2 results:\n\n## Web Results\n\n" +
				"1. [Vellmar Harbour Bridge - Wikipedia](https://en.wikipedia.example/wiki/Vellmar_Harbour_Bridge)\n",
		},
		{
			name: "brave",
			year: 2024,
			backend: func(t *testing.T) browser.SearchBackend {
				u := fixture(t, "brave.json", "application/json", func(r *http.Request) error {
					if err := want(r.Header.Get("X-Subscription-Token"), "brave-key", "token"); err != nil {
						return err
					}
					if err := want(r.URL.Query().Get("freshness"), "2024-01-01to2024-12-31", "freshness"); err != nil {
						return err
					}
					return want(r.URL.Query().Get("q"), "vellmar harbour bridge", "q")
				})
				return browser.Brave{BaseURL: *u + "/res/v1/web/search", APIKey: "brave-key"}
			},
			want: "A web search for 'vellmar harbour bridge' (published in 2024) found 2 results:\n\n## Web Results\n\n" + heritage +
				"   Date published: 2024-03-14\n" +
				"   The bridge opened on 14 March 1932. More than twelve thousand people walked across on the first day & the mayor declared a holiday.\n\n" +
				"2. [Vellmar Harbour Bridge - Wikipedia](https://en.wikipedia.example/wiki/Vellmar_Harbour_Bridge)\n" +
				"   The Vellmar Harbour Bridge is a steel through arch bridge designed by Margit Olsen.",
		},
		{
			name: "serper",
			year: 2024,
			backend: func(t *testing.T) browser.SearchBackend {
				u := fixture(t, "serper.json", "application/json", func(r *http.Request) error {
					if err := want(r.Header.Get("X-API-KEY"), "serper-key", "key"); err != nil {
						return err
					}
					var body struct {
						Q   string `json:"q"`
						Num int    `json:"num"`
						Tbs string `json:"tbs"`
					}
					data, _ := io.ReadAll(r.Body)
					if err := json.Unmarshal(data, &body); err != nil {
						return err
					}
					if err := want(body.Tbs, "cdr:1,cd_min:1/1/2024,cd_max:12/31/2024", "tbs"); err != nil {
						return err
					}
					return want(fmt.Sprint(body.Q, body.Num), "vellmar harbour bridge10", "q and num")
				})
				return browser.Serper{BaseURL: *u + "/search", APIKey: "serper-key"}
			},
			want: "A web search for 'vellmar harbour bridge' (published in 2024) found 2 results:\n\n## Web Results\n\n" + heritage +
				"   Date published: Mar 14, 2024\n" +
				"   The bridge opened on 14 March 1932. More than twelve thousand people walked across on the first day.\n\n" +
				"2. [Vellmar Harbour Bridge - Wikipedia](https://en.wikipedia.example/wiki/Vellmar_Harbour_Bridge)\n" +
				"   The Vellmar Harbour Bridge is a steel through arch bridge designed by Margit Olsen.",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := open(t, browser.Options{Search: c.backend(t), Viewport: 200})
			got, err := b.Search(t.Context(), "vellmar harbour bridge", c.year)
			if err != nil {
				t.Fatal(err)
			}
			header := "Address: search: vellmar harbour bridge\nTitle: Search results for 'vellmar harbour bridge'\n" +
				"Viewport position: Showing page 1 of 1.\n" + separator
			if !strings.HasPrefix(got, header+c.want) {
				t.Errorf("Search answer:\n%s\nwant prefix:\n%s", got, header+c.want)
			}
		})
	}
}

func TestSearchFailures(t *testing.T) {
	page := func(file string, status int) *string {
		data, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			w.Write(data)
		}))
		return &srv.URL
	}
	t.Run("no results", func(t *testing.T) {
		b := open(t, browser.Options{Search: browser.DuckDuckGo{BaseURL: *page("ddg_noresults.html", 200)}})
		got, err := b.Search(t.Context(), "qwxzv plorf", 2020)
		if err != nil {
			t.Fatal(err)
		}
		_, v := split(t, got)
		if want := "No results found for 'qwxzv plorf' (published in 2020). Try a broader query: fewer, more general words, or no year filter."; v != want {
			t.Errorf("no results = %q, want %q", v, want)
		}
	})
	for _, c := range []struct {
		name    string
		backend browser.SearchBackend
		want    string
	}{
		{"bot check", browser.DuckDuckGo{BaseURL: *page("ddg_challenge.html", 200)}, "duckduckgo: the search was refused with a bot check"},
		{"rate limited", browser.DuckDuckGo{BaseURL: *page("ddg_challenge.html", 202)}, "duckduckgo: HTTP 202"},
		{"bad key", browser.Brave{BaseURL: *page("brave.json", 401), APIKey: "x"}, "brave: HTTP 401"},
		{"not json", browser.Serper{BaseURL: *page("ddg_results.html", 200), APIKey: "x"}, "serper: unexpected answer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := open(t, browser.Options{Search: c.backend})
			_, err := b.Search(t.Context(), "vellmar", 0)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want %q", err, c.want)
			}
		})
	}
	t.Run("bad arguments", func(t *testing.T) {
		b := open(t, browser.Options{Search: browser.SearXNG{BaseURL: "http://127.0.0.1:1"}})
		if _, err := b.Search(t.Context(), "  ", 0); err == nil {
			t.Error("empty query accepted")
		}
		if _, err := b.Search(t.Context(), "x", 23); err == nil {
			t.Error("year 23 accepted")
		}
	})
}

func TestNewSearchBackend(t *testing.T) {
	for _, c := range []struct {
		name, base, key string
		want            string
	}{
		{"", "", "", "browser.DuckDuckGo"},
		{"DuckDuckGo", "", "", "browser.DuckDuckGo"},
		{"searxng", "http://localhost:8888", "", "browser.SearXNG"},
		{"searxng", "", "", "error"},
		{"brave", "", "k", "browser.Brave"},
		{"brave", "", "", "error"},
		{"serper", "", "k", "browser.Serper"},
		{"google", "", "k", "error"},
	} {
		b, err := browser.NewSearchBackend(c.name, c.base, c.key, nil)
		got := fmt.Sprintf("%T", b)
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("NewSearchBackend(%q, %q, %q) = %s (%v), want %s", c.name, c.base, c.key, got, err, c.want)
		}
	}
}

func TestArchived(t *testing.T) {
	// Wayback addresses hold "//", which http.ServeMux would clean away.
	pages := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/web/20240105120000/https://heritage.example/bridges/vellmar.html" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `<html><head><title>Vellmar (archived)</title></head><body><p>Archived copy of the bridge page.</p></body></html>`)
	}))
	snapshotURL := pages.URL + "/web/20240105120000/https://heritage.example/bridges/vellmar.html"
	answer := func(available bool) string {
		if !available {
			return `{"url": "heritage.example/bridges/vellmar.html", "archived_snapshots": {}}`
		}
		return `{"url": "heritage.example/bridges/vellmar.html", "archived_snapshots": {"closest": {"status": "200", "available": true, "url": "` +
			snapshotURL + `", "timestamp": "20240105120000"}}, "timestamp": "20240101"}`
	}
	cases := []struct {
		name     string
		near     bool // a snapshot near the date exists
		any      bool // some snapshot exists
		date     string
		wantHead string
		wantErr  string
	}{
		{"near the date", true, true, "20240101", "Web archive for url heritage.example/bridges/vellmar.html, snapshot taken at date 20240105:\nAddress: " + snapshotURL + "\nTitle: Vellmar (archived)\n", ""},
		{"falls back to any snapshot", false, true, "19990101", "Web archive for url heritage.example/bridges/vellmar.html, snapshot taken at date 20240105:\n", ""},
		{"none", false, false, "19990101", "The Wayback Machine has no archived copy of heritage.example/bridges/vellmar.html.", ""},
		{"bad date", true, true, "2024-01-01", "", "must be YYYYMMDD"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var asked []string
			api := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				q := r.URL.Query()
				asked = append(asked, q.Get("timestamp"))
				if q.Get("url") != "heritage.example/bridges/vellmar.html" {
					t.Errorf("url = %q", q.Get("url"))
				}
				w.Header().Set("Content-Type", "application/json")
				if q.Get("timestamp") != "" {
					fmt.Fprint(w, answer(c.near))
				} else {
					fmt.Fprint(w, answer(c.any))
				}
			}))
			b := open(t, browser.Options{WaybackURL: api.URL + "/wayback/available"})
			got, err := b.Archived(t.Context(), "heritage.example/bridges/vellmar.html", c.date)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Errorf("error = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got, c.wantHead) {
				t.Errorf("answer:\n%s\nwant prefix:\n%s", got, c.wantHead)
			}
			if c.any && !strings.Contains(got, "Archived copy of the bridge page.") {
				t.Errorf("snapshot text missing:\n%s", got)
			}
			if asked[0] != c.date {
				t.Errorf("first query timestamp = %q, want %q", asked[0], c.date)
			}
		})
	}
}
