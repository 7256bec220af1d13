package inspect_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"deskpilot/actions/inspect"
)

// buildPDF writes a PDF of the given objects (object i+1 is objs[i]; object
// 1 must be the catalog) with a correct cross-reference table.
func buildPDF(t *testing.T, p string, objs []string) {
	t.Helper()
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = out.Len()
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := out.Len()
	fmt.Fprintf(&out, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&out, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&out, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, x)
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func stream(s string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(s), s)
}

// form is a form XObject (an appearance) with the given entries and content.
func form(entries, content string) string {
	return fmt.Sprintf("<< /Type /XObject /Subtype /Form %s /Length %d >>\nstream\n%s\nendstream", entries, len(content), content)
}

// formPDF is a one-page form: objects 1–5 are the catalog (with an AcroForm
// of the given fields), the page tree, the page (with the given widgets as
// its annotations), its content (labels) and Helvetica; the fields' objects
// follow from 6 on.
func formPDF(t *testing.T, p, content, fields, annots string, objs ...string) {
	t.Helper()
	all := append([]string{
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [" + fields + "] /NeedAppearances true >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R /Annots [" + annots + "] >>",
		stream(content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}, objs...)
	buildPDF(t, p, all)
}

// label draws text at x, y in 12-point Helvetica.
func label(x, y int, s string) string {
	return fmt.Sprintf("BT /F1 12 Tf %d %d Td (%s) Tj ET\n", x, y, s)
}

// TestPDFFormValues: the values of filled-in form fields are read where
// their widgets are, in the page's reading order, whether or not the file
// gives them appearances; a value an appearance already draws is read once;
// check boxes and radio buttons read as marks; a choice field reads as its
// chosen option's label; a widget without a place is listed after the page;
// a password field is not shown.
func TestPDFFormValues(t *testing.T) {
	cases := []struct {
		name                    string
		content, fields, annots string
		objs                    []string
		want                    []string // lines that must be in the text
		once                    string   // must occur exactly once
		not                     string   // must not occur
	}{{
		name:    "text field without appearance",
		content: label(72, 700, "First name:") + label(72, 600, "Signed below."),
		fields:  "6 0 R", annots: "6 0 R",
		objs: []string{"<< /Type /Annot /Subtype /Widget /FT /Tx /T (first) /V (Alice) /DA (/Helv 12 Tf 0 g) /Rect [150 695 300 715] /P 3 0 R >>"},
		want: []string{"First name: Alice", "Signed below."},
	}, {
		name:    "text field whose appearance draws the value",
		content: label(72, 700, "City:"),
		fields:  "6 0 R", annots: "6 0 R",
		objs: []string{
			"<< /Type /Annot /Subtype /Widget /FT /Tx /T (city) /V (Lisbon) /DA (/F1 12 Tf 0 g) /Rect [150 695 300 715] /P 3 0 R /AP << /N 7 0 R >> >>",
			form("/BBox [0 0 150 20] /Resources << /Font << /F1 5 0 R >> >>", "/Tx BMC BT /F1 12 Tf 2 5 Td (Lisbon) Tj ET EMC"),
		},
		want: []string{"City: Lisbon"}, once: "Lisbon",
	}, {
		name:    "check boxes and a radio group with inherited values",
		content: label(100, 700, "Agree") + label(100, 670, "Spam") + label(100, 640, "Tea") + label(200, 640, "Coffee"),
		fields:  "6 0 R 7 0 R 8 0 R", annots: "6 0 R 7 0 R 9 0 R 10 0 R",
		objs: []string{
			"<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /V /Yes /AS /Yes /Rect [80 698 92 710] /P 3 0 R /AP << /N << /Yes 11 0 R /Off 11 0 R >> >> >>",
			"<< /Type /Annot /Subtype /Widget /FT /Btn /T (spam) /V /Off /AS /Off /Rect [80 668 92 680] /P 3 0 R /AP << /N << /Yes 11 0 R /Off 11 0 R >> >> >>",
			"<< /FT /Btn /Ff 49152 /T (drink) /V /coffee /Kids [9 0 R 10 0 R] >>",
			"<< /Type /Annot /Subtype /Widget /Parent 8 0 R /AS /Off /Rect [80 638 92 650] /P 3 0 R /AP << /N << /tea 11 0 R /Off 11 0 R >> >> >>",
			"<< /Type /Annot /Subtype /Widget /Parent 8 0 R /AS /coffee /Rect [180 638 192 650] /P 3 0 R /AP << /N << /coffee 11 0 R /Off 11 0 R >> >> >>",
			form("/BBox [0 0 12 12]", ""),
		},
		want: []string{"☑ Agree", "☐ Spam", "○ Tea ◉ Coffee"},
	}, {
		name:    "choice field with export values",
		content: label(72, 700, "Country:"),
		fields:  "6 0 R", annots: "6 0 R",
		objs: []string{"<< /Type /Annot /Subtype /Widget /FT /Ch /Ff 131072 /T (country) /Opt [[(de) (Germany)] [(pt) (Portugal)]] /V (pt) /DA (/Helv 12 Tf 0 g) /Rect [150 695 300 715] /P 3 0 R >>"},
		want: []string{"Country: Portugal"},
	}, {
		name:    "widget without a place, user name",
		content: label(72, 700, "Page text."),
		fields:  "6 0 R", annots: "6 0 R",
		objs: []string{"<< /Type /Annot /Subtype /Widget /FT /Tx /T (ref) /TU (Reference number) /V (4711) /Rect [0 0 0 0] /P 3 0 R >>"},
		want: []string{"Page text.\n\nForm fields:\nReference number: 4711"},
	}, {
		name:    "multi-line field",
		content: label(72, 700, "Notes:") + label(72, 560, "End."),
		fields:  "6 0 R", annots: "6 0 R",
		objs: []string{"<< /Type /Annot /Subtype /Widget /FT /Tx /Ff 4096 /T (notes) /V (first line\\rsecond line) /DA (/Helv 12 Tf 0 g) /Rect [72 600 300 690] /P 3 0 R >>"},
		want: []string{"Notes:\n\nfirst line\nsecond line\n\nEnd."},
	}, {
		name:    "password field",
		content: label(72, 700, "Password:"),
		fields:  "6 0 R", annots: "6 0 R",
		objs: []string{"<< /Type /Annot /Subtype /Widget /FT /Tx /Ff 8192 /T (pw) /V (hunter2) /DA (/Helv 12 Tf 0 g) /Rect [150 695 300 715] /P 3 0 R >>"},
		want: []string{"Password:"}, not: "hunter2",
	}}
	dir := t.TempDir()
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprintf("form%d.pdf", i))
			formPDF(t, p, c.content, c.fields, c.annots, c.objs...)
			got, err := in.Inspect(t.Context(), p, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("text lacks %q:\n%s", w, got)
				}
			}
			if c.once != "" && strings.Count(got, c.once) != 1 {
				t.Errorf("%q occurs %d times, want once:\n%s", c.once, strings.Count(got, c.once), got)
			}
			if c.not != "" && strings.Contains(got, c.not) {
				t.Errorf("text shows %q:\n%s", c.not, got)
			}
		})
	}
}

// TestPDFFormHostile: forms made to trap a reader — fields that are their
// own ancestors, a parent chain thousands deep, a page of 20,000 widgets —
// are read, bounded, with the page's text; the near miss beside them (a
// field tree of ordinary depth) reads its value.
func TestPDFFormHostile(t *testing.T) {
	dir := t.TempDir()
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine})
	read := func(t *testing.T, p string) string {
		t.Helper()
		got, err := in.Inspect(t.Context(), p, "")
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	t.Run("cycle", func(t *testing.T) {
		// 6 is a widget whose parent 7 has 8 as parent, whose parent is 7;
		// 7 and 8 list each other as kids, and the AcroForm lists all.
		p := filepath.Join(dir, "cycle.pdf")
		formPDF(t, p, label(72, 700, "Cycle:"), "6 0 R 7 0 R 8 0 R", "6 0 R",
			"<< /Type /Annot /Subtype /Widget /Parent 7 0 R /T (w) /V (looped) /Rect [150 695 300 715] /P 3 0 R >>",
			"<< /FT /Tx /T (a) /Parent 8 0 R /Kids [6 0 R 8 0 R] >>",
			"<< /FT /Tx /T (b) /Parent 7 0 R /Kids [7 0 R] >>")
		if got := read(t, p); !strings.Contains(got, "Cycle:") {
			t.Errorf("page text lost:\n%s", got)
		}
	})
	t.Run("deep parents", func(t *testing.T) {
		const depth = 5000
		objs := []string{"<< /Type /Annot /Subtype /Widget /Parent 7 0 R /T (leaf) /Rect [150 695 300 715] /P 3 0 R >>"}
		for i := range depth {
			parent := ""
			if i < depth-1 {
				parent = fmt.Sprintf("/Parent %d 0 R ", 8+i)
			}
			objs = append(objs, fmt.Sprintf("<< /FT /Tx /V (deep) /T (p%d) %s/Kids [%d 0 R] >>", i, parent, 6+i))
		}
		p := filepath.Join(dir, "deep.pdf")
		formPDF(t, p, label(72, 700, "Deep:"), fmt.Sprintf("%d 0 R", 6+depth), "6 0 R", objs...)
		if got := read(t, p); !strings.Contains(got, "Deep:") {
			t.Errorf("page text lost:\n%s", got)
		}
	})
	t.Run("near miss: three levels", func(t *testing.T) {
		p := filepath.Join(dir, "levels.pdf")
		formPDF(t, p, label(72, 700, "Street:"), "8 0 R", "6 0 R",
			"<< /Type /Annot /Subtype /Widget /Parent 7 0 R /Rect [150 695 300 715] /P 3 0 R /DA (/Helv 12 Tf 0 g) >>",
			"<< /T (street) /Parent 8 0 R /Kids [6 0 R] /V (Rua Augusta) >>",
			"<< /T (address) /FT /Tx /Kids [7 0 R] >>")
		if got := read(t, p); !strings.Contains(got, "Street: Rua Augusta") {
			t.Errorf("inherited field not read:\n%s", got)
		}
	})
	t.Run("20000 widgets", func(t *testing.T) {
		const n = 20000
		var refs strings.Builder
		var objs []string
		for i := range n {
			fmt.Fprintf(&refs, "%d 0 R ", 6+i)
			objs = append(objs, fmt.Sprintf("<< /Type /Annot /Subtype /Widget /FT /Tx /T (f%d) /V (v%d) /Rect [%d %d %d %d] /P 3 0 R >>",
				i, i, i%50*12, 20+i/50%700, i%50*12+10, 20+i/50%700+1))
		}
		p := filepath.Join(dir, "many.pdf")
		formPDF(t, p, label(72, 760, "Many fields."), refs.String(), refs.String(), objs...)
		got := read(t, p)
		values := 0
		for _, w := range strings.Fields(got) {
			if len(w) > 1 && w[0] == 'v' && strings.Trim(w[1:], "0123456789") == "" {
				values++
			}
		}
		if !strings.Contains(got, "Many fields.") || values != 1000 {
			t.Errorf("%d values read, want the first 1000, and the page text:\n%.300s", values, got)
		}
	})
}

// TestPDFFormFile: a LibreOffice form whose text fields have values but
// empty appearances reads with the values beside their labels, its unchecked
// boxes and radio buttons as marks, and no value twice.
func TestPDFFormFile(t *testing.T) {
	dir := filepath.Join(testdata(t), "pdfform")
	in := inspect.New(inspect.Options{Roots: []string{dir}, Home: t.TempDir(), PDF: pdfEngine})
	got, err := in.Inspect(t.Context(), filepath.Join(dir, "libreoffice-form.pdf"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"First Name Alice Last Name\n", "○ Female ○ Male\n", "☐ Agree to privacy policy\n☐ Other\n", "\nBob"} {
		if !strings.Contains(got, w) {
			t.Errorf("text lacks %q:\n%s", w, got)
		}
	}
	if strings.Count(got, "Alice") != 1 || strings.Count(got, "Bob") != 1 {
		t.Errorf("a value is doubled or missing:\n%s", got)
	}
}
