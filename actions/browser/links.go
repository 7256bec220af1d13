package browser

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// mdLink matches a markdown link or image: [label](address) or
// ![alt](address), with an optional "title".
var mdLink = regexp.MustCompile(`(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\((\S+?)(?: "[^"]*")?\)`)

// compactLinks replaces each link's address with a number — "[label][3]" —
// and each image with "[Image: alt]", so addresses stop crowding the text
// the model reads. Links to the same address share a number. It returns the
// text and the addresses by number (from 1).
func compactLinks(text string) (string, []string) {
	var links []string
	num := map[string]int{}
	out := mdLink.ReplaceAllStringFunc(text, func(m string) string {
		sub := mdLink.FindStringSubmatch(m)
		bang, label, addr := sub[1], sub[2], sub[3]
		if bang == "!" {
			if strings.TrimSpace(label) == "" {
				return ""
			}
			return "[Image: " + label + "]"
		}
		if u, err := url.Parse(addr); err == nil {
			addr = decodeRedirect(u).String()
		}
		n, ok := num[addr]
		if !ok {
			links = append(links, addr)
			n = len(links)
			num[addr] = n
		}
		return fmt.Sprintf("[%s][%d]", label, n)
	})
	return out, links
}

// linkRef matches a visit_page argument naming a link of the current page.
var linkRef = regexp.MustCompile(`^\[?(\d{1,6})\]?$`)

// linkNumber reads "[3]" (or "3" within brackets) as a link number.
func linkNumber(raw string) (int, bool) {
	raw = strings.TrimSpace(raw)
	if !strings.HasPrefix(raw, "[") {
		return 0, false
	}
	m := linkRef.FindStringSubmatch(raw)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// shortURL is an address cut for the footer of a viewport: host and path,
// at most 60 characters.
func shortURL(addr string) string {
	s := addr
	if u, err := url.Parse(addr); err == nil && u.Host != "" {
		s = u.Host + u.EscapedPath()
		if u.RawQuery != "" {
			s += "?" + u.RawQuery
		}
	}
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:59]) + "…"
	}
	return s
}

// linkFooter lists the links a viewport shows, by number, shortened.
func linkFooter(view string, links []string) string {
	var b strings.Builder
	seen := map[int]bool{}
	for _, m := range refInText.FindAllStringSubmatch(view, -1) {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(links) || seen[n] {
			continue
		}
		seen[n] = true
		fmt.Fprintf(&b, "\n[%d]: %s", n, shortURL(links[n-1]))
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\nLinks (open one with visit_page(\"[N]\")):" + b.String()
}

var refInText = regexp.MustCompile(`\]\[(\d+)\]`)
