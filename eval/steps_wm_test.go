//go:build linux

package eval

import (
	"fmt"
	"strings"
	"testing"
)

// OSWorld's activate_window and close_window steps, on real windows of the
// task's display: the window named becomes the active one (what a command
// in the box reads back with xdotool), or closes (its program exits on the
// window manager's close request); a name no window has changes nothing,
// as wmctrl's does.
func TestWindowSteps(t *testing.T) {
	needTools(t, "xmessage", "xdotool")
	launch := func(title string) string {
		return fmt.Sprintf(`{"type": "launch", "parameters": {"command": ["xmessage", "-title", %q, "-name", %q, "I am %s"]}},
			{"type": "wait_window", "parameters": {"title": %q}}`, title, strings.ToLower(title), title, title)
	}
	win := func(kind, name string, extra string) string {
		return fmt.Sprintf(`{"type": %q, "parameters": {"window_name": %q%s}}`, kind, name, extra)
	}
	check := func(cmd, want string) string {
		return fmt.Sprintf(`{"func": "exact_match", "result": {"type": "vm_command_line", "command": %q, "shell": true}, "expected": {"type": "rule", "rules": {"expected": %q}}}`, cmd, want)
	}
	active := check(`xdotool getactivewindow getwindowname | tr -d '\n'`, "")
	// The window manager acts on the request in its own time, as with
	// wmctrl: the check reads the desktop a moment later.
	settle := `,{"type": "sleep", "parameters": {"seconds": 1}}`
	res := suiteRun(t, Options{}, nil, map[string][2]string{
		// Second is mapped last, so it is active until the step.
		"activate": {"[" + launch("First") + "," + launch("Second") + "," + win("activate_window", "First", "") + settle + "]",
			strings.Replace(active, `"expected": ""`, `"expected": "First"`, 1)},
		"activate-class": {"[" + launch("First") + "," + launch("Second") + "," + win("activate_window", "first", `, "by_class": true`) + settle + "]",
			strings.Replace(active, `"expected": ""`, `"expected": "First"`, 1)},
		"activate-none": {"[" + launch("First") + "," + launch("Second") + "," + win("activate_window", "Nobody", "") + settle + "]",
			strings.Replace(active, `"expected": ""`, `"expected": "Second"`, 1)},
		"close": {"[" + launch("Doomed") + "," + launch("Kept") + "," + win("close_window", "Doomed", "") + `,{"type": "sleep", "parameters": {"seconds": 1}}]`,
			check(`printf '%s %s' $(pgrep -fc '^xmessage -title Doomed') $(pgrep -fc '^xmessage -title Kept')`, "0 1")},
	}, nil)
	for id, r := range res {
		if !r.Correct || r.Error != "" {
			t.Errorf("%s: correct %v, error %q, check %q", id, r.Correct, r.Error, r.Check)
		}
	}
	if len(res) != 4 {
		t.Errorf("%d results, want 4", len(res))
	}
}

// OSWorld's chrome_open_tabs and chrome_close_tabs, as its Chrome tasks set
// them up (google-chrome with DevTools on 1337, socat forwarding 9222): the
// tabs opened replace the start page, the one closed is gone; a command in
// the box lists the tabs DevTools has.
func TestChromeTabSteps(t *testing.T) {
	needTools(t, "chromium", "socat")
	page := func(title string) string { return "data:text/html,<title>" + title + "</title>" + title }
	cfg := fmt.Sprintf(`[{"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}},
		{"type": "launch", "parameters": {"command": ["socat", "tcp-listen:9222,fork", "tcp:localhost:1337"]}},
		{"type": "chrome_open_tabs", "parameters": {"urls_to_open": [%q, %q, %q]}},
		{"type": "chrome_close_tabs", "parameters": {"urls_to_close": [%q]}}]`, page("Alpha"), page("Bravo"), page("Charlie"), page("Bravo"))
	list := `python3 -c 'import json, urllib.request; print(",".join(sorted(p["title"] for p in json.load(urllib.request.urlopen("http://localhost:9222/json/list")) if p["type"] == "page")), end="")'`
	eval := fmt.Sprintf(`{"func": "exact_match", "result": {"type": "vm_command_line", "command": %q, "shell": true}, "expected": {"type": "rule", "rules": {"expected": "Alpha,Charlie"}}}`, list)
	res := suiteRun(t, Options{}, nil, map[string][2]string{"tabs": {cfg, eval}}, nil)
	if r := res["tabs"]; !r.Correct || r.Error != "" {
		t.Errorf("tabs: correct %v, error %q, check %q", r.Correct, r.Error, r.Check)
	}
}
