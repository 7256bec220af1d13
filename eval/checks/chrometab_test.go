package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/vision/xdisplay"
)

// portEnv is a dirEnv whose box ports are local ports: Dial(9222) reaches
// the browser's real DevTools port.
type portEnv struct {
	dirEnv
	ports map[int]int
}

func (e portEnv) Dial(ctx context.Context, port int) (net.Conn, error) {
	p, ok := e.ports[port]
	if !ok {
		return nil, fmt.Errorf("port %d: connection refused", port)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", p))
}

// chromium is a real Chromium on the test display with its own profile and
// DevTools port.
type chromium struct {
	port    int
	profile string
	app     *xdisplay.App
}

// startChromium starts Chromium on the package's private display, opening
// url, and waits for its DevTools port.
func startChromium(t *testing.T, url string) *chromium {
	t.Helper()
	return startChromiumIn(t, t.TempDir(), url)
}

// startChromiumIn is startChromium with the profile in folder profile.
func startChromiumIn(t *testing.T, profile, url string) *chromium {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("chromium is not installed (the Makefile's DEB_PKGS installs it)")
	}
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	app, err := d.StartApp(ctx, bin, "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
		"--password-store=basic", "--user-data-dir="+profile, "--remote-debugging-port=0", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Stop(); cancel() })
	c := &chromium{profile: profile, app: app}
	deadline := time.Now().Add(60 * time.Second)
	for c.port == 0 {
		if data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil {
			fmt.Sscan(strings.SplitN(string(data), "\n", 2)[0], &c.port)
		}
		if app.Exited() || time.Now().After(deadline) {
			t.Fatalf("chromium gave no DevTools port: %s", app.Output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return c
}

func (c *chromium) env(t *testing.T) portEnv {
	return portEnv{dirEnv: dirEnv{home: t.TempDir(), cache: t.TempDir()}, ports: map[int]int{9222: c.port}}
}

// do sends an HTTP request to the DevTools endpoint.
func (c *chromium) do(t *testing.T, method, path string) []byte {
	t.Helper()
	data, err := devtoolsDo(t.Context(), c.env(t), method, path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// open opens url in a new tab and waits until the tab has loaded it.
func (c *chromium) open(t *testing.T, url string) devtoolsTarget {
	t.Helper()
	var tg devtoolsTarget
	if err := json.Unmarshal(c.do(t, "PUT", "/json/new?"+neturl.QueryEscape(url)), &tg); err != nil {
		t.Fatal(err)
	}
	c.waitURL(t, tg.ID, url)
	return tg
}

// waitURL waits until target id shows url, loaded.
func (c *chromium) waitURL(t *testing.T, id, url string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ts, err := listTargets(t.Context(), c.env(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range ts {
			if tg.URL == url && (id == "" || tg.ID == id) {
				s, err := dialCDP(t.Context(), c.env(t), tg.WS)
				if err != nil {
					t.Fatal(err)
				}
				err = s.waitLoaded(t.Context())
				s.close()
				if err != nil {
					t.Fatal(err)
				}
				return
			}
		}
	}
	t.Fatalf("no tab shows %s", url)
}

// activate brings a tab to the front, as a click on it does.
func (c *chromium) activate(t *testing.T, id string) {
	t.Helper()
	c.do(t, "GET", "/json/activate/"+id)
}

// testSite serves the pages the Chrome getter tests browse.
func testSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/flights", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!DOCTYPE html><html><head><title>Flights</title></head><body>
<span class="search-segment-cities__city"> NYC </span><span class="search-segment-cities__city">CMH</span>
<div class="search-date">Mon, Jan 6, 2025</div>
<div id="main"><p>Price: <b>over $60</b></p></div>
<input id="who" value=" Ada Lovelace ">
</body></html>`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Page %s</title></head><body>%s</body></html>`, r.URL.Path, r.URL.Path)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// TestActiveTabGetters drives a real Chromium: tabs opened and brought to
// the front through DevTools, and the active-tab getters read what the
// address bar of the front tab shows, with the tasks' goto_prefix.
func TestActiveTabGetters(t *testing.T) {
	site := testSite(t)
	host := strings.TrimPrefix(site.URL, "http://")
	first := site.URL + "/first"
	c := startChromium(t, first)
	c.waitURL(t, "", first)
	env := c.env(t)
	get := func(cfg string) any {
		t.Helper()
		v, err := Get(t.Context(), env, rulesOf(t, cfg).(map[string]any))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := get(`{"type": "active_url_from_accessTree", "goto_prefix": "http://"}`); v != first {
		t.Errorf("one tab: active url = %v, want %s", v, first)
	}
	search := site.URL + "/search/drip-coffee?q=drip+coffee&tbs=mr:1,price:1&empty=&flag#top"
	second := c.open(t, search)
	c.activate(t, second.ID)
	tests := []struct{ cfg, want string }{
		{`{"type": "active_url_from_accessTree", "goto_prefix": "http://"}`, search},
		{`{"type": "active_url_from_accessTree"}`, "https://" + strings.TrimPrefix(search, "http://")},
		{`{"type": "active_url_from_accessTree", "goto_prefix": "https://www."}`, "https://www." + host + "/search/drip-coffee?q=drip+coffee&tbs=mr:1,price:1&empty=&flag#top"},
		{`{"type": "active_tab_url_parse", "goto_prefix": "http://", "parse_keys": ["q", "tbs", "empty", "flag", "nope"], "replace": {"q": "query"}}`,
			`{"empty":"","flag":"","nope":"","query":"drip coffee","tbs":"mr:1,price:1"}`},
		{`{"type": "url_dashPart", "goto_prefix": "http://", "partIndex": -1, "needDeleteId": true, "returnType": "string"}`, "drip-coffee"},
		{`{"type": "url_dashPart", "goto_prefix": "http://", "partIndex": -2, "needDeleteId": false, "returnType": "json", "key": "time"}`, `{"time":"search"}`},
		{`{"type": "url_dashPart", "goto_prefix": "http://", "partIndex": 3, "needDeleteId": false, "returnType": "neither"}`, "<nil>"},
	}
	for _, tt := range tests {
		got := get(tt.cfg)
		if s, ok := got.(string); ok || got == nil {
			if fmt.Sprint(got) != tt.want && s != tt.want {
				t.Errorf("%s = %v, want %s", tt.cfg, got, tt.want)
			}
			continue
		}
		b, _ := json.Marshal(got)
		if string(b) != tt.want {
			t.Errorf("%s = %s, want %s", tt.cfg, b, tt.want)
		}
	}
	// The first tab back in front: the getters follow it.
	ts, err := listTargets(t.Context(), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range ts {
		if tg.URL == first {
			c.activate(t, tg.ID)
		}
	}
	if v := get(`{"type": "active_url_from_accessTree", "goto_prefix": "http://"}`); v != first {
		t.Errorf("first tab activated: active url = %v, want %s", v, first)
	}
	// No browser: None, as when OSWorld finds no address bar.
	none := portEnv{dirEnv: env.dirEnv}
	for _, typ := range []string{"active_url_from_accessTree", "active_tab_info", "active_tab_url_parse", "url_dashPart", "active_tab_html_parse"} {
		v, err := Get(t.Context(), none, map[string]any{"type": typ, "parse_keys": []any{"q"}, "partIndex": json.Number("0"), "needDeleteId": false, "returnType": "string", "category": "class"})
		if err != nil || v != nil {
			t.Errorf("%s without a browser = %v, %v; want None", typ, v, err)
		}
	}
}

// TestActiveTabPage: active_tab_info opens the active URL in a new page and
// reads it, page_info a given URL; active_tab_html_parse reads the active
// tab's own document.
func TestActiveTabPage(t *testing.T) {
	site := testSite(t)
	flights := site.URL + "/flights"
	c := startChromium(t, flights)
	c.waitURL(t, "", flights)
	env := c.env(t)
	v, err := Get(t.Context(), env, map[string]any{"type": "active_tab_info", "goto_prefix": "http://"})
	if err != nil {
		t.Fatal(err)
	}
	info, _ := v.(map[string]any)
	if info["title"] != "Flights" || info["url"] != flights || !strings.HasPrefix(fmt.Sprint(info["content"]), "<!DOCTYPE html><html><head><title>Flights</title>") {
		t.Errorf("active_tab_info = %v", v)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ts, err := listTargets(t.Context(), env)
		if err != nil {
			t.Fatal(err)
		}
		if len(pages(ts)) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("active_tab_info left %d pages open, want 1", len(pages(ts)))
		}
	}
	tests := []struct{ cfg, want string }{
		{`{"type": "active_tab_html_parse", "goto_prefix": "http://", "category": "class", "class_singleObject": {"search-date": "time", "absent": "x"}, "class_multiObject": {"search-segment-cities__city": {"0": "start", "1": "end", "2": "none"}}}`,
			`{"end":"CMH","start":"NYC","time":"Mon, Jan 6, 2025"}`},
		{`{"type": "active_tab_html_parse", "goto_prefix": "http://", "category": "xpath", "xpathObject": {"/html/body/div[2]/p/b": "money", "/html/body/div[9]": "absent"}}`, `{"money":"over $60"}`},
		{`{"type": "active_tab_html_parse", "goto_prefix": "http://", "category": "input", "inputObject": {"//*[@id='who']": "name"}}`, `{"name":"Ada Lovelace"}`},
		{`{"type": "active_tab_html_parse", "goto_prefix": "http://", "category": "label", "labelObject": {"price:": "p"}}`, `{"p":"Price: over $60"}`},
		{`{"type": "active_tab_html_parse", "goto_prefix": "https://www.", "category": "class", "class_singleObject": {"search-date": "time"}}`, `{}`},
	}
	for _, tt := range tests {
		v, err := Get(t.Context(), env, rulesOf(t, tt.cfg).(map[string]any))
		b, _ := json.Marshal(v)
		if err != nil || string(b) != tt.want {
			t.Errorf("%s = %s, %v; want %s", tt.cfg, b, err, tt.want)
		}
	}
	// An XPath to an element that is not an input: Playwright raises.
	_, err = Get(t.Context(), env, map[string]any{"type": "active_tab_html_parse", "goto_prefix": "http://", "category": "input", "inputObject": map[string]any{"//b": "x"}})
	if err == nil {
		t.Error("input_value of a <b> gave no error")
	}
	pi, err := Get(t.Context(), env, map[string]any{"type": "page_info", "url": site.URL + "/other"})
	if m, _ := pi.(map[string]any); err != nil || m["title"] != "Page /other" || m["url"] != site.URL+"/other" {
		t.Errorf("page_info = %v, %v", pi, err)
	}
	if _, err := Get(t.Context(), portEnv{dirEnv: env.dirEnv}, map[string]any{"type": "page_info", "url": site.URL}); err == nil {
		t.Error("page_info without a browser gave no error")
	}
	// pdf_from_url prints the page; the PDF holds the page's text.
	pdf, err := Get(t.Context(), env, map[string]any{"type": "pdf_from_url", "path": flights, "dest": "flights.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	text, err := withPDFs(t.Context(), func(ctx context.Context, r *pdfReader) (string, error) { return r.pdfText(ctx, pdf) })
	if err != nil || !strings.Contains(text, "Price: over $60") || !strings.Contains(text, "CMH") {
		t.Errorf("the printed page reads %q, %v", text, err)
	}
}

func pages(ts []devtoolsTarget) []devtoolsTarget {
	var out []devtoolsTarget
	for _, t := range ts {
		if t.Type == "page" {
			out = append(out, t)
		}
	}
	return out
}
