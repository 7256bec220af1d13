package script

import (
	"context"
	"slices"
	"testing"

	"deskpilot/actions"
	"deskpilot/vision"
)

// The catalogue's traits agree with its kinds and parameters: a gesture is
// made at a point by a pointer builtin, typing is the keyboard's, a Grounded
// entry takes coordinates to replace, and what Sends names is a parameter.
func TestCatalogueTraits(t *testing.T) {
	for _, b := range Builtins() {
		if (b.Gesture != "") != (b.Kind == KindPointer) {
			t.Errorf("%s: gesture %q on a builtin of kind %s", b.Name, b.Gesture, b.Kind)
		}
		if b.Gesture != "" && b.Target == "" {
			t.Errorf("%s: gesture %q at no target", b.Name, b.Gesture)
		}
		if b.Types != "" && b.Kind != KindKeyboard {
			t.Errorf("%s types %q but is of kind %s", b.Name, b.Types, b.Kind)
		}
		if b.Grounded && b.Target != actions.TargetXY {
			t.Errorf("%s is grounded but its target is %q, not coordinates", b.Name, b.Target)
		}
		for _, s := range b.Sends {
			if !slices.ContainsFunc(b.Params, func(p Param) bool { return p.Name == s }) {
				t.Errorf("%s sends %q, which is none of its parameters", b.Name, s)
			}
		}
		if got := Traits()[b.Name]; got != b.Traits() {
			t.Errorf("Traits()[%s] = %+v, want %+v", b.Name, got, b.Traits())
		}
	}
}

// Log stamps an action with its builtin's traits and keeps the call's own
// target: a described click records that the grounder found its point.
func TestLogStampsTraits(t *testing.T) {
	ground := func(context.Context, string) (Grounding, error) {
		return Grounding{At: vision.ScreenPoint{X: 2000, Y: 100}, Grounder: "g"}, nil
	}
	d := DesktopDeps{Mapper: vision.NewMapper(testDisplay, 960, ""), Input: &fakeInput{}, Ground: ground}
	res := New(Options{}, Desktop(d)...).Exec(t.Context(), `click(10, 20)
type_text("hi")
click("the Save button")`)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := []actions.Traits{
		{Target: actions.TargetXY, Gesture: actions.GestureClick},
		{Types: actions.TypesText},
		{Target: actions.TargetGrounder}, // locate
		{Target: actions.TargetGrounder, Gesture: actions.GestureClick},
	}
	var got []actions.Traits
	for _, a := range res.Actions {
		got = append(got, a.Traits)
	}
	if !slices.Equal(got, want) {
		t.Errorf("traits %+v, want %+v", got, want)
	}
}
