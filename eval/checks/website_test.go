package checks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

// scholarInfos are the infos and backups of OSWorld's multi_apps/5990457f,
// the task that uses info_from_website, verbatim.
const scholarInfos = `{"infos": [{"action": "inner_text", "selector": "#gsc_prf_in"}, {"action": "inner_text", "selector": "#gsc_rsb_st > tbody > tr:nth-child(1) > td:nth-child(2)"}, {"action": "inner_text", "selector": "#gsc_rsb_st > tbody > tr:nth-child(2) > td:nth-child(2)"}, {"action": "inner_text", "selector": "#gsc_rsb_st > tbody > tr:nth-child(3) > td:nth-child(2)"}, {"action": "inner_text", "selector": "#gsc_a_b > tr:nth-child(1) > td.gsc_a_t > a"}, {"action": "click_and_attribute", "selector": ["#gsc_a_b > tr:nth-child(1) > td.gsc_a_t > a", "#gsc_oci_title_gg > div:nth-child(1) > a"], "attribute": "href"}], "backups": ["Yann LeCun", "345074", "147", "372", "Deep learning", "https://hal.science/hal-04206682/document"]}`

// standInScholar is a stand-in for the Google Scholar profile the task
// reads: the name, the citation table, the first paper (whose page links
// its PDF) and a link with no href. Its numbers differ from the task's
// backups, so that a value read from the page is told from a backup.
func standInScholar(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/citations", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Profile</title>
<div id="gsc_prf_in">Ada  Lovelace</div>
<table id="gsc_rsb_st"><tbody>
<tr><td>Citations</td><td>1843</td></tr><tr><td>h-index</td><td> 12 </td></tr><tr><td>i10-index</td><td>7</td></tr>
</tbody></table>
<table><tbody id="gsc_a_b"><tr><td class="gsc_a_t"><a href="/paper">Notes on the
Analytical Engine</a></td></tr></tbody></table>
<a id="bare">no link</a>`)
	})
	mux.HandleFunc("/paper", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Paper</title>
<div id="gsc_oci_title_gg"><div><a href="https://example.org/notes.pdf">[PDF]</a></div></div>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestInfoFromWebsite: info_from_website, run on a real Chromium against a
// stand-in of the task's page with the task's own infos, reads each value
// (the last after clicking through to the paper's page); whatever fails
// gives the task's backups, as OSWorld's getter does: an element that is
// never there, an unknown action, a config without url, a site that does
// not answer (as offline). An attribute the element lacks is None.
func TestInfoFromWebsite(t *testing.T) {
	site := standInScholar(t)
	c := startChromium(t, "about:blank")
	env := c.env(t)
	page := site.URL + "/citations?user=WLN3QrAAAAAJ&hl=en"
	cfg := func(edit func(m map[string]any)) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(scholarInfos), &m); err != nil {
			t.Fatal(err)
		}
		m["type"], m["url"] = "info_from_website", page
		if edit != nil {
			edit(m)
		}
		return m
	}
	backups := cfg(nil)["backups"]
	infos := func(js string) func(map[string]any) {
		return func(m map[string]any) {
			var v any
			if err := json.Unmarshal([]byte(js), &v); err != nil {
				t.Fatal(err)
			}
			m["infos"] = v
		}
	}
	for _, tt := range []struct {
		name string
		cfg  map[string]any
		want any
	}{
		{"the task's infos", cfg(nil), []any{"Ada Lovelace", "1843", "12", "7", "Notes on the Analytical Engine", "https://example.org/notes.pdf"}},
		{"no infos", cfg(func(m map[string]any) { delete(m, "infos") }), []any{}},
		{"the default action", cfg(infos(`[{"selector": "#gsc_prf_in"}]`)), []any{"Ada Lovelace"}},
		{"an attribute it lacks", cfg(infos(`[{"action": "attribute", "selector": "#bare", "attribute": "href"}]`)), []any{nil}},
		{"back at url after a click", cfg(infos(`[{"action": "click_and_inner_text", "selector": ["td.gsc_a_t > a", "#gsc_oci_title_gg a"]}, {"selector": "#gsc_prf_in"}]`)), []any{"[PDF]", "Ada Lovelace"}},
		{"an element never there", cfg(infos(`[{"selector": "#gsc_prf_in"}, {"selector": "#gsc_missing"}]`)), backups},
		{"an unknown action", cfg(infos(`[{"action": "hover", "selector": "#gsc_prf_in"}]`)), backups},
		{"a bad selector", cfg(infos(`[{"selector": "#["}]`)), backups},
		{"no url", cfg(func(m map[string]any) { delete(m, "url") }), backups},
		{"no url, no backups", cfg(func(m map[string]any) { delete(m, "url"); delete(m, "backups") }), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Get(t.Context(), env, tt.cfg)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tt.want)
			}
		})
	}
	// The pages it opened are closed.
	for _, tg := range waitPagesClosed(t, env, site.URL) {
		t.Errorf("page %s left open", tg)
	}
	site.Close()
	if got, err := Get(t.Context(), env, cfg(nil)); err != nil || !reflect.DeepEqual(got, backups) {
		t.Errorf("site down: got %#v, %v; want the backups", got, err)
	}
	if got, err := Get(t.Context(), portEnv{dirEnv: dirEnv{home: t.TempDir()}, ports: map[int]int{}}, cfg(nil)); err != nil || !reflect.DeepEqual(got, backups) {
		t.Errorf("no browser: got %#v, %v; want the backups", got, err)
	}
	if _, ok := pendingGetters()["info_from_website"]; ok {
		t.Error("info_from_website is still pending")
	}
}
