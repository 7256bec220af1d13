package agent

import (
	"net/url"
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
