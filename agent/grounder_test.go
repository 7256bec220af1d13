package agent_test

import (
	"strings"
	"testing"

	"deskpilot/agent"
	"deskpilot/agent/dialect"
	"deskpilot/agent/llm"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/config"
)

// A grounder's point outside its own space is an error the planner sees, never
// clamped; a block that asks the grounder again and again is stopped after
// maxGroundings calls; the grounder's tokens count in the run's usage.
func TestGrounderBounds(t *testing.T) {
	r := newRig(t, config.Settings{},
		code(`print(locate("the far corner"))`),
		code("for i in range(40):\n    locate(\"the Save button\")"),
		code(`final_answer("done")`),
	)
	replies := []llmtest.Reply{{Text: "(5000, 10)", Usage: &llmtest.Usage{Prompt: 1000, Completion: 5}}}
	for range 16 {
		replies = append(replies, llmtest.Reply{Text: "(640, 400)", Usage: &llmtest.Usage{Prompt: 1000, Completion: 5}})
	}
	gsrv := llmtest.New(t, replies...)
	point, err := dialect.GrounderByName("point")
	if err != nil {
		t.Fatal(err)
	}
	r.agent.Grounder = &agent.Grounder{Model: llm.New(llm.Config{BaseURL: gsrv.URL, Model: "g"}), Name: "g", Dialect: point}
	fin := r.run("find things")
	if fin.Outcome != agent.Answered {
		t.Fatalf("run ended %s (%s)", fin.Outcome, fin.Error)
	}
	if obs := r.lastUser(1); !strings.Contains(obs, "answered a point for \"the far corner\" outside its 1280x800 image (pixels)") ||
		!strings.Contains(obs, "point (5000, 10) is outside the screenshot") {
		t.Errorf("a point outside the grounder's space did not reach the planner as an error:\n%s", obs)
	}
	if obs := r.lastUser(2); !strings.Contains(obs, "the grounder was asked 16 times in this block already") {
		t.Errorf("the loop of groundings was not stopped:\n%s", obs)
	}
	if n := len(gsrv.Requests()); n != 17 {
		t.Errorf("%d grounder calls, want 1 + 16", n)
	}
	if fin.Usage.Input < 17000 {
		t.Errorf("usage %+v does not count the grounder's tokens", fin.Usage)
	}
}
