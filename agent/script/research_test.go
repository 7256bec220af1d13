package script

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"deskpilot/actions/browser"
	"deskpilot/actions/inspect"
)

// webSite is a local site for the browser tools: a long article, a SearXNG
// JSON search endpoint and a Wayback availability endpoint, on loopback.
type webSite struct {
	srv  *httptest.Server
	hits atomic.Int32
}

// articleHTML is a long article whose fact ("secret number is 4217") sits
// near the end, several viewports down at a viewport of 600 characters.
func articleHTML() string {
	var b strings.Builder
	b.WriteString("<html><head><title>The Vellmar Bridge</title></head><body><nav>Home | About</nav><article><h1>The Vellmar Bridge</h1>")
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d. The bridge crosses the river in a long low arch of grey stone, and its piers were rebuilt after the flood of the old town in the spring.</p>", i)
		if i == 10 {
			b.WriteString("<p>According to the records, the bridge's secret number is 4217.</p>")
		}
	}
	b.WriteString("<p>End of the article.</p></article></body></html>")
	return b.String()
}

func newWebSite(t *testing.T) *webSite {
	t.Helper()
	w := &webSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(rw, articleHTML())
	})
	mux.HandleFunc("/search", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("q") == "nothing at all" {
			fmt.Fprint(rw, `{"results": []}`)
			return
		}
		fmt.Fprintf(rw, `{"query": %q, "results": [
			{"url": %q, "title": "The Vellmar Bridge", "content": "A stone bridge over the river.", "publishedDate": "2021-05-04T00:00:00"},
			{"url": "https://example.org/other", "title": "Other bridges", "content": "More bridges.", "publishedDate": "2019-01-02T00:00:00"}]}`,
			r.URL.Query().Get("q"), w.srv.URL+"/article")
	})
	mux.HandleFunc("/wayback/available", func(rw http.ResponseWriter, _ *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(rw, `{"archived_snapshots": {"closest": {"status": "200", "available": true, "url": %q, "timestamp": "20200130101010"}}}`,
			w.srv.URL+"/article")
	})
	mux.HandleFunc("/slow", func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(1500 * time.Millisecond):
			fmt.Fprint(rw, "<html><body><p>Finally loaded.</p></body></html>")
		case <-r.Context().Done():
		}
	})
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.hits.Add(1)
		mux.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// browserFor returns a browser that may reach the site on loopback.
func (w *webSite) browser(o browser.Options) *browser.Browser {
	o.AllowPrivate = true
	o.Search = browser.SearXNG{BaseURL: w.srv.URL}
	o.WaybackURL = w.srv.URL + "/wayback/available"
	if o.Viewport == 0 {
		o.Viewport = 600
	}
	return browser.New(o)
}

func TestResearchBrowser(t *testing.T) {
	site := newWebSite(t)
	e := New(Options{}, Research(ResearchDeps{Browser: site.browser(browser.Options{})})...)
	article := site.srv.URL + "/article"
	steps := []struct {
		name   string
		code   string
		output []string // substrings of the printed output
		result string   // the logged action's Result
	}{
		{"search", `print(web_search("vellmar bridge"))`,
			[]string{"1. [The Vellmar Bridge](" + article + ")", "A stone bridge over the river.", "2. [Other bridges]"}, "2 results"},
		{"search with year", `r = web_search("vellmar bridge", year=2021)` + "\nprint(r)",
			[]string{"(published in 2021)"}, "1 result"},
		{"search without results", `print(web_search("nothing at all"))`,
			[]string{"No results found for 'nothing at all'", "broader query"}, "no results"},
		{"visit", `page = visit_page("` + article + `")` + "\nprint(page)",
			[]string{"Address: " + article + "\nTitle: The Vellmar Bridge\nViewport position: Showing page 1 of ", "Paragraph 1."},
			"Address: " + article + ", page 1 of "},
		{"page down", `print(page_down())`, []string{"Showing page 2 of "}, "Address: " + article + ", page 2 of "},
		{"page up", `print(page_up())`, []string{"Showing page 1 of "}, "Address: " + article + ", page 1 of "},
		{"page up at the top stays", `print(page_up())`, []string{"Showing page 1 of "}, "Address: " + article + ", page 1 of "},
		{"find", `print(find_on_page("secret * is"))`, []string{"secret number is 4217"}, "found: Address: " + article + ", page "},
		{"find next wraps", `print(find_next())`, []string{"secret number is 4217"}, "found: Address: "},
		{"find miss", `print(find_on_page("zebra unicorn"))`, []string{"'zebra unicorn' was not found"}, "not found"},
		{"archived", `print(archived_url("` + article + `", "20200131"))`,
			[]string{"snapshot taken at date 20200130", "Address: " + article}, "snapshot of 20200130: Address: " + article + ", page 1 of "},
		{"relative link", `print(visit_page("/article"))`, []string{"Address: " + article}, "Address: " + article + ", page 1 of "},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res := e.Exec(t.Context(), s.code)
			if res.Err != nil {
				t.Fatalf("error: %v", res.Err)
			}
			for _, want := range s.output {
				if !strings.Contains(res.Output, want) {
					t.Errorf("output lacks %q:\n%s", want, res.Output)
				}
			}
			if len(res.Actions) != 1 {
				t.Fatalf("actions = %+v, want one", res.Actions)
			}
			a := res.Actions[0]
			if !strings.HasPrefix(a.Result, s.result) || a.Error != "" {
				t.Errorf("action = %+v, want result starting %q", a, s.result)
			}
		})
	}
	res := e.Exec(t.Context(), `x = web_search("vellmar")`+"\nprint(type(x), len(x) > 50)")
	if res.Err != nil || res.Output != "string True\n" {
		t.Errorf("web_search returns %q, %v; want a str", res.Output, res.Err)
	}
}

func TestResearchPagingToTheEnd(t *testing.T) {
	site := newWebSite(t)
	e := New(Options{}, Research(ResearchDeps{Browser: site.browser(browser.Options{})})...)
	res := e.Exec(t.Context(), `
visit_page("`+site.srv.URL+`/article")
last = ""
for i in range(30):
    last = page_down()
print(last)`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var x, y int
	i := strings.Index(res.Output, "Showing page ")
	if i < 0 {
		t.Fatalf("no position in %q", res.Output)
	}
	if _, err := fmt.Sscanf(res.Output[i:], "Showing page %d of %d.", &x, &y); err != nil || x != y || y < 3 {
		t.Errorf("after paging past the end: page %d of %d (%v), want the last of at least 3", x, y, err)
	}
	if !strings.HasSuffix(strings.TrimSpace(res.Output), "End of the article.") {
		t.Errorf("last viewport is not the end of the article:\n%s", res.Output)
	}
	if len(res.Actions) != 31 {
		t.Errorf("%d actions, want 31", len(res.Actions))
	}
}

func TestResearchArgumentErrors(t *testing.T) {
	site := newWebSite(t)
	in := inspect.New(inspect.Options{Roots: []string{t.TempDir()}, Home: t.TempDir()})
	e := New(Options{}, Research(ResearchDeps{Browser: site.browser(browser.Options{}), Inspector: in})...)
	tests := []struct{ name, code, want string }{
		{"empty query", `web_search("  ")`, `web_search: query is empty; e.g. web_search(`},
		{"query not a string", `web_search(42)`, "web_search: query must be a string, got int"},
		{"year as string", `web_search("x", year="2023")`, `web_search: year must be a whole number like 2023, or None for any time; got string "2023"`},
		{"year out of range", `web_search("x", 23)`, "web_search: year 23 is not a year between 1900 and 2200"},
		{"unknown keyword", `web_search("x", when=2020)`, "web_search: unexpected keyword argument when; call it as web_search(query, year=None)"},
		{"empty url", `visit_page("")`, "visit_page: url is empty"},
		{"url not a string", `visit_page(["a"])`, "visit_page: url must be a string, got list"},
		{"page_down with an argument", `page_down(2)`, "page_down: takes no arguments; call it as page_down()"},
		{"find without text", `find_on_page()`, "find_on_page: missing argument text"},
		{"find empty", `find_on_page("")`, "find_on_page: text is empty"},
		{"date as int", `archived_url("https://example.com", 20200131)`, `archived_url: date must be a string "YYYYMMDD", e.g. "20200131"; got int`},
		{"date with dashes", `archived_url("https://example.com", "2020-01-31")`, `archived_url: date "2020-01-31" must be a real date written "YYYYMMDD"`},
		{"impossible date", `archived_url("https://example.com", "20201332")`, `archived_url: date "20201332" must be a real date`},
		{"empty path", `inspect_file("")`, "inspect_file: path is empty"},
		{"question not a string", `inspect_file("a.txt", question=3)`, "inspect_file: question must be a string, got int"},
		{"page as string", `inspect_file("a.txt", page="2")`, `inspect_file: page must be a whole number like 2; got string "2"`},
		{"page zero", `inspect_file("a.txt", page=0)`, "inspect_file: page 0 is not a page number; pages start at 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.Exec(t.Context(), tc.code)
			if res.Err == nil || res.Err.Kind != KindRuntime || !strings.Contains(res.Err.Msg, tc.want) {
				t.Fatalf("err = %+v, want a runtime error containing %q", res.Err, tc.want)
			}
			if len(res.Actions) != 0 {
				t.Errorf("misuse was logged as an action: %+v", res.Actions)
			}
		})
	}
	if n := site.hits.Load(); n != 0 {
		t.Errorf("argument errors reached the network %d times", n)
	}
}

func TestResearchFailures(t *testing.T) {
	site := newWebSite(t)
	guarded := browser.New(browser.Options{}) // loopback refused
	quick := site.browser(browser.Options{Timeout: 100 * time.Millisecond})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.pdf"), []byte("%PDF-1.7\nthis is not a pdf at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: dir})
	tests := []struct {
		name string
		deps ResearchDeps
		code string
		want []string
	}{
		{"blocked address", ResearchDeps{Browser: guarded}, `visit_page("` + site.srv.URL + `/article")`,
			[]string{"visit_page: visit " + site.srv.URL + "/article: ", "refusing to connect", "loopback"}},
		{"bad scheme", ResearchDeps{Browser: guarded}, `visit_page("file:///etc/passwd")`,
			[]string{"visit_page: cannot visit file:///etc/passwd: only http and https", "use inspect_file"}},
		{"timeout", ResearchDeps{Browser: quick}, `visit_page("` + site.srv.URL + `/slow")`,
			[]string{"visit_page: visit " + site.srv.URL + "/slow: timed out after 100ms"}},
		{"search backend down", ResearchDeps{Browser: browser.New(browser.Options{Search: browser.SearXNG{BaseURL: "http://127.0.0.1:1"}})},
			`web_search("x")`, []string{`web_search: search "x": `}},
		{"corrupt file", ResearchDeps{Inspector: in}, `inspect_file("` + filepath.Join(dir, "broken.pdf") + `")`,
			[]string{"inspect_file: pdf: file is corrupt or truncated: broken.pdf"}},
		{"missing file", ResearchDeps{Inspector: in}, `inspect_file("nope.txt")`,
			[]string{"inspect_file: no such file: nope.txt"}},
		{"outside the roots", ResearchDeps{Inspector: in}, `inspect_file("/etc/hostname")`,
			[]string{"inspect_file: /etc/hostname is outside the folders the inspector may read"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := New(Options{}, Research(tc.deps)...)
			res := e.Exec(t.Context(), "print('before')\n"+tc.code+"\nprint('after')")
			if res.Err == nil || res.Err.Kind != KindRuntime {
				t.Fatalf("err = %+v, want a runtime error", res.Err)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Err.Msg, w) {
					t.Errorf("message lacks %q:\n%s", w, res.Err.Msg)
				}
			}
			if res.Output != "before\n" {
				t.Errorf("output = %q; the block should stop at the failing call", res.Output)
			}
			if len(res.Actions) != 1 || res.Actions[0].Result != "failed" || !strings.Contains(res.Actions[0].Error, tc.want[0]) {
				t.Errorf("actions = %+v, want one failed action with the error", res.Actions)
			}
		})
	}
}

func TestResearchNetworkWaitIsUntimed(t *testing.T) {
	site := newWebSite(t)
	// The page takes 1.5 s; the block may run 250 ms of code.
	e := New(Options{Timeout: 250 * time.Millisecond}, Research(ResearchDeps{Browser: site.browser(browser.Options{})})...)
	res := e.Exec(t.Context(), `print(visit_page("`+site.srv.URL+`/slow"))`)
	if res.Err != nil {
		t.Fatalf("a slow page counted against the time limit: %v", res.Err)
	}
	if !strings.Contains(res.Output, "Finally loaded.") {
		t.Errorf("output = %q", res.Output)
	}
}

func TestResearchCancelDuringFetch(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	b := browser.New(browser.Options{AllowPrivate: true, Timeout: time.Hour})
	e := New(Options{}, Research(ResearchDeps{Browser: b})...)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	res := e.Exec(ctx, `visit_page("`+srv.URL+`/hang")`)
	if res.Err == nil || res.Err.Kind != KindCancelled {
		t.Fatalf("err = %+v, want cancelled", res.Err)
	}
	if len(res.Actions) != 1 || res.Actions[0].Result != "failed" {
		t.Errorf("actions = %+v, want the visit logged as failed", res.Actions)
	}
}

func TestResearchInspectFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csv := write("sales.csv", "region,total\nnorth,12\nsouth,30\n")
	write("notes.txt", "Meeting moved to Thursday.\n")
	long := write("long.txt", strings.Repeat("word ", 30))
	var asked atomic.Value
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: dir, MaxChars: 100,
		Ask: func(_ context.Context, question, text string, _ ...inspect.Image) (string, error) {
			asked.Store(question + "|" + text)
			return "The south region sold the most (30).", nil
		}})
	e := New(Options{}, Research(ResearchDeps{Inspector: in})...)
	tests := []struct {
		name, code string
		output     []string
		result     string
	}{
		{"csv as a table", `print(inspect_file("` + csv + `"))`, []string{"| region | total |", "| south | 30 |"}, "characters"},
		{"relative to the first root", `print(inspect_file("notes.txt"))`, []string{"Meeting moved to Thursday."}, "26 characters"},
		{"second part", `print(inspect_file("` + long + `", page=2))`, []string{"[Part 2 of 2 of the text", "This is the end."}, "characters"},
		{"first part says how to read on", `print(inspect_file("` + long + `"))`, []string{"Read on with inspect_file(", "page=2)"}, "(more to read)"},
		{"question", `print(inspect_file("` + csv + `", question="Which region sold most?"))`,
			[]string{"The south region sold the most (30)."}, "answered: The south region sold the most (30)."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.Exec(t.Context(), tc.code)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			for _, w := range tc.output {
				if !strings.Contains(res.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, res.Output)
				}
			}
			if len(res.Actions) != 1 || !strings.HasSuffix(res.Actions[0].Result, tc.result) {
				t.Errorf("actions = %+v, want result ending %q", res.Actions, tc.result)
			}
		})
	}
	got, _ := asked.Load().(string)
	if !strings.HasPrefix(got, "Which region sold most?|") || !strings.Contains(got, "south") {
		t.Errorf("the model was asked %q", got)
	}
}

func TestResearchToolSets(t *testing.T) {
	b := browser.New(browser.Options{})
	in := inspect.New(inspect.Options{Home: t.TempDir()})
	names := func(ts []Tool) string {
		var s []string
		for _, x := range ts {
			s = append(s, x.Name)
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		name string
		deps ResearchDeps
		want string
	}{
		{"none", ResearchDeps{}, ""},
		{"browser", ResearchDeps{Browser: b}, "web_search visit_page page_down page_up find_on_page find_next archived_url"},
		{"files", ResearchDeps{Inspector: in}, "inspect_file"},
		{"both", ResearchDeps{Browser: b, Inspector: in}, "web_search visit_page page_down page_up find_on_page find_next archived_url inspect_file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(Research(tc.deps)); got != tc.want {
				t.Errorf("tools = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResearchStubsGolden(t *testing.T) {
	e := New(Options{}, Research(ResearchDeps{Browser: browser.New(browser.Options{}), Inspector: inspect.New(inspect.Options{Home: t.TempDir()})})...)
	got := e.Stubs()
	checkGolden(t, "research_stubs.golden", got)
	for _, w := range []string{
		"# browser\n\ndef web_search(query: str, year: int | None = None) -> str:",
		"def archived_url(url: str, date: str) -> str:",
		`        date: the date as "YYYYMMDD", e.g. "20200131".`,
		"# files\n\ndef inspect_file(path: str, question: str | None = None, page: int = 1) -> str:",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("stubs lack %q", w)
		}
	}
}
