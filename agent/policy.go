package agent

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"deskpilot/actions"
)

// Policy is the safety policy of a run: which actions the person approves, and
// the allow/deny lists by domain and by program. It applies to open_url, launch
// and every page the text browser visits (each redirect hop too). A domain
// pattern "example.com" matches that host and its subdomains; a leading "*." is
// accepted and means the same. The zero value asks before launch, open_url and
// closing key combos and allows every domain and program.
type Policy struct {
	// Confirm lists the confirmation entries (script.RiskLaunch, RiskOpenURL,
	// RiskCloseCombos) the person approves; nil = all three, empty = none.
	Confirm      []string
	AllowDomains []string // when set, only these domains are reached
	DenyDomains  []string // domains never reached
	DenyApps     []string // programs launch refuses
}

// asks reports whether the policy asks the person before actions of risk.
func (p Policy) asks(risk string) bool {
	if p.Confirm == nil {
		return true
	}
	return slices.Contains(p.Confirm, risk)
}

// CheckURL refuses an address whose host is in DenyDomains, or not in AllowDomains
// when that list is not empty.
func (p Policy) CheckURL(u *url.URL) error {
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	for _, d := range p.DenyDomains {
		if domainMatch(host, d) {
			return fmt.Errorf("refused by policy: %s is in deny_domains (%s)", host, d)
		}
	}
	if len(p.AllowDomains) > 0 && !slices.ContainsFunc(p.AllowDomains, func(d string) bool { return domainMatch(host, d) }) {
		return fmt.Errorf("refused by policy: %s is not in allow_domains (%s)", host, strings.Join(p.AllowDomains, ", "))
	}
	return nil
}

// CheckApp refuses a program named in DenyApps (by its base name).
func (p Policy) CheckApp(program string) error {
	base := filepath.Base(program)
	for _, d := range p.DenyApps {
		if strings.EqualFold(base, filepath.Base(d)) {
			return fmt.Errorf("refused by policy: %s is in deny_apps", base)
		}
	}
	return nil
}

func domainMatch(host, pattern string) bool {
	d := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(pattern), "*."), "."))
	if d == "" {
		return false
	}
	return host == d || strings.HasSuffix(host, "."+d)
}

// closingCombos are the key combos that close windows or end the session
// (script.RiskCloseCombos).
func closingCombos() []string {
	return []string{"alt+f4", "ctrl+q", "ctrl+w", "ctrl+shift+q", "ctrl+shift+w", "super+q",
		"ctrl+alt+delete", "ctrl+alt+backspace", "super+l", "ctrl+alt+l"}
}

// isClosingCombo reports whether c closes windows or ends the session.
func isClosingCombo(c actions.Combo) bool {
	for _, s := range closingCombos() {
		if cc, err := actions.ParseCombo(s); err == nil && cc.String() == c.String() {
			return true
		}
	}
	return false
}
