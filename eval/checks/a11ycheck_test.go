package checks

import (
	"context"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/godbus/dbus/v5"

	"deskpilot/a11y"
	"deskpilot/a11y/atspi"
	"deskpilot/vision/xdisplay"
)

// a11yRules are check_accessibility_tree rule lists and what OSWorld's
// check_accessibility_tree (metrics/general.py at eac51b51, lxml 4.9 and
// cssselect 1.2) gave for them on testdata/a11y-zenity.xml: the tree of a
// zenity entry dialog, walked over AT-SPI and rendered by TreeXML with
// A11yDetails (TestA11yTreeLive makes it anew).
var a11yRules = []struct{ rules, want string }{
	{`[{"selectors": ["application[name=zenity] dialog[name=\"Send mail\"]"]}]`, "1.0"},
	{`[{"selectors": ["application[name=Thunderbird] dialog"]}]`, "0.0"},
	{`[{"selectors": ["dialog[attr|window-type=dialog] text[attr|toolkit=gtk]"]}]`, "1.0"},
	{`[{"selectors": ["dialog[attr|window-type=normal] text"]}]`, "0.0"},
	{`[{"selectors": ["push-button[name=Cancel]~push-button[name=OK]"]}]`, "1.0"},
	{`[{"selectors": ["push-button[name=OK]~push-button[name=Cancel]"]}]`, "0.0"},
	{`[{"selectors": ["label[name=\"To:\"]+text"]}]`, "1.0"},
	{`[{"selectors": ["dialog>text[st|focused=true]"]}]`, "1.0"},
	{`[{"selectors": ["text[st|editable]", "push-button[name*=anc]"]}]`, "1.0"},
	{`[{"selectors": ["text[name^=To]"], "text": "fox@someuniversity.edu", "exact": true}]`, "1.0"},
	{`[{"selectors": ["text[name^=To]"], "text": "fox@someuniversity.com", "exact": true}]`, "0.0"},
	{`[{"selectors": ["text[name^=To]"], "text": "fox@someuniversity.com", "exact": false}]`, "0.8636363636363636"},
	{`[{"selectors": ["push-button"], "text": "OK", "exact": false}]`, "0.0"},
	{`[{"selectors": ["text"], "text": "x"}]`, "error"},
	{`[{"selectors": ["dialog"]}, {"selectors": ["text"], "text": "fox@some", "exact": false}]`, "0.5333333333333333"},
	{`[{}]`, "error"},
	{`[{"selectors": ["dialog[[bad"]}]`, "error"},
}

func scoreA11y(t *testing.T, tree, rules, want string) {
	t.Helper()
	m, _ := Lookup("check_accessibility_tree")
	s, err := m.Fn(t.Context(), Call{Result: tree, Expected: rulesOf(t, rules)})
	if want == "error" {
		if err == nil {
			t.Errorf("%s = %v, want an error", rules, s.Value)
		}
		return
	}
	w, _ := strconv.ParseFloat(want, 64)
	if err != nil || math.Abs(s.Value-w) > 1e-12 {
		t.Errorf("%s = %v (%s), %v; want %v", rules, s.Value, s.Note, err, w)
	}
}

// TestCheckAccessibilityTree runs a11yRules on the recorded tree.
func TestCheckAccessibilityTree(t *testing.T) {
	data, err := os.ReadFile(td("a11y-zenity.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range a11yRules {
		scoreA11y(t, string(data), tt.rules, tt.want)
	}
}

// TestA11yTreeLive walks a real zenity dialog on the test display, with its
// object attributes, and scores a11yRules on that tree as on the recorded
// one.
func TestA11yTreeLive(t *testing.T) {
	d, err := xdisplay.Attach("")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	app, err := d.StartApp(t.Context(), "zenity", "--entry", "--title", "Send mail", "--text", "To:", "--entry-text", "fox@someuniversity.edu")
	if err != nil {
		t.Skipf("zenity does not start: %v", err)
	}
	defer app.Stop()
	if _, err := d.WaitWindow(t.Context(), "Send mail"); err != nil {
		t.Fatal(err)
	}
	bus, err := a11yBusAddress(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c, err := atspi.Connect(t.Context(), atspi.Options{XDisplay: d.Name, BusAddress: os.Getenv("DBUS_SESSION_BUS_ADDRESS"), IgnoreEnv: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var tree string
	for range 50 { // the dialog registers its widgets a moment after it maps
		els, _, err := c.Elements(t.Context(), a11y.Query{})
		if err != nil {
			t.Fatal(err)
		}
		info, err := A11yDetails(t.Context(), bus, els)
		if err != nil {
			t.Fatal(err)
		}
		tree = TreeXML(els, info)
		if len(els) >= 5 && len(info) >= 5 {
			break
		}
	}
	for _, tt := range a11yRules {
		scoreA11y(t, tree, tt.rules, tt.want)
	}
}

// a11yBusAddress asks the session bus for the AT-SPI bus.
func a11yBusAddress(ctx context.Context) (string, error) {
	c, err := dbus.Connect(os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
	if err != nil {
		return "", err
	}
	defer c.Close()
	var addr string
	err = c.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr)
	return addr, err
}
