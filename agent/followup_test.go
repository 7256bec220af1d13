//go:build linux

package agent_test

import (
	"strings"
	"testing"

	"deskpilot/agent"
	"deskpilot/internal/config"
)

// A follow-up in the same process continues the code's state: the variables
// and functions the first run defined are there in the second, whose model is
// told so and gets the first run's history. Released, a session keeps nothing:
// a follow-up of it starts with no variables, and its model is told that.
func TestFollowUpKeepsTheCodesState(t *testing.T) {
	r := newRig(t, config.Settings{},
		code("total = 41\ndef bump(v):\n    return v + 1\nprint(\"stored\")"),
		code("final_answer(\"noted\")"),
		code("final_answer(str(bump(total)))"),
		code("print(total)"),
		code("final_answer(\"gone\")"))
	r.agent.KeepCode = true
	first := r.agent.Start(t.Context(), "remember a number", r.hooks())
	<-first.Done()
	if fin := first.Result(); fin.Outcome != agent.Answered {
		t.Fatalf("first run: %s (%s)", fin.Outcome, fin.Error)
	}
	second, err := r.agent.ContinueSession(t.Context(), first, "add one to it", r.hooks())
	if err != nil {
		t.Fatal(err)
	}
	<-second.Done()
	if fin := second.Result(); fin.Outcome != agent.Answered || fin.Answer != "42" {
		t.Fatalf("follow-up: %s %q (%s); want the answer 42 from the first run's variables", fin.Outcome, fin.Answer, fin.Error)
	}
	reqs := r.srv.Requests()
	body := string(reqs[2].Body)
	for _, want := range []string{"remember a number", "total = 41", "still there", "add one to it"} {
		if !strings.Contains(body, want) {
			t.Errorf("the follow-up's first request lacks %q", want)
		}
	}

	// The second session is released, not followed up in this process: a
	// follow-up of it runs in a fresh child.
	second.Release()
	third, err := r.agent.ContinueSession(t.Context(), second, "print it", r.hooks())
	if err != nil {
		t.Fatal(err)
	}
	<-third.Done()
	if fin := third.Result(); fin.Outcome != agent.Answered {
		t.Fatalf("third run: %s (%s)", fin.Outcome, fin.Error)
	}
	reqs = r.srv.Requests()
	if body := string(reqs[3].Body); !strings.Contains(body, "are gone") {
		t.Error("the model of a released session's follow-up is not told its variables are gone")
	}
	if obs := reqs[4].Last("user").Text(); !strings.Contains(obs, "total") || !strings.Contains(obs, "undefined") {
		t.Errorf("after Release the variable still exists; the model was told: %q", obs)
	}
	third.Release()
}
