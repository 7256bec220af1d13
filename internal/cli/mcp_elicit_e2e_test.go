package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/agent/llm/llmtest"
)

// run_task's approvals and questions on the newest revision the official
// TypeScript client and the Go SDK agree on, over stdio and streamable
// HTTP: a host that elicits answers the confirmation policy (Allow starts the
// program, Deny refuses it) and ask_user; a host without elicitation gets
// refusals, never an approval, and the model reads why in its next request.
func TestMCPRunTaskElicitation(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		for _, c := range []struct {
			elicit   string
			modes    []string // the elicitation modes declared; nil = form
			launched bool
			// model is what the model's next request says of the launch and
			// the question.
			model []string
		}{
			{"allow", nil, true, []string{"started (pid", "reply: yes"}},
			{"deny", nil, false, []string{"did not allow", "did not answer (decline)"}},
			{"", nil, false, []string{"offers no elicitation", "offers no elicitation"}},
			// A host that shows no forms (url mode only) cannot approve.
			{"allow", []string{"url"}, false, []string{"offers no elicitation", "offers no elicitation"}},
		} {
			t.Run(fmt.Sprintf("%s/elicit=%s%v", transport, c.elicit, c.modes), func(t *testing.T) {
				traces, env := mcpEnv(t)
				file := filepath.Join(t.TempDir(), "launched")
				srv := llmtest.New(t,
					reply(fmt.Sprintf("launch(%q)", "touch "+file)),
					reply(`print("reply:", ask_user("Shall I go on?"))`),
					reply(`final_answer("done")`))
				args := []string{"--base-url", srv.URL, "--model", "m", "--trace-dir", traces}
				steps := []map[string]any{
					step("protocol"),
					step("call", "name", "run_task", "args", map[string]any{"task": "launch and ask"}),
				}
				plan := stdioPlan(t, env, args, steps...)
				if transport == "http" {
					plan = map[string]any{"transport": "http", "url": httpServer(t, env, args...), "steps": steps}
				}
				if c.elicit != "" {
					plan["elicit"] = c.elicit
					if c.elicit == "allow" {
						plan["elicit"] = "answer:yes"
					}
					if c.modes != nil {
						plan["elicitModes"] = c.modes
					}
				}
				res := host(t, plan)
				if p := res[0]; p["negotiated"] != p["offered"] || p["offered"] == nil {
					t.Errorf("the client offered %v and the server chose %v", p["offered"], p["negotiated"])
				}
				call := res[1]
				checkLaunchAndAsk(t, call, file, c.launched, srv, c.model)
				asked, _ := call["elicited"].([]any)
				if c.elicit != "" && c.modes == nil && (len(asked) != 2 || !strings.Contains(fmt.Sprint(asked[0]), "touch") ||
					!strings.Contains(fmt.Sprint(asked[1]), "Shall I go on?")) {
					t.Errorf("the host was asked %q", asked)
				}
				if c.modes != nil && len(asked) != 0 {
					t.Errorf("a host without forms was sent forms: %q", asked)
				}
			})
		}
	}
}

// checkLaunchAndAsk checks a run_task call whose task launched file and
// asked a question: it answered, the launch happened as launched says, and
// the model's second and third requests told it model[0] and model[1].
func checkLaunchAndAsk(t *testing.T, call map[string]any, file string, launched bool, srv *llmtest.Server, model []string) {
	t.Helper()
	if !strings.Contains(text(call), "outcome: answered") {
		t.Fatalf("run_task: %v", call)
	}
	_, err := os.Stat(file)
	if got := err == nil; got != launched {
		t.Errorf("launched %v, want %v", got, launched)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model was asked %d times, want 3", len(reqs))
	}
	for i, want := range model {
		if got := reqs[i+1].Last("user").Text(); !strings.Contains(got, want) {
			t.Errorf("request %d does not tell the model %q:\n%s", i+2, want, got)
		}
	}
}
