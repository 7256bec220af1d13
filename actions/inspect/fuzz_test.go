package inspect

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// pack builds an Office package from parts, taking the parts not given from
// the fixture file base.
func pack(t *testing.T, base string, parts map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if base != "" {
		data, err := os.ReadFile(base)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			if _, replaced := parts[f.Name]; replaced {
				continue
			}
			rc, _ := f.Open()
			w, _ := zw.Create(f.Name)
			var b bytes.Buffer
			b.ReadFrom(rc)
			rc.Close()
			w.Write(b.Bytes())
		}
	}
	for name, body := range parts {
		w, _ := zw.Create(name)
		w.Write(body)
	}
	zw.Close()
	return buf.Bytes()
}

// bounded runs fn and fails the test if it takes longer than a few seconds.
func bounded(t *testing.T, fn func() (string, error)) {
	t.Helper()
	done := make(chan struct{})
	var out string
	var err error
	go func() {
		defer close(done)
		out, err = fn()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("converter hangs")
	}
	if err == nil && !utf8.ValidString(tidy(out)) {
		t.Fatal("invalid UTF-8 in output")
	}
}

// FuzzDOCX feeds arbitrary XML as word/document.xml of the LibreOffice
// fixture (its styles, numbering and links stay). Seeds live in
// testdata/fuzz/FuzzDOCX.
func FuzzDOCX(f *testing.F) {
	f.Add([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>`))
	f.Add([]byte(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"><w:body><w:p><m:oMath><m:f><m:num><m:r><m:t>1</m:t></m:r></m:num><m:den><m:d><m:e><m:r><m:t>x</m:t></m:r></m:e></m:d></m:den></m:f></m:oMath><w:r><w:commentReference w:id="0"/></w:r></w:p></w:body></w:document>`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		data := pack(t, "testdata/report.docx", map[string][]byte{"word/document.xml": doc})
		bounded(t, func() (string, error) { return docxConvert(context.Background(), data) })
	})
}

// FuzzPPTX feeds arbitrary XML as the second slide of the LibreOffice
// fixture. Seeds live in testdata/fuzz/FuzzPPTX.
func FuzzPPTX(f *testing.F) {
	f.Add([]byte(`<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree><p:sp><p:nvSpPr><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:p><a:r><a:t>T</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`))
	f.Fuzz(func(t *testing.T, slide []byte) {
		data := pack(t, "testdata/deck.pptx", map[string][]byte{"ppt/slides/slide2.xml": slide})
		bounded(t, func() (string, error) { return pptxConvert(context.Background(), data) })
	})
}

// fuzzEngine is the PDF engine the fuzzers share (it starts once), with
// its compiled code cached outside the user's own cache.
var fuzzEngine = NewPDFEngine(PDFOptions{CacheDir: filepath.Join(os.TempDir(), "deskpilot-test-pdfium")})

// FuzzPDF feeds arbitrary bytes to PDFium and the page layout; failures must
// come back as errors, within bounded time. Seeds live in testdata/fuzz/FuzzPDF.
func FuzzPDF(f *testing.F) {
	f.Add([]byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\ntrailer<</Root 1 0 R>>\nstartxref\n0\n%%EOF\n"))
	if _, err := fuzzEngine.Start(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		bounded(t, func() (string, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			doc, err := fuzzEngine.read(ctx, data, pdfRequest{first: 1, budget: 1 << 20})
			if err != nil {
				return "", err
			}
			return strings.Join(doc.text, "\n"), nil
		})
	})
}

// FuzzDecodeText: any bytes decode to valid UTF-8 without panicking.
func FuzzDecodeText(f *testing.F) {
	f.Add([]byte("\x82\xa0\x82\xa2"))
	f.Add([]byte{0xFF, 0xFE, 'a', 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, _ := decodeText(data); !utf8.ValidString(s) {
			t.Fatalf("invalid UTF-8 from %q", data)
		}
	})
}

// FuzzMSG feeds arbitrary bytes to the Outlook message reader (the compound
// file parser and the property decoding), seeded with the fixture.
func FuzzMSG(f *testing.F) {
	if data, err := os.ReadFile("testdata/mail.msg"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		bounded(t, func() (string, error) {
			return safely(func() (string, error) { return msgConvert(context.Background(), data) })
		})
	})
}
