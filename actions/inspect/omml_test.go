package inspect

import (
	"context"
	"strings"
	"testing"
)

// TestOMML puts Word equations (as Word 365 writes them) in the fixture
// document and checks their linear text.
func TestOMML(t *testing.T) {
	const w = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"`
	doc := `<w:document ` + w + `><w:body>` +
		`<w:p><w:r><w:t xml:space="preserve">The roots are </w:t></w:r><m:oMath><m:r><m:t>x=</m:t></m:r><m:f><m:num><m:r><m:t>-b±</m:t></m:r><m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/><m:e><m:sSup><m:e><m:r><m:t>b</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup><m:r><m:t>-4ac</m:t></m:r></m:e></m:rad></m:num><m:den><m:r><m:t>2a</m:t></m:r></m:den></m:f></m:oMath><w:r><w:t>.</w:t></w:r></w:p>` +
		`<w:p><m:oMathPara><m:oMath><m:nary><m:naryPr><m:chr m:val="∑"/></m:naryPr><m:sub><m:r><m:t>i=1</m:t></m:r></m:sub><m:sup><m:r><m:t>n</m:t></m:r></m:sup><m:e><m:sSub><m:e><m:r><m:t>x</m:t></m:r></m:e><m:sub><m:r><m:t>i</m:t></m:r></m:sub></m:sSub></m:e></m:nary><m:r><m:t>=</m:t></m:r><m:func><m:fName><m:r><m:t>sin</m:t></m:r></m:fName><m:e><m:d><m:e><m:r><m:t>θ</m:t></m:r></m:e></m:d></m:e></m:func></m:oMath></m:oMathPara></w:p>` +
		`</w:body></w:document>`
	data := pack(t, "testdata/report.docx", map[string][]byte{"word/document.xml": []byte(doc)})
	got, err := docxConvert(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"The roots are x=(-b±√(b^2-4ac))/(2a).",
		"∑_(i=1)^n x_i=sin (θ)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
}
