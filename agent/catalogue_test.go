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
// the prompt, the guard and the app all read the catalogue, so the two must agree.
func TestEveryBuiltinIsImplemented(t *testing.T) {
	r := &runState{a: &Agent{Tools: script.Research(script.ResearchDeps{
		Browser: browser.New(browser.Options{}), Inspector: inspect.New(inspect.Options{}),
	}), Grounder: &Grounder{Name: "g"}}}
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
		want = append(want, b.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("registered %v\ncatalogue  %v", got, want)
	}
}
