package inspect

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"

	"deskpilot/actions/browser"
)

// maxFeedItems bounds the items listed from one feed.
const maxFeedItems = 500

// feedDoc holds the fields of RSS 2.0, RSS 1.0 (RDF) and Atom that a
// reader needs; encoding/xml matches elements by local name, so all three
// fit one struct.
type feedDoc struct {
	XMLName xml.Name
	Title   string     `xml:"title"`
	Channel *feedChan  `xml:"channel"`
	Items   []feedItem `xml:"item"`  // RSS 1.0 items sit beside the channel
	Entries []feedItem `xml:"entry"` // Atom
}

type feedChan struct {
	Title       string     `xml:"title"`
	Description string     `xml:"description"`
	Items       []feedItem `xml:"item"`
}

type feedItem struct {
	Title       string     `xml:"title"`
	Links       []feedLink `xml:"link"`
	PubDate     string     `xml:"pubDate"`
	Date        string     `xml:"date"` // dc:date
	Updated     string     `xml:"updated"`
	Published   string     `xml:"published"`
	Description string     `xml:"description"`
	Summary     string     `xml:"summary"`
	Content     string     `xml:"content"`
	Encoded     string     `xml:"encoded"` // content:encoded
}

type feedLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr"`
	Text string `xml:",chardata"`
}

// isFeed reports XML whose root element is rss, feed (Atom) or RDF.
func isFeed(data []byte) bool {
	d := newDecoder(data)
	for range 64 {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "rss", "RDF":
				return true
			case "feed":
				return se.Name.Space == "http://www.w3.org/2005/Atom"
			}
			return false
		}
	}
	return false
}

// feedConvert renders an RSS or Atom feed as a numbered list of its items:
// title, date, link and the start of the summary as plain text.
func feedConvert(_ context.Context, data []byte) (string, error) {
	var f feedDoc
	d := newDecoder(data)
	d.Strict = false
	if err := d.Decode(&f); err != nil {
		return "", err
	}
	title, items := f.Title, append(f.Items, f.Entries...)
	if f.Channel != nil {
		title = f.Channel.Title
		items = append(f.Channel.Items, items...)
	}
	if len(items) == 0 && title == "" {
		return "", errors.New("no channel, items or entries: not an RSS or Atom feed")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Feed: %s\n\n%d items:", oneLineText(title), len(items))
	for i, it := range items {
		if i == maxFeedItems {
			fmt.Fprintf(&b, "\n\n[%d more items not shown.]", len(items)-maxFeedItems)
			break
		}
		fmt.Fprintf(&b, "\n\n%d. **%s**", i+1, oneLineText(it.Title))
		if date := firstOf(it.PubDate, it.Published, it.Updated, it.Date); date != "" {
			fmt.Fprintf(&b, " (%s)", oneLineText(date))
		}
		if link := it.link(); link != "" {
			fmt.Fprintf(&b, "\n   %s", link)
		}
		if s := summaryText(firstOf(it.Summary, it.Description, it.Encoded, it.Content)); s != "" {
			fmt.Fprintf(&b, "\n   %s", s)
		}
	}
	return b.String(), nil
}

// link is the item's web address: Atom's alternate link or RSS's text.
func (it feedItem) link() string {
	for _, l := range it.Links {
		if l.Href != "" && (l.Rel == "" || l.Rel == "alternate") {
			return strings.TrimSpace(l.Href)
		}
	}
	for _, l := range it.Links {
		if t := strings.TrimSpace(l.Text); t != "" {
			return t
		}
	}
	return ""
}

// summaryText is a summary (often HTML) as one line of plain text, cut at
// 300 characters.
func summaryText(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if strings.ContainsAny(s, "<&") {
		if doc, err := browser.HTMLToMarkdown(bytes.NewReader([]byte(s)), "text/html; charset=utf-8", nil); err == nil {
			s = doc.Text
		}
	}
	s = oneLineText(s)
	if r := []rune(s); len(r) > 300 {
		s = string(r[:299]) + "…"
	}
	return s
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}
