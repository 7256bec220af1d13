package agent

import (
	"slices"
	"testing"

	"deskpilot/actions/browser"
	"deskpilot/actions/inspect"
	"deskpilot/agent/script"
)

// Every builtin of the catalogue has an implementation in a fully wired run (one
// with a grounder: locate), and every tool a run registers is in the catalogue:
// the prompt, the guard and the app all read the catalogue, so the two must
// agree. A run with a model has every builtin but the replay kind (never offered
// to a model); a replay has them all.
func TestEveryBuiltinIsImplemented(t *testing.T) {
	research := script.Research(script.ResearchDeps{
		Browser: browser.New(browser.Options{}), Inspector: inspect.New(inspect.Options{}),
	})
	for _, c := range []struct {
		name   string
		replay *replayer
	}{{"run", nil}, {"replay", &replayer{}}} {
		t.Run(c.name, func(t *testing.T) {
			a := &Agent{Tools: research, Grounder: &Grounder{Name: "g"}}
			r := &runState{a: a, replay: c.replay, locator: &locator{a: a}, layers: &layers{a: a}}
			var got []string
			for _, tool := range r.tools() {
				if tool.Kind == "" {
					t.Errorf("%s has no kind: it was not bound from the catalogue", tool.Name)
				}
				got = append(got, tool.Name)
			}
			got = append(got, "final_answer") // the executor adds it
			var want []string
			for _, b := range script.Builtins() {
				if b.Kind != script.KindReplay || c.replay != nil {
					want = append(want, b.Name)
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("registered %v\ncatalogue  %v", got, want)
			}
		})
	}
}
