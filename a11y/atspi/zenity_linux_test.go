package atspi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"deskpilot/a11y"
	"deskpilot/actions"
)

// The tests in this file find controls of real GTK 3 dialogs (zenity) through the
// accessibility tree only, click their centres and type with real input, and check
// what the dialog printed or how it exited: the right control was hit.

func TestQuestionButtons(t *testing.T) {
	for _, tc := range []struct {
		query    a11y.Query
		wantExit int
	}{
		{a11y.Query{Name: "yes", Role: "button"}, 0},
		{a11y.Query{Name: "No", Exact: true, Role: "push button"}, 1},
	} {
		t.Run(tc.query.Name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			e := newEnv(t, Options{})
			app := e.zenity(t, ctx, "--question", "--title", "Question "+tc.query.Name, "--text", "Proceed?")
			btn := e.find(t, ctx, app, tc.query)
			if btn.Role != "push button" || !btn.Interactive || !btn.Has("enabled") {
				t.Errorf("button %+v", btn)
			}
			label := e.find(t, ctx, app, a11y.Query{Name: "proceed?", Exact: true})
			if label.Role != "label" || label.Interactive {
				t.Errorf("label %+v", label)
			}
			e.click(t, ctx, btn)
			if code, out := waitExit(t, ctx, app); code != tc.wantExit {
				t.Errorf("zenity exited %d, want %d (output %q)", code, tc.wantExit, out)
			}
		})
	}
}

func TestEntryTyped(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	app := e.zenity(t, ctx, "--entry", "--title", "Entry test", "--text", "Your name")
	// The field has no name of its own: it is named by its labelled-by relation.
	field := e.find(t, ctx, app, a11y.Query{Name: "your name", Role: "textbox"})
	if field.Role != "text" || !field.Has("editable") {
		t.Fatalf("field %+v", field)
	}
	e.click(t, ctx, field)
	e.waitFor(t, ctx, app, a11y.Query{Name: "your name", Role: "textbox"}, "field focused after the click",
		func(el a11y.Element) bool { return el.Has("focused") })
	const typed = "Grüße 東京 42"
	e.typeText(t, ctx, typed)
	// The tree now holds what was typed.
	e.waitFor(t, ctx, app, a11y.Query{Name: "your name", Role: "entry", States: []string{"focused"}}, "field text is what was typed",
		func(el a11y.Element) bool { return el.Text == typed })
	e.click(t, ctx, e.find(t, ctx, app, a11y.Query{Name: "OK", Exact: true, Role: "button"}))
	code, out := waitExit(t, ctx, app)
	if code != 0 || stdout(out) != typed {
		t.Errorf("zenity exited %d printing %q, want 0 and %q", code, stdout(out), typed)
	}
}

func TestChecklist(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	app := e.zenity(t, ctx, "--list", "--checklist", "--title", "Fruit", "--text", "Pick fruit",
		"--column", "Pick", "--column", "Fruit", "TRUE", "Apple", "FALSE", "Banana", "FALSE", "Cherry")
	// GTK's toggle cells are nameless table cells: the walk names them after their
	// row and reports them as check boxes.
	apple := e.find(t, ctx, app, a11y.Query{Name: "apple", Role: "checkbox"})
	if !apple.Has("checked") {
		t.Errorf("Apple is not checked: %+v", apple)
	}
	banana := e.find(t, ctx, app, a11y.Query{Name: "Banana", Role: "check box", States: []string{"unchecked"}})
	e.click(t, ctx, banana)
	e.waitFor(t, ctx, app, a11y.Query{Name: "Banana", Role: "check box"}, "Banana checked after the click",
		func(el a11y.Element) bool { return el.Has("checked") })
	e.click(t, ctx, e.find(t, ctx, app, a11y.Query{Name: "ok", Exact: true, Role: "button"}))
	code, out := waitExit(t, ctx, app)
	if code != 0 || stdout(out) != "Apple|Banana" {
		t.Errorf("zenity exited %d printing %q, want 0 and %q", code, stdout(out), "Apple|Banana")
	}
}

func TestFormsFields(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	e := newEnv(t, Options{})
	app := e.zenity(t, ctx, "--forms", "--title", "Account", "--text", "New account",
		"--add-entry", "First name", "--add-password", "Secret", "--add-entry", "City")
	// These fields have no name and no relation: they are named after the label on
	// their left.
	values := []struct{ field, role, typed string }{
		{"First name", "text", "Ada"},
		{"Secret", "password text", "hunter2"},
		{"City", "text", "Zürich"},
	}
	for _, v := range values {
		f := e.find(t, ctx, app, a11y.Query{Name: v.field, Exact: true, Role: "textbox"})
		if f.Role != v.role {
			t.Errorf("field %q has role %q, want %q", v.field, f.Role, v.role)
		}
		e.click(t, ctx, f)
		// GTK may handle keys queued right behind the click before it moves the
		// focus; a person (and the agent's settle step) waits for the caret.
		e.waitFor(t, ctx, app, a11y.Query{Name: v.field, Exact: true, Role: "textbox"}, v.field+" focused after the click",
			func(el a11y.Element) bool { return el.Has("focused") })
		e.typeText(t, ctx, v.typed)
	}
	e.waitFor(t, ctx, app, a11y.Query{Name: "city", Role: "entry"}, "City field holds what was typed",
		func(el a11y.Element) bool { return el.Text == "Zürich" })
	for _, el := range e.all(t, ctx) {
		if el.PID == app.Cmd.Process.Pid && strings.Contains(el.Text+el.Name, "hunter2") {
			t.Errorf("the password leaked into %s %q text %q", el.Role, el.Name, el.Text)
		}
	}
	e.click(t, ctx, e.find(t, ctx, app, a11y.Query{Name: "OK", Exact: true}))
	code, out := waitExit(t, ctx, app)
	if want := "Ada|hunter2|Zürich"; code != 0 || stdout(out) != want {
		t.Errorf("zenity exited %d printing %q, want 0 and %q", code, stdout(out), want)
	}
}

// TestFileChooserRows: a file chooser lists 300 files in a tree view that holds
// thousands of cells; only the rows in view are read, and double-clicking a file's
// cell chooses it.
func TestFileChooserRows(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	for i := range 300 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%03d.txt", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	e := newEnv(t, Options{})
	app := e.zenity(t, ctx, "--file-selection", "--title", "Choose", "--filename", dir+"/")
	file := e.waitFor(t, ctx, app, a11y.Query{Name: "file-003.txt", Exact: true, Role: "cell"}, "file-003.txt listed",
		func(a11y.Element) bool { return true })
	els, note, err := e.c.Elements(ctx, a11y.Query{Role: "cell"})
	if err != nil {
		t.Fatal(err)
	}
	if note.Nodes > 1000 {
		t.Errorf("read %d objects: the whole list, not the rows in view", note.Nodes)
	}
	for _, el := range els {
		if el.Name == "file-250.txt" {
			t.Errorf("a row far below the view came back: %+v", el)
		}
		if !el.Bounds.In(e.c.bounds) || el.Bounds.Empty() {
			t.Errorf("cell %q at %v is not on the display", el.Name, el.Bounds)
		}
	}
	if !slices.ContainsFunc(els, func(el a11y.Element) bool { return el.Name == "file-000.txt" }) {
		t.Errorf("the first row is missing:%s", describe(els))
	}
	p := file.Center()
	if err := e.bot.Click(ctx, actions.Point{X: p.X, Y: p.Y}, actions.Left, 2); err != nil {
		t.Fatal(err)
	}
	// Under load GTK can take the two clicks for two single ones (its
	// double-click time passed between them): the row is then selected, and
	// Return opens it, as a person would press it.
	for deadline := time.Now().Add(5 * time.Second); !app.Exited() && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if !app.Exited() {
		file = e.find(t, ctx, app, a11y.Query{Name: "file-003.txt", Exact: true, Role: "cell"})
		p = file.Center()
		enter, err := actions.ParseCombo("enter")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.bot.Click(ctx, actions.Point{X: p.X, Y: p.Y}, actions.Left, 1); err != nil {
			t.Fatal(err)
		}
		if err := e.bot.Press(ctx, enter); err != nil {
			t.Fatal(err)
		}
	}
	code, out := waitExit(t, ctx, app)
	if want := filepath.Join(dir, "file-003.txt"); code != 0 || stdout(out) != want {
		t.Errorf("zenity exited %d printing %q, want 0 and %q", code, stdout(out), want)
	}
}
