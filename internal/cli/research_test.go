package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
)

// researchSite serves a SearXNG JSON endpoint and one article on loopback.
func researchSite(t *testing.T) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"results": [{"url": %q, "title": "Harbour opening hours", "content": "Opening hours of the harbour office."}]}`, srv.URL+"/hours")
	})
	mux.HandleFunc("/hours", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>Harbour office</title></head><body><main><p>The harbour office opens at 07:45 on weekdays.</p></main></body></html>")
	})
	mux.HandleFunc("/paper.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		http.ServeFile(w, r, filepath.Join("..", "..", "actions", "inspect", "testdata", "paper.pdf"))
	})
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// TestRunWithResearchTools checks the CLI's wiring of the browser and the
// inspector: the search backend, loopback allowed by the environment, the
// downloads folder, and questions about files answered by the run's model.
func TestRunWithResearchTools(t *testing.T) {
	traces := isolate(t)
	home, cache := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", cache)
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("Meeting with the harbour master on Thursday.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	site := researchSite(t)
	t.Setenv("DESKPILOT_SEARCH_BACKEND", "searxng")
	t.Setenv("DESKPILOT_SEARCH_URL", site.URL)
	t.Setenv("DESKPILOT_BROWSER_ALLOW_PRIVATE", "1")
	srv := llmtest.New(t,
		reply(`print(web_search("harbour office hours"))`),
		reply(`print(visit_page("`+site.URL+`/hours"))`),
		reply(`print(inspect_file("~/notes.txt", question="When is the meeting?"))`),
		llmtest.Reply{Text: "On Thursday."}, // the inspector's question
		reply(`print(visit_page("`+site.URL+`/paper.pdf"))`),
		reply(`final_answer("07:45; meeting on Thursday")`),
	)
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--trace-dir", traces, "-q", "harbour hours")
	if code != exitAnswered || strings.TrimSpace(out) != "07:45; meeting on Thursday" {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	for i, want := range map[int]string{
		1: "1. [Harbour opening hours](" + site.URL + "/hours)",
		2: "The harbour office opens at 07:45 on weekdays.",
		4: "On Thursday.",
	} {
		if got := reqs[i].Last("user").Text(); !strings.Contains(got, want) {
			t.Errorf("observation %d lacks %q:\n%s", i, want, got)
		}
	}
	ask := reqs[3]
	if sys := ask.Last("system").Text(); !strings.Contains(sys, "question about a file") {
		t.Errorf("the file question's system message is %q", sys)
	}
	if q := ask.Last("user").Text(); !strings.Contains(q, "Meeting with the harbour master on Thursday.") || !strings.Contains(q, "Question: When is the meeting?") {
		t.Errorf("the file question is %q", q)
	}
	// The PDF was saved in this run's own downloads folder and read back as text.
	saved, err := filepath.Glob(filepath.Join(cache, "deskpilot", "downloads", "*", "paper.pdf"))
	if err != nil || len(saved) != 1 {
		t.Fatalf("downloaded PDF not in a run folder under the downloads: %v %v\n%s", saved, err, reqs[5].Last("user").Text())
	}
	if got := reqs[5].Last("user").Text(); !strings.Contains(got, saved[0]) {
		t.Errorf("the visit of the PDF does not say where it was saved (%s):\n%s", saved[0], got)
	}
}
