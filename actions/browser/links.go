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

// mdImage matches a markdown image: ![alt](address "title").
var mdImage = regexp.MustCompile(`!\[([^\[\]]*)\]\(\S+?(?: "[^"]*")?\)`)

// compactLinks replaces each link's address with a number — "[label][3]" —
// and each image with "[Image: alt]", so addresses stop crowding the text
// the model reads. Links to the same address share a number. It returns the
// text and the addresses by number (from 1).
func compactLinks(text string) (string, []string) {
	var links []string
	num := map[string]int{}
	text = mdImage.ReplaceAllStringFunc(text, func(m string) string {
		alt := strings.TrimSpace(mdImage.FindStringSubmatch(m)[1])
		if alt == "" {
			return ""
		}
		return "[Image: " + alt + "]"
	})
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

// linkFooter lists the links a viewport shows, compactly: links to other
// sites grouped by host ("[2] [5] example.org"), links within the page's own
// site by the start of their path. visit_page("[N]") opens the full address.
func linkFooter(view string, links []string, pageAddr string) string {
	own := ""
	if u, err := url.Parse(pageAddr); err == nil {
		own = strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	}
	var order []string
	groups := map[string][]string{}
	seen := map[int]bool{}
	for _, m := range refInText.FindAllStringSubmatch(view, -1) {
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(links) || seen[n] {
			continue
		}
		seen[n] = true
		key := links[n-1]
		if u, err := url.Parse(key); err == nil {
			host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
			switch {
			case host != "" && host != own:
				key = host
			default:
				key = cutRunes(u.EscapedPath(), 30)
			}
		}
		if _, ok := groups[key]; !ok {
			order = append(order, key)
		}
		groups[key] = append(groups[key], fmt.Sprintf("[%d]", n))
	}
	if len(order) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\nLinks (visit_page(\"[N]\") opens one):")
	for i, k := range order {
		if i > 0 {
			b.WriteString(" ·")
		}
		fmt.Fprintf(&b, " %s %s", strings.Join(groups[k], ""), k)
	}
	return b.String()
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

var refInText = regexp.MustCompile(`\]\[(\d+)\]`)

// linkLine matches a line that is only a link, maybe as a list item.
var linkLine = regexp.MustCompile(`^\s*(?:[-*+]|\d+\.)?\s*(?:#+\s*)?\[[^\]]*\]\([^)]*\)\s*$`)

// dropLinkRuns removes runs of three or more lines that are nothing but a
// link (menus, "more from" lists), which an article extraction sometimes
// keeps; they stay readable in the rest of the page.
func dropLinkRuns(md string) string {
	lines := strings.Split(md, "\n")
	var out []string
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && (linkLine.MatchString(lines[j]) || (j > i && strings.TrimSpace(lines[j]) == "" && j+1 < len(lines) && linkLine.MatchString(lines[j+1]))) {
			j++
		}
		if j-i >= 3 {
			i = j
			continue
		}
		if j == i {
			j = i + 1
		}
		out = append(out, lines[i:j]...)
		i = j
	}
	return tidyText(strings.Join(out, "\n"))
}
