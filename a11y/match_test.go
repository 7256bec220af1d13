package a11y

import (
	"errors"
	"image"
	"slices"
	"testing"
)

func TestParseRole(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		hint string // for errors
	}{
		{in: "push button", want: []string{"push button"}},
		{in: "PUSH_BUTTON", want: []string{"push button"}},
		{in: "pushbutton", want: []string{"push button"}},
		{in: "Button", want: []string{"push button", "toggle button", "push button menu"}},
		{in: "check-box", want: []string{"check box"}},
		{in: "checkbox", want: []string{"check box", "check menu item"}},
		{in: "entry", want: []string{"entry", "text", "password text", "spin button"}},
		{in: "textbox", want: []string{"entry", "text", "password text", "spin button"}},
		{in: "text", want: []string{"text"}},
		{in: " Table  Cell ", want: []string{"table cell"}},
		{in: "buton", hint: "button"},
		{in: "chekbox", hint: "checkbox"},
		{in: "zzzzzzzzzzzz", hint: ""},
		{in: "", hint: ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseRole(tc.in)
			if tc.want != nil {
				if err != nil || !slices.Equal(got, tc.want) {
					t.Errorf("ParseRole(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
				}
				return
			}
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Suggestion != tc.hint || qe.Field != "role" {
				t.Errorf("ParseRole(%q) error = %v, want a role QueryError suggesting %q", tc.in, err, tc.hint)
			}
		})
	}
}

func TestParseStates(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []stateWant
		bad  bool
	}{
		{in: []string{"focused", "Checked"}, want: []stateWant{{12, false}, {4, false}}},
		{in: []string{"!checked", "not enabled"}, want: []stateWant{{4, true}, {8, true}}},
		{in: []string{"disabled", "unchecked"}, want: []stateWant{{8, true}, {4, true}}},
		{in: []string{"!disabled"}, want: []stateWant{{8, false}}},
		{in: []string{"multi line", "READ_ONLY"}, want: []stateWant{{17, false}, {43, false}}},
		{in: []string{"invalid"}, bad: true},
		{in: []string{"shiny"}, bad: true},
		{in: []string{""}, bad: true},
	} {
		got, err := parseStates(tc.in)
		if tc.bad {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Errorf("parseStates(%q) = %v, %v; want a QueryError", tc.in, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("parseStates(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// sample is a small dialog as Elements would return it, in tree order.
func sample() []Element {
	r := func(x, y int) image.Rectangle { return image.Rect(x, y, x+80, y+30) }
	return []Element{
		{Name: "Save changes?", Role: "dialog", Bounds: image.Rect(0, 0, 400, 300), States: []string{"active", "enabled"}},
		{Name: "Save changes to document?", Role: "label", Bounds: r(10, 10)},
		{Name: "Don't Save", Role: "push button", Bounds: r(10, 200), Interactive: true, States: []string{"enabled"}},
		{Name: "Cancel", Role: "push button", Bounds: r(100, 200), Interactive: true, States: []string{"enabled", "focused"}},
		{Name: "Save", Role: "push button", Bounds: r(200, 200), Interactive: true, States: []string{"enabled", "is-default"}},
		{Name: "Autosave", Role: "check box", Bounds: r(10, 100), Interactive: true, States: []string{"enabled", "checked"}},
		{Name: "Backup", Role: "check box", Bounds: r(10, 140), Interactive: true},
	}
}

func TestMatch(t *testing.T) {
	names := func(els []Element) []string {
		out := make([]string, len(els))
		for i, e := range els {
			out[i] = e.Name
		}
		return out
	}
	for _, tc := range []struct {
		name string
		q    Query
		want []string
	}{
		{"all in tree order", Query{}, names(sample())},
		// Exact first, then prefix, then word start; interactive before not.
		{"ranked", Query{Name: "save"}, []string{"Save", "Save changes?", "Save changes to document?", "Don't Save", "Autosave"}},
		{"exact", Query{Name: "  SAVE ", Exact: true}, []string{"Save"}},
		{"white space", Query{Name: "save   changes to"}, []string{"Save changes to document?"}},
		{"role alias", Query{Role: "button"}, []string{"Don't Save", "Cancel", "Save"}},
		{"states", Query{Role: "checkbox", States: []string{"checked"}}, []string{"Autosave"}},
		{"negated", Query{Role: "checkbox", States: []string{"unchecked"}}, []string{"Backup"}},
		{"disabled", Query{States: []string{"disabled"}, Interactive: true}, []string{"Backup"}},
		{"within", Query{Within: image.Rect(90, 190, 300, 240)}, []string{"Save changes?", "Cancel", "Save"}},
		{"interactive", Query{Interactive: true, States: []string{"focused"}}, []string{"Cancel"}},
		{"none", Query{Name: "quit"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Match(sample(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if g := names(got); !slices.Equal(g, tc.want) {
				t.Errorf("Match(%+v) = %q, want %q", tc.q, g, tc.want)
			}
		})
	}
}

func TestNoteString(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    Note
		want string
	}{
		{"complete", Note{Apps: 2, Nodes: 40}, ""},
		{"empty display", Note{OtherDisplay: 3},
			"no application on this display exposes accessible elements (toolkits such as Tk, Xaw and most games have none); " +
				"use find_text to locate controls by their visible text"},
		{"cut and skipped", Note{Apps: 1, Cut: []string{"node limit 10 reached", "time limit 3s reached"},
			Skipped: []Skip{{App: "firefox", PID: 42, Reason: "did not answer within 1s"}}},
			"accessibility tree cut short: node limit 10 reached; time limit 3s reached\nskipped firefox (pid 42): did not answer within 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.n.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
			if tc.n.Complete() != (len(tc.n.Cut) == 0 && len(tc.n.Skipped) == 0) {
				t.Error("Complete disagrees")
			}
		})
	}
}

func TestUnavailableError(t *testing.T) {
	cause := errors.New("dial unix /x: no such file")
	err := error(&UnavailableError{Reason: "no accessibility bus", Err: cause})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, cause) {
		t.Errorf("%v does not match ErrUnavailable and its cause", err)
	}
	want := "accessibility tree unavailable: no accessibility bus: dial unix /x: no such file; " +
		"use find_text to locate controls by their visible text instead"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}
