package checks

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// standInRecreation is a stand-in for recreation.gov with what OSWorld's getter
// drives: a search box and button (the search shows the successful result
// only for the text "Albion Basin"), a result link that opens the campground
// in a popup, and there a "next available" button that fills the third
// column header with the date.
func standInRecreation(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Recreation</title>
<input id="hero-search-input"><button class="nav-search-button">Search</button><div id="results"></div>
<script>
document.querySelector(".nav-search-button").onclick = () => setTimeout(() => {
  const q = document.querySelector("#hero-search-input").value;
  document.querySelector("#results").innerHTML = q === "Albion Basin"
    ? '<a class="search-result-highlight--success" href="/camp" target="_blank">Albion Basin</a>'
    : '<p>No results for ' + q + '</p>';
}, 300);
</script>`)
	})
	mux.HandleFunc("/camp", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Albion Basin</title>
<button class="next-available">Next Available</button>
<div class="camp-sortable-column-header">Site</div><div class="camp-sortable-column-header">Loop</div>
<div class="camp-sortable-column-header">(none)</div>
<script>
document.querySelector(".next-available").onclick = () => {
  document.querySelectorAll(".camp-sortable-column-header")[2].textContent = "\n  Sat 24 \n";
};
</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestRecreationPage: gotoRecreationPage_and_get_html_content, run on a real
// Chromium against the stand-in site, searches, follows the result into its
// popup, clicks "next available" and reads the header there, as OSWorld's
// Playwright steps do; near misses: an index past the headers, no "class"
// selector, a site that does not answer.
func TestRecreationPage(t *testing.T) {
	site := standInRecreation(t)
	c := startChromium(t, "about:blank")
	env := c.env(t)
	old := recreationURL
	t.Cleanup(func() { recreationURL = old })
	recreationURL = site.URL + "/"
	cfg := func(kv ...any) map[string]any {
		m := map[string]any{"type": "gotoRecreationPage_and_get_html_content", "selector": "class", "class": "camp-sortable-column-header"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	for _, tt := range []struct {
		name string
		cfg  map[string]any
		want any
		err  string
	}{
		{"order 2", cfg("order", "2"), map[string]any{"expected": map[string]any{"camp-sortable-column-header": "Sat 24"}}, ""},
		{"order -1", cfg("order", "-1"), map[string]any{"expected": map[string]any{"camp-sortable-column-header": "Sat 24"}}, ""},
		{"no order: the first", cfg(), map[string]any{"expected": map[string]any{"camp-sortable-column-header": "Site"}}, ""},
		{"order past the headers", cfg("order", "3"), nil, "list index out of range"},
		{"another selector", cfg("selector", "xpath"), map[string]any{"expected": map[string]any{}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Get(t.Context(), env, tt.cfg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, %v; want an error with %q", got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
	// Every page the getter opened is closed.
	for _, u := range waitPagesClosed(t, env, site.URL) {
		t.Errorf("page %s left open", u)
	}
	site.Close()
	if got, err := Get(t.Context(), env, cfg("order", "2")); err == nil {
		t.Errorf("site down: got %#v; want an error", got)
	}
	if g, _ := LookupGetter("gotoRecreationPage_and_get_html_content"); g.Web != "https://www.recreation.gov/" {
		t.Errorf("Web = %q; want the live site", g.Web)
	}
}

// waitPagesClosed gives the URLs of the browser's pages under prefix that
// are still open after 10 s: Chromium closes a page after it answered the
// close ("Target is closing").
func waitPagesClosed(t *testing.T, env portEnv, prefix string) []string {
	t.Helper()
	var open []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ts, err := listTargets(t.Context(), env)
		if err != nil {
			t.Fatal(err)
		}
		open = open[:0]
		for _, tg := range ts {
			if tg.Type == "page" && strings.HasPrefix(tg.URL, prefix) {
				open = append(open, tg.URL)
			}
		}
		if len(open) == 0 || time.Now().After(deadline) {
			return open
		}
	}
}
