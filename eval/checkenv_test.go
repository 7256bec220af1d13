//go:build linux

package eval

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"deskpilot/vision/xdisplay"
)

// TestCheckEnvAccessibilityTree: the accessibility_tree getter reads the task's
// display with the display's own cookie, not the process's $XAUTHORITY (here
// another display's file), and a program in the task's box joins the display's
// accessibility bus (through the box's busProxy): the tree holds the dialog
// the box runs.
func TestCheckEnvAccessibilityTree(t *testing.T) {
	needTools(t, "zenity")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	b := testBox(t)
	other, err := xdisplay.Start(ctx, xdisplay.Options{NoWindowManager: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	t.Setenv("XAUTHORITY", other.XAuthority)
	if err := b.launch(ctx, []string{"zenity", "--question", "--title", "Cookie", "--text", "read with its own cookie?"}); err != nil {
		t.Fatal(err)
	}
	env := b.checkEnv("")
	for {
		tree, err := env.AccessibilityTree(ctx)
		if err != nil {
			t.Fatalf("accessibility_tree: %v", err)
		}
		yes, label := treeHas(t, tree, "push-button", "Yes"), treeHas(t, tree, "label", "read with its own cookie?")
		if yes && label {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("zenity's Yes button (%v) and question (%v) never showed in the tree:\n%s", yes, label, tree)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// treeHas says whether the getter's XML has an element tag named name.
func treeHas(t *testing.T, tree, tag, name string) bool {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(tree))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			t.Fatalf("the tree is not XML: %v\n%s", err, tree)
		}
		if s, ok := tok.(xml.StartElement); ok && s.Name.Local == tag {
			for _, a := range s.Attr {
				if a.Name.Local == "name" && a.Value == name {
					return true
				}
			}
		}
	}
}
