package inspect

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"path"
	"strings"

	"deskpilot/actions/browser"
)

// maxChapters bounds the chapters read from one e-book.
const maxChapters = 2000

// epubConvert reads an EPUB (2 or 3) e-book: its title, then every chapter
// of the spine in reading order, each converted from XHTML to markdown.
func epubConvert(ctx context.Context, data []byte) (string, error) {
	p, err := openPackage(data)
	if err != nil {
		return "", err
	}
	book, err := readOPF(p)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if book.title != "" {
		fmt.Fprintf(&b, "# %s", book.title)
		if book.authors != "" {
			fmt.Fprintf(&b, "\n\nBy %s", book.authors)
		}
	}
	for i, href := range book.spine {
		if i == maxChapters || b.Len() > maxOutput {
			b.WriteString("\n\n[The book is too long; the rest was not read.]")
			break
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		part, err := p.part(strings.SplitN(href, "#", 2)[0])
		if err != nil {
			continue
		}
		doc, err := browser.HTMLBodyToMarkdown(bytes.NewReader(part), "", nil)
		if err != nil || strings.TrimSpace(doc.Text) == "" {
			continue
		}
		fmt.Fprintf(&b, "\n\n<!-- Chapter %d of %d: %s -->\n%s", i+1, len(book.spine), path.Base(href), doc.Text)
	}
	if b.Len() == 0 {
		return "", errors.New("the book has no readable chapters")
	}
	return b.String(), nil
}

// epubBook is what the package document says about a book.
type epubBook struct {
	title, authors string
	spine          []string // part names of the chapters, in reading order
}

// readOPF finds the package document through META-INF/container.xml and
// reads the title, the authors and the spine.
func readOPF(p *pkg) (epubBook, error) {
	container, err := p.part("META-INF/container.xml")
	if err != nil {
		return epubBook{}, fmt.Errorf("not an EPUB: %w", err)
	}
	var c struct {
		Rootfiles []struct {
			Path string `xml:"full-path,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := xml.Unmarshal(container, &c); err != nil || len(c.Rootfiles) == 0 {
		return epubBook{}, errors.New("META-INF/container.xml names no package document")
	}
	opfPath := strings.TrimPrefix(c.Rootfiles[0].Path, "/")
	opfData, err := p.part(opfPath)
	if err != nil {
		return epubBook{}, err
	}
	var opf struct {
		Title    []string `xml:"metadata>title"`
		Creator  []string `xml:"metadata>creator"`
		Manifest []struct {
			ID   string `xml:"id,attr"`
			Href string `xml:"href,attr"`
			Type string `xml:"media-type,attr"`
		} `xml:"manifest>item"`
		Spine []struct {
			IDRef string `xml:"idref,attr"`
		} `xml:"spine>itemref"`
	}
	if err := newDecoder(opfData).Decode(&opf); err != nil {
		return epubBook{}, fmt.Errorf("%s: %w", opfPath, err)
	}
	hrefs := map[string]string{}
	for _, m := range opf.Manifest {
		if strings.Contains(m.Type, "html") {
			hrefs[m.ID] = path.Join(path.Dir(opfPath), m.Href)
		}
	}
	var book epubBook
	if len(opf.Title) > 0 {
		book.title = oneLineText(opf.Title[0])
	}
	book.authors = oneLineText(strings.Join(opf.Creator, ", "))
	for _, it := range opf.Spine {
		if href, ok := hrefs[it.IDRef]; ok {
			book.spine = append(book.spine, href)
		}
	}
	return book, nil
}
