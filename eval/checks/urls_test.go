package checks

import "testing"

// compare_urls gives what OSWorld's own gives (its normalize_url over
// Python 3.10's urlparse and urlunparse) on each pair; the verdicts were
// taken by running OSWorld's function on them.
func TestCompareURLsAsOSWorld(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"http://example.com/a", "example.com/a", false},
		{"https://www.Example.com/", "https://example.com", true},
		{"data:text/html,<title>Bravo</title>Bravo", "data:text/html,<title>Charlie</title>Charlie", false},
		{"data:text/html,<title>Bravo</title>Bravo", "data:text/html,<title>Bravo</title>Bravo", true},
		{"HTTP://EXAMPLE.com/Path?q=1#f", "http://example.com/Path?q=1#f", true},
		{"http://example.com/a;p?q", "http://example.com/a;p?q", true},
		{"http://example.com/a%20b", "http://example.com/a b", false},
		{"about:blank", "about:blank", true},
		{"chrome://settings/", "chrome://settings", true},
		{"localhost:8080/x", "http://localhost:8080/x", false},
		{"http://example.com/?", "http://example.com/", true},
		{"  http://example.com/x", "http://example.com/x", true},
		{"http://ex\tample.com/", "http://example.com/", true},
		{"file:///home/user/a.html", "file:/home/user/a.html", true},
		{"//example.com/a", "http://example.com/a", true},
		{"https://www.google.com/search?q=a", "https://google.com/search?q=a", true},
		{"mailto:A@B.com", "mailto:a@b.com", false},
		{"http://example.com/;x", "http://example.com;x", false},
	} {
		if got := CompareURLs(c.a, c.b); got != c.same {
			t.Errorf("compare_urls(%q, %q) = %v, want %v (%q, %q)", c.a, c.b, got, c.same, normalizeURL(c.a), normalizeURL(c.b))
		}
	}
}
