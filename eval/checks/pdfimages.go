package checks

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"

	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// comparePDFImages is OSWorld's compare_pdf_images: 1 when both PDFs have
// as many pages and each page renders (at 72 dpi, no alpha) to the same
// pixels. PyMuPDF renders there and PDFium here, both PDFs alike; the
// rewrite OSWorld first gives both files (borb's load and dump) is not
// done, as it changes no page's drawing.
func comparePDFImages(ctx context.Context, c Call) (Score, error) {
	a, _ := c.Result.(string)
	b, _ := c.Expected.(string)
	if a == "" || b == "" {
		return Score{Note: "no PDF"}, nil
	}
	return withPDFs(ctx, func(ctx context.Context, r *pdfReader) (Score, error) {
		pa, err := r.pagePixels(ctx, a)
		if err != nil {
			return Score{}, err
		}
		pb, err := r.pagePixels(ctx, b)
		if err != nil {
			return Score{}, err
		}
		if len(pa) != len(pb) {
			return Score{Note: fmt.Sprintf("%d pages against %d", len(pa), len(pb))}, nil
		}
		for i := range pa {
			if !bytes.Equal(pa[i], pb[i]) {
				return Score{Note: fmt.Sprintf("page %d renders differently", i+1)}, nil
			}
		}
		return Score{Value: 1}, nil
	})
}

// pagePixels renders each page of the PDF at p at 72 dpi: its width and
// height, then its RGB bytes, row by row.
func (r *pdfReader) pagePixels(ctx context.Context, p string) ([][]byte, error) {
	var pages [][]byte
	err := r.eachPage(ctx, p, func(doc references.FPDF_DOCUMENT, i int) error {
		size, err := r.inst.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: doc, Index: i})
		if err != nil {
			return fmt.Errorf("%s: page %d: %w", p, i+1, err)
		}
		if size.Width*size.Height > 64<<20 {
			return fmt.Errorf("%s: page %d is too large to render", p, i+1)
		}
		res, err := r.inst.RenderPageInDPI(&requests.RenderPageInDPI{
			Page: requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}},
			DPI:  72,
		})
		if err != nil {
			return fmt.Errorf("%s: page %d: %w", p, i+1, err)
		}
		px := rgbBytes(res.Result.RenderedImage)
		if res.CleanupFunc != nil {
			res.CleanupFunc()
		}
		if px == nil {
			return fmt.Errorf("%s: page %d did not render", p, i+1)
		}
		pages = append(pages, px)
		return nil
	})
	return pages, err
}

// rgbBytes is the image's size and RGB samples, alpha dropped.
func rgbBytes(src image.Image) []byte {
	if src == nil {
		return nil
	}
	b := src.Bounds()
	img, ok := src.(*image.RGBA)
	if !ok {
		img = image.NewRGBA(b)
		draw.Draw(img, b, src, b.Min, draw.Src)
	}
	out := fmt.Appendf(nil, "%dx%d:", b.Dx(), b.Dy())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):img.PixOffset(b.Max.X, y)]
		for x := 0; x+2 < len(row); x += 4 {
			out = append(out, row[x], row[x+1], row[x+2])
		}
	}
	return out
}
