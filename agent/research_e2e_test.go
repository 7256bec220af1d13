//go:build linux

package agent_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"deskpilot/actions/browser"
	"deskpilot/actions/inspect"
	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/agent/script"
	"deskpilot/internal/config"
)

// researchSite is a local web: a DuckDuckGo-shaped HTML results page, a long
// article whose fact sits viewports down, and a PDF.
type researchSite struct {
	srv     *httptest.Server
	mu      sync.Mutex
	queries []string // search queries received
}

func newResearchSite(t *testing.T) *researchSite {
	t.Helper()
	s := &researchSite{}
	pdf, err := os.ReadFile(filepath.Join("..", "actions", "inspect", "testdata", "paper.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /html/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.queries = append(s.queries, r.FormValue("q"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		fmt.Fprint(w, ddgPage(s.srv.URL))
	})
	mux.HandleFunc("GET /wiki/Vellmar_Bridge", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, longArticle())
	})
	mux.HandleFunc("GET /papers/otters.pdf", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(pdf)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// ddgPage is a results page in html.duckduckgo.com's markup: an ad (skipped),
// then results whose links go through DuckDuckGo's /l/?uddg= redirect.
func ddgPage(base string) string {
	result := func(title, link, snippet string) string {
		href := "//duckduckgo.com/l/?uddg=" + url.QueryEscape(link) + "&amp;rut=abc123"
		return `<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="` + href + `">` + html.EscapeString(title) + `</a></h2>
<div class="result__extras"><div class="result__extras__url"><a class="result__url" href="` + href + `">` + html.EscapeString(link) + `</a></div></div>
<a class="result__snippet" href="` + href + `">` + snippet + `</a></div></div>`
	}
	return `<!DOCTYPE html><html><head><title>vellmar bridge at DuckDuckGo</title></head><body><div id="links" class="results">
<div class="result results_links result--ad "><div class="links_main result__body"><h2 class="result__title">
<a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=tours.example">Bridge Tours - Book Today</a></h2>
<a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=tours.example">Guided climbs.</a></div></div>
` + result("Vellmar Bridge - Wikipedia", base+"/wiki/Vellmar_Bridge", "The <b>Vellmar Bridge</b> is a stone arch bridge over the Arn.") +
		result("Bridges of the Arn valley", "https://bridges.example/arn", "A guide to the <b>bridges</b> of the valley.") +
		`</div></body></html>`
}

// longArticle is an encyclopaedia-style page: navigation, then an article of
// about 11,000 characters (three viewports) whose keystone inscription comes at
// the end.
func longArticle() string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Vellmar Bridge - Wikipedia</title><script>var tracking = 1;</script></head><body>
<nav><a href="/">Main page</a> <a href="/random">Random article</a></nav><main><h1>Vellmar Bridge</h1>
<p>The <b>Vellmar Bridge</b> is a stone arch bridge over the river Arn.</p>`)
	sections := []string{"History", "Construction", "Flood of 1784", "Restoration", "Traffic", "In culture"}
	for i, sec := range sections {
		fmt.Fprintf(&b, "<h2>%s</h2>", sec)
		for j := range 8 {
			fmt.Fprintf(&b, "<p>Section %d, paragraph %d. The masons of the valley cut the grey limestone in the quarries upstream and floated the blocks down on rafts, a slow work that lasted many seasons and cost the town much of its treasury.</p>", i+1, j+1)
		}
		if sec == "In culture" {
			b.WriteString("<p>During the restoration the keystone inscription was uncovered: it gives the year of completion as 1391.</p>")
		}
	}
	b.WriteString(`<p>See also: <a href="/wiki/Arn">Arn</a>.</p></main><footer>Text is available under a licence.</footer></body></html>`)
	return b.String()
}

// linkIn returns the first markdown link target in the last observation.
var mdLink = regexp.MustCompile(`\]\((http[^)\s]+)\)`)

// TestResearchEndToEnd: a scripted model searches the web, opens the first
// result, pages down, finds a fact on the page and answers with it; the
// browser talks only to local servers.
func TestResearchEndToEnd(t *testing.T) {
	site := newResearchSite(t)
	var visited string
	r := newRig(t, config.Settings{},
		code(`print(web_search("Vellmar Bridge year of completion"))`),
		llmtest.Reply{Func: func(req llmtest.Request) string {
			// Open the first result the observation lists, as a model would.
			m := mdLink.FindStringSubmatch(req.Last("user").Text())
			if m == nil {
				return "Thought: no results.\n```python\nfinal_answer(\"no results\")\n```"
			}
			visited = m[1]
			return fmt.Sprintf("Thought: open the first result.\n```python\npage = visit_page(%q)\nprint(page)\n```", m[1])
		}},
		code(`print(page_down())`),
		code(`print(find_on_page("year of completion"))`),
		code(`final_answer("The Vellmar Bridge was completed in 1391.")`),
	)
	r.agent.Tools = script.Research(script.ResearchDeps{Browser: browser.New(browser.Options{
		AllowPrivate: true, // the test's servers are on loopback
		Search:       browser.DuckDuckGo{BaseURL: site.srv.URL + "/html/"},
		DownloadDir:  t.TempDir(),
	})})
	fin := r.run("In which year was the Vellmar Bridge completed?")
	if fin.Outcome != agent.Answered || fin.Answer != "The Vellmar Bridge was completed in 1391." {
		t.Fatalf("run ended %s %q (error %q)", fin.Outcome, fin.Answer, fin.Error)
	}
	article := site.srv.URL + "/wiki/Vellmar_Bridge"
	if visited != article {
		t.Errorf("the model opened %q, want the first real result %q", visited, article)
	}
	if len(site.queries) != 1 || site.queries[0] != "Vellmar Bridge year of completion" {
		t.Errorf("search backend got queries %q", site.queries)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	if sys := reqs[0].Last("system").Text(); !strings.Contains(sys, "def web_search(query: str, year: int | None = None) -> str:") ||
		!strings.Contains(sys, "def find_on_page(text: str) -> str:") {
		t.Errorf("the system prompt lacks the browser stubs")
	}
	// What the model read after each step.
	obs := []struct {
		step     int
		has, not []string
	}{
		{1, []string{
			"A web search for 'Vellmar Bridge year of completion' found 2 results",
			"1. [Vellmar Bridge - Wikipedia](" + article + ")",
			"2. [Bridges of the Arn valley](https://bridges.example/arn)",
			`- web_search("Vellmar Bridge year of completion"): 2 results`,
		}, []string{"Bridge Tours"}},
		{2, []string{
			"Address: " + article + "\nTitle: Vellmar Bridge - Wikipedia\nViewport position: Showing page 1 of 3.",
			"# Vellmar Bridge", "Section 1, paragraph 1.",
			`- visit_page("` + article + `"): Address: ` + article + `, page 1 of 3`,
		}, []string{"tracking", "Random article", "keystone"}},
		{3, []string{"Viewport position: Showing page 2 of 3.", "- page_down(): Address: " + article + ", page 2 of 3"}, []string{"keystone"}},
		{4, []string{"Viewport position: Showing page 3 of 3.", "the keystone inscription was uncovered: it gives the year of completion as 1391.",
			`- find_on_page("year of completion"): found: Address: ` + article + ", page 3 of 3"}, nil},
	}
	for _, o := range obs {
		got := r.lastUser(o.step)
		for _, w := range o.has {
			if !strings.Contains(got, w) {
				t.Errorf("observation after step %d lacks %q:\n%s", o.step, w, got)
			}
		}
		for _, w := range o.not {
			if strings.Contains(got, w) {
				t.Errorf("observation after step %d holds %q", o.step, w)
			}
		}
	}
	tr := r.readTrace(fin)
	s4, _ := tr.Step(4)
	if acts := s4.Actions; len(acts) != 1 || acts[0].Name != "find_on_page" || !strings.HasPrefix(acts[0].Result, "found") {
		t.Errorf("trace step 4 actions = %+v", acts)
	}
}

// TestResearchInspectEndToEnd: the model downloads a PDF through the browser,
// reads a DOCX with inspect_file, asks a question about the PDF (answered by the
// same model endpoint) and answers. A file outside the allowed folders is refused.
func TestResearchInspectEndToEnd(t *testing.T) {
	site := newResearchSite(t)
	docs, downloads := t.TempDir(), t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "actions", "inspect", "testdata", "report.docx"))
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(docs, "report.docx")
	if err := os.WriteFile(report, src, 0o600); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "private.txt")
	if err := os.WriteFile(outside, []byte("not for the agent"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, config.Settings{},
		code(`print(visit_page("`+site.srv.URL+`/papers/otters.pdf"))`),
		code(`print(inspect_file("`+report+`"))`),
		code(`print(inspect_file("`+filepath.Join(downloads, "otters.pdf")+`", question="How many animals were in the largest group?"))`),
		llmtest.Reply{Text: "The largest group had seven animals."}, // the inspector's question to the model
		code(`print(inspect_file("`+outside+`"))`),
		code(`final_answer("seven")`),
	)
	in := inspect.New(inspect.Options{Roots: []string{docs}, DownloadDir: downloads, Home: docs,
		Ask: agent.InspectAsk(r.agent.Model, r.agent.Config)})
	r.agent.Tools = script.Research(script.ResearchDeps{
		Inspector: in,
		Browser: browser.New(browser.Options{AllowPrivate: true, DownloadDir: downloads,
			Search: browser.SearXNG{BaseURL: site.srv.URL}, Inspect: func(ctx context.Context, p string) (string, error) {
				return in.Inspect(ctx, p, "")
			}}),
	})
	fin := r.run("How many otters were in the largest group?")
	if fin.Outcome != agent.Answered || fin.Answer != "seven" {
		t.Fatalf("run ended %s %q (error %q)", fin.Outcome, fin.Answer, fin.Error)
	}
	reqs := r.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	for i, want := range map[int][]string{
		1: {"Saved the file (application/pdf, ", "to '" + filepath.Join(downloads, "otters.pdf") + "'", "<!-- Page 1 of 3 -->", "Field Notes on River Otters"},
		2: {"# Quarterly Report", "- Revenue grew by 12 percent.", "inspect_file(\"" + report + "\"): ", " characters"},
		4: {"The largest group had seven animals.", "answered: The largest group had seven animals."},
		5: {"Error: ", "inspect_file: " + outside + " is outside the folders the inspector may read"},
	} {
		got := reqs[i].Last("user").Text()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("observation %d lacks %q:\n%s", i, w, got)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(downloads, "otters.pdf")); err != nil {
		t.Errorf("the PDF was not saved in the downloads folder: %v", err)
	}
	// The question about the PDF went to the model with the file's text.
	ask := reqs[3]
	if q := ask.Last("user").Text(); !strings.Contains(q, "The largest group had seven animals.") ||
		!strings.Contains(q, "Question: How many animals were in the largest group?") {
		t.Errorf("the inspector asked:\n%s", q)
	}
	if ask.Last("system").Text() == reqs[0].Last("system").Text() {
		t.Errorf("the file question reused the agent's system prompt")
	}
}
