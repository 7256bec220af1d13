package agent

import (
	"net/url"
	"strings"
	"testing"
)

func TestPolicyURL(t *testing.T) {
	cases := []struct {
		name        string
		allow, deny []string
		url         string
		wantRefusal bool
	}{
		{"no lists allow all", nil, nil, "https://anything.example/x", false},
		{"denied domain", nil, []string{"evil.test"}, "https://evil.test/", true},
		{"denied subdomain", nil, []string{"evil.test"}, "https://a.b.evil.test/", true},
		{"suffix is not a subdomain", nil, []string{"evil.test"}, "https://notevil.test/", false},
		{"wildcard form", nil, []string{"*.evil.test"}, "https://evil.test./", true},
		{"case and port ignored", nil, []string{"Evil.Test"}, "https://EVIL.test:8443/", true},
		{"allow list admits", []string{"wikipedia.org"}, nil, "https://en.wikipedia.org/wiki/X", false},
		{"allow list refuses others", []string{"wikipedia.org"}, nil, "https://example.com/", true},
		{"deny wins over allow", []string{"example.com"}, []string{"bad.example.com"}, "https://bad.example.com/", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := url.Parse(c.url)
			if err != nil {
				t.Fatal(err)
			}
			err = Policy{AllowDomains: c.allow, DenyDomains: c.deny}.CheckURL(u)
			if (err != nil) != c.wantRefusal {
				t.Errorf("CheckURL(%s) = %v, want refusal %v", c.url, err, c.wantRefusal)
			}
		})
	}
}

func TestPolicyApp(t *testing.T) {
	c := Policy{DenyApps: []string{"xterm", "/usr/bin/gnome-terminal"}}
	for app, refused := range map[string]bool{"xterm": true, "/usr/bin/xterm": true, "gnome-terminal": true, "gedit": false} {
		if err := c.CheckApp(app); (err != nil) != refused {
			t.Errorf("CheckApp(%s) = %v, want refusal %v", app, err, refused)
		}
	}
}

// Wrappers that run another program do not get a denied app past the policy.
func TestPolicyCommandWrappers(t *testing.T) {
	p := Policy{DenyApps: []string{"touch"}}
	for line, refused := range map[string]bool{
		"touch /tmp/x":                   true,
		"env touch /tmp/x":               true,
		"env -i A=1 touch /tmp/x":        true,
		"/usr/bin/env touch /tmp/x":      true,
		"nohup touch /tmp/x":             true,
		"timeout 5 touch /tmp/x":         true,
		"timeout -s KILL 5 touch /tmp/x": true,
		"nice -n 5 touch /tmp/x":         true,
		"setsid touch /tmp/x":            true,
		"xargs touch":                    true,
		"find /tmp -exec touch {} ;":     true,
		"busybox touch /tmp/x":           true,
		"sh -c touch":                    true,
		"bash -lc anything":              true,
		"python3 -c import_os":           true,
		"perl -e system":                 true,
		"gedit notes.txt":                false,
		"env gedit":                      false,
		"find /tmp -name x":              false,
		"bash script.sh":                 false,
		"python3 app.py":                 false,
		"timeout 5 gedit":                false,
		"env FOO=touch gedit":            false,
	} {
		err := p.CheckCommand(strings.Fields(line))
		if (err != nil) != refused {
			t.Errorf("CheckCommand(%q) = %v, want refusal %v", line, err, refused)
		}
	}
	if err := (Policy{}).CheckCommand([]string{"sh", "-c", "rm -rf ~"}); err != nil {
		t.Errorf("with no deny_apps nothing is refused: %v", err)
	}
}
