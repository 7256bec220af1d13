//go:build linux

package agent_test

import (
	"strings"
	"testing"

	"deskpilot/agent"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
)

// Every event a run delivers (to the app, the terminal and the trace alike)
// is redacted, the reply streamed piece by piece too: a model that writes a
// secret it was told in the task sends it nowhere but to the screen.
func TestEventsAreRedacted(t *testing.T) {
	const secret = "hunter2-Secret" // the rig's type_secret("password")
	r := newRig(t, config.Settings{},
		llmtest.Reply{Text: "Thought: the task says hunter2-Secret; I type it as " + secret[:9] + " and " + secret[5:] + ".\n" +
			"```python\nprint(\"" + secret + "\")\nfinal_answer(\"" + secret + "\"[::-1])\n```"})
	fin := r.run("log in with " + secret)
	if fin.Outcome != agent.Answered || fin.Answer != "[secret:password]" {
		t.Fatalf("%s %q (%s)", fin.Outcome, fin.Answer, fin.Error)
	}
	var deltas strings.Builder
	var all []string
	r.events.mu.Lock()
	for _, e := range r.events.events {
		switch e := e.(type) {
		case agent.TextDelta:
			deltas.WriteString(e.Text)
		case agent.RunStarted:
			all = append(all, e.Task)
		case agent.ModelReplied:
			all = append(all, e.Text)
		case agent.CodeParsed:
			all = append(all, e.Code, e.Thought)
		case agent.Observed:
			all = append(all, e.Text, e.Output, e.Error)
		case agent.Finished:
			all = append(all, e.Answer)
		}
	}
	r.events.mu.Unlock()
	all = append(all, deltas.String())
	for _, s := range all {
		if strings.Contains(s, "hunter") || strings.Contains(s, "Secret") || strings.Contains(s, "terceS") {
			t.Errorf("an event holds the secret: %q", s)
		}
	}
	if !strings.Contains(deltas.String(), "the task says [secret:password]; I type it as [secret:password] and [secret:password].") {
		t.Errorf("the streamed reply: %q", deltas.String())
	}
}
