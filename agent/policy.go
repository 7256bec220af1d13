package agent

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// The allow/deny policy of DESIGN.md §9 by domain and by program. It applies to
// open_url, launch and every page the text browser visits (each redirect hop too).
// A domain pattern "example.com" matches that host and its subdomains; a leading
// "*." is accepted and means the same.

// CheckURL refuses an address whose host is in DenyDomains, or not in AllowDomains
// when that list is not empty.
func (c Config) CheckURL(u *url.URL) error {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	for _, p := range c.DenyDomains {
		if domainMatch(host, p) {
			return fmt.Errorf("refused by policy: %s is in deny_domains (%s)", host, p)
		}
	}
	if len(c.AllowDomains) > 0 && !slices.ContainsFunc(c.AllowDomains, func(p string) bool { return domainMatch(host, p) }) {
		return fmt.Errorf("refused by policy: %s is not in allow_domains (%s)", host, strings.Join(c.AllowDomains, ", "))
	}
	return nil
}

// CheckApp refuses a program named in DenyApps (by its base name).
func (c Config) CheckApp(program string) error {
	base := filepath.Base(program)
	for _, d := range c.DenyApps {
		if strings.EqualFold(base, filepath.Base(d)) {
			return fmt.Errorf("refused by policy: %s is in deny_apps", base)
		}
	}
	return nil
}

func domainMatch(host, pattern string) bool {
	p := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(pattern), "*."), "."))
	if p == "" {
		return false
	}
	return host == p || strings.HasSuffix(host, "."+p)
}
