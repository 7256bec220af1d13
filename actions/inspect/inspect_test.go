package inspect_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/actions/inspect"
)

// testdata is the absolute path of the fixtures folder.
func testdata(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testCache keeps PDFium's compiled code between test runs, outside the
// user's own cache: compiling it takes from seconds to half a minute.
var testCache = filepath.Join(os.TempDir(), "deskpilot-test-pdfium")

// pdfEngine is the PDF engine every test shares: it starts once per test
// binary.
var pdfEngine = inspect.NewPDFEngine(inspect.PDFOptions{CacheDir: testCache})

// fixtures returns an inspector allowed to read the fixtures.
func fixtures(t *testing.T, o inspect.Options) (*inspect.Inspector, string) {
	t.Helper()
	dir := testdata(t)
	o.Roots = append(o.Roots, dir)
	if o.PDF == nil {
		o.PDF = pdfEngine
	}
	if o.Home == "" {
		o.Home = t.TempDir()
	}
	return inspect.New(o), dir
}

const reportDocx = `# Quarterly Report

This report covers the third quarter of 2024 for the Northwind office.

## Highlights

- Revenue grew by 12 percent.
- Two new stores opened:
  - Lisbon
  - Porto

## Next steps

1. Hire a second baker.
2. Renew the lease.

## Sales by region

| Region | Units | Revenue |
|---|---|---|
| North | 1200 | € 14,400 |
| South | 950 | € 11,875 |

See the [full report](https://example.com/report) for details.`

const salesCSV = `| Region | Units | Revenue |
|---|---|---|
| North | 1200 | € 14,400 |
| South | 950 | € 11,875 |
| West \| coast | 30 | line one<br>line two |`

func TestFormats(t *testing.T) {
	in, dir := fixtures(t, inspect.Options{})
	cases := []struct{ file, want string }{
		{"report.docx", reportDocx},
		{"budget.xlsx", `## Expenses

| Item | Amount | Date |
|---|---|---|
| Flour | 42.5 | 2024-07-01 |
| Butter \| salted | 17 | 2024-07-03 |
| Total | 59.5 |  |

## Staff

| Name | Role |
|---|---|
| Ana | Baker |
| Rui | Cashier |`},
		{"deck.pptx", `<!-- Slide 1 of 3 -->
# Bakery Expansion Plan

Board meeting, October 2024

### Notes:
Welcome everyone and introduce the agenda.

<!-- Slide 2 of 3 -->
# Why Lisbon

Foot traffic doubled since 2022
Rent is 20% below Porto

### Notes:
Mention the survey from March.

<!-- Slide 3 of 3 -->
# Budget

Oven: 12000
Two new ovens are needed

| Item | Cost |
|---|---|
| Oven | 12000 |
| Mixer | 2500 |`},
		{"paper.pdf", `<!-- Page 1 of 3 -->
Field Notes on River Otters
Otters were counted at three sites along the Tagus in spring 2023.

The largest group had seven animals.

<!-- Page 2 of 3 -->
Second Page
The water temperature was 14 degrees at dawn.

Site Count
Alpha 7
Beta 3

<!-- Page 3 of 3 -->
Third Page
The survey will be repeated in 2025.`},
		{"sales.csv", salesCSV},
		{"people.tsv", "| name | city | year |\n|---|---|---|\n| Ana | Lisbon | 2021 |\n| Rui | Porto | 2019 |"},
		{"bridge.json", "```json\n{\n  \"bridge\": \"Vellmar\",\n  \"opened\": \"1932-03-14\",\n  \"segments\": 418,\n  \"renovations\": [\n    1987,\n    1990\n  ]\n}\n```"},
		{"catalog.xml", "```xml\n<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<catalog>\n  <book id=\"1\"><title>River Otters</title><year>2023</year></book>\n</catalog>\n```"},
		{"notes.md", "Meeting notes\n=============\n\n* Buy flour\n* Call the landlord"},
		{"report.html", strings.Replace(reportDocx, "opened:\n", "opened:\n\n", 1)}, // the HTML converter spaces nested lists
		{"chart.png", "# Image: chart.png\n\nFormat: PNG\nSize: 64 × 48 pixels\nFile size: 291 bytes"},
		{"photo.jpg", "# Image: photo.jpg\n\nFormat: JPEG\nSize: 64 × 48 pixels\nFile size: 538 bytes"},
		{"chart.bmp", "# Image: chart.bmp\n\nFormat: BMP\nSize: 64 × 48 pixels\nFile size: 1.7 KiB"},
		{"bundle.zip", "# Archive: bundle.zip\n\n3 files, 6.7 KiB uncompressed:\n\n| Name | Size | Modified |\n|---|---|---|\n" +
			"| docs/report.docx | 6.4 KiB | 2026-11-29 19:51 |\n| sales.csv | 106 bytes | 2026-11-29 19:51 |\n| inner.zip | 212 bytes | 2026-11-29 19:51 |\n\n" +
			"Read a file inside with inspect_file(\"" + filepath.Join(dir, "bundle.zip") + "/docs/report.docx\").\n\n" +
			"## docs/report.docx\n\n" + reportDocx + "\n\n## sales.csv\n\n" + salesCSV},
		{"bundle.zip/docs/report.docx", reportDocx},
		{"bundle.zip/inner.zip/sales.csv", salesCSV},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := in.Inspect(t.Context(), filepath.Join(dir, c.file), "")
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Inspect(%s):\n%s\n--- want:\n%s", c.file, got, c.want)
			}
		})
	}
}

func TestCorruptFiles(t *testing.T) {
	in, dir := fixtures(t, inspect.Options{})
	cases := []struct{ file, format, want string }{
		{"truncated.pdf", "pdf", "pdf: file is corrupt or truncated: truncated.pdf: not a PDF file, or damaged beyond repair"},
		{"garbage.pdf", "pdf", "pdf: file is corrupt or truncated: garbage.pdf: not a PDF file, or damaged beyond repair"},
		{"truncated.docx", "docx", "docx: file is corrupt or truncated: truncated.docx: not a valid zip package: zip: not a valid zip file"},
		{"badxml.docx", "docx", "docx: file is corrupt or truncated: badxml.docx: XML syntax error on line 1: unexpected EOF"},
		{"notword.docx", "docx", "docx: file is corrupt or truncated: notword.docx: not a Word document: word/document.xml: part not found"},
		{"truncated.xlsx", "xlsx", "xlsx: file is corrupt or truncated: truncated.xlsx: zip: not a valid zip file"},
		{"truncated.pptx", "pptx", "pptx: file is corrupt or truncated: truncated.pptx: not a valid zip package: zip: not a valid zip file"},
		{"badxml.pptx", "pptx", "pptx: file is corrupt or truncated: badxml.pptx: slide 2: ppt/slides/slide2.xml: XML syntax error on line 1: unexpected EOF"},
		{"truncated.zip", "zip", "zip: file is corrupt or truncated: truncated.zip: zip: not a valid zip file"},
		{"bad.json", "json", "json: file is corrupt or truncated: bad.json: unexpected end of JSON input"},
		{"bad.xml", "xml", "xml: file is corrupt or truncated: bad.xml: XML syntax error on line 1: element <book> closed by </catalog>"},
		{"truncated.png", "image", "image: file is corrupt or truncated: truncated.png: unexpected EOF"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, err := in.Inspect(t.Context(), filepath.Join(dir, "corrupt", c.file), "")
			var fe *inspect.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error = %v, want a FormatError", err)
			}
			if fe.Format != c.format || err.Error() != c.want {
				t.Errorf("error = %q (format %s)\nwant    %q (format %s)", err, fe.Format, c.want, c.format)
			}
		})
	}
	t.Run("encrypted.pdf", func(t *testing.T) {
		_, err := in.Inspect(t.Context(), filepath.Join(dir, "encrypted.pdf"), "")
		if err == nil || err.Error() != "pdf: file is password-protected: encrypted.pdf" {
			t.Errorf("error = %v", err)
		}
	})
}

func TestUnsupportedAndSniffed(t *testing.T) {
	root := t.TempDir()
	in := inspect.New(inspect.Options{Roots: []string{root}, Home: t.TempDir(), PDF: pdfEngine})
	write := func(name string, data []byte) string {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, name := range []string{"data.xyz", "old.doc", "noext"} {
		_, err := in.Inspect(t.Context(), write(name, []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00binary")), "")
		var ue *inspect.UnsupportedError
		if !errors.As(err, &ue) {
			t.Fatalf("%s: error = %v, want UnsupportedError", name, err)
		}
		for _, want := range []string{"unsupported file format", "PDF (.pdf)", "Word (.docx .docm)", "Excel (.xlsx .xlsm)", "PowerPoint (.pptx .pptm)", "images (.png"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: message %q lacks %q", name, err, want)
			}
		}
	}
	// Unknown extensions are sniffed: a PDF without .pdf, text without .txt.
	pdf, _ := os.ReadFile(filepath.Join(testdata(t), "paper.pdf"))
	if got, err := in.Inspect(t.Context(), write("download", pdf), ""); err != nil || !strings.HasPrefix(got, "<!-- Page 1 of 3 -->\nField Notes") {
		t.Errorf("sniffed PDF: %v\n%.80s", err, got)
	}
	if got, err := in.Inspect(t.Context(), write("README", []byte("plain words\r\n")), ""); err != nil || got != "plain words" {
		t.Errorf("sniffed text: %q, %v", got, err)
	}
	utf16 := []byte{0xFF, 0xFE, 'h', 0, 'i', 0, ' ', 0, 0xE9, 0}
	if got, err := in.Inspect(t.Context(), write("utf16.txt", utf16), ""); err != nil || got != "hi é" {
		t.Errorf("UTF-16 text: %q, %v", got, err)
	}
}

func TestTruncation(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("abcdefghij", 50) // 500 characters
	if err := os.WriteFile(filepath.Join(root, "long.txt"), []byte(long), 0o644); err != nil {
		t.Fatal(err)
	}
	in := inspect.New(inspect.Options{Roots: []string{root}, Home: t.TempDir(), MaxChars: 100})
	got, err := in.Inspect(t.Context(), filepath.Join(root, "long.txt"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := long[:100] + "\n\n[Part 1 of 5 of the text (up to 100 characters each). Read on with inspect_file(\"" + filepath.Join(root, "long.txt") + "\", page=2).]"
	if got != want {
		t.Errorf("truncated text = %q", got)
	}

	small := inspect.New(inspect.Options{Roots: []string{testdata(t)}, Home: t.TempDir(), MaxFileBytes: 1000, PDF: pdfEngine})
	_, err = small.Inspect(t.Context(), filepath.Join(testdata(t), "paper.pdf"), "")
	var tl *inspect.TooLargeError
	if !errors.As(err, &tl) || err.Error() != "inspect: paper.pdf is 21.9 KiB, larger than the 1000 bytes the inspector reads" {
		t.Errorf("error = %v, want TooLargeError", err)
	}
	_, err = small.Inspect(t.Context(), filepath.Join(testdata(t), "bundle.zip/docs/report.docx"), "")
	if !errors.As(err, &tl) {
		t.Errorf("archive larger than the limit: error = %v", err)
	}
}

func TestFolderListing(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("12345"), 0o644)
	in := inspect.New(inspect.Options{Roots: []string{root}, Home: t.TempDir()})
	got, err := in.Inspect(t.Context(), root, "")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(root)
	want := "# Folder: " + real + "\n\n2 entries:\n\n| Name | Size |\n|---|---|\n| a.txt | 5 bytes |\n| sub/ |  |"
	if got != want {
		t.Errorf("listing:\n%s\nwant:\n%s", got, want)
	}
}
