package inspect

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"strings"
)

// maxPages bounds the pages read from one PDF in one call.
const maxPages = 2000

// maxModelPages bounds the page images of a scanned PDF sent to the model
// with a question.
const maxModelPages = 4

// pdfText reads a PDF's text from the requested page on, each page
// introduced by "<!-- Page N of M -->", until the text passes MaxChars.
// Pages without a text layer are recognised with Options.OCR when set; a
// document with no text at all says it is scanned and how to read it.
func (in *Inspector) pdfText(ctx context.Context, out *file, data []byte, req Request) error {
	pr := pdfRequest{first: req.Page, budget: in.opts.MaxChars, ocr: in.opts.OCR}
	if strings.TrimSpace(req.Question) != "" && in.opts.Ask != nil && in.opts.OCR == nil {
		pr.images = maxModelPages
	}
	doc, err := in.pdf.read(ctx, data, pr)
	if err != nil {
		return err
	}
	out.pdfPages, out.firstPage, out.lastPage = doc.pages, req.Page, doc.last
	if doc.first == 0 {
		return nil // past the last page; window says so
	}
	var b strings.Builder
	for i, text := range doc.text {
		n := doc.first + i
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "<!-- Page %d of %d -->\n", n, doc.pages)
		switch {
		case contains(doc.ocred, n):
			b.WriteString("[Text recognised by OCR from the page image.]\n")
		case text == "":
			b.WriteString("[This page has no text layer: it is blank or an image.]")
		}
		b.WriteString(text)
	}
	if len(doc.noText) == len(doc.text) && len(doc.ocred) == 0 {
		out.text = in.scannedNote(doc)
		for i, img := range doc.rendered {
			var buf bytes.Buffer
			if err := png.Encode(&buf, img); err == nil {
				bnd := img.Bounds()
				out.images = append(out.images, Image{Name: fmt.Sprintf("page %d", doc.first+i), MIME: "image/png", Data: buf.Bytes(), Width: bnd.Dx(), Height: bnd.Dy()})
			}
		}
		return nil
	}
	out.text = b.String()
	return nil
}

// scannedNote explains a PDF without a text layer and how to read it anyway.
func (in *Inspector) scannedNote(doc *pdfDoc) string {
	what := fmt.Sprintf("its %d pages are images", doc.pages)
	if doc.pages == 1 {
		what = "its page is an image"
	} else if doc.first != 1 || doc.last != doc.pages {
		what = fmt.Sprintf("pages %d–%d of %d are images", doc.first, doc.last, doc.pages)
	}
	msg := "This PDF has no text layer (it is scanned): " + what + ". "
	switch {
	case in.opts.OCR != nil:
		msg += "OCR found no text on them either."
	case in.opts.Ask != nil:
		msg += "No OCR engine is configured, but the model can look at the page images: call inspect_file again with a question about the document."
	default:
		msg += "No OCR engine and no model are configured to read page images, so its text cannot be read here."
	}
	return msg
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
