package checks

import (
	"fmt"
	"math"
	"testing"
)

// The documents here are what LibreOffice Writer 7.4 wrote from
// testdata/src/doc-tabs.fodt and src/doc-more.fodt and near misses of them,
// one property off each (testdata/make.sh). Each want is what OSWorld's
// function (metrics/docs.py at eac51b51, python-docx 0.8.11) gives on the
// same files, worked out from its code.

type docxCase struct {
	result, expected any
	opts             map[string]any
	want             string
}

func runDocxCases(t *testing.T, metric string, tests []docxCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%v/%v/%v", tt.result, tt.expected, tt.opts), func(t *testing.T) {
			checkScore(t, metric, Call{Result: tt.result, Expected: tt.expected, Options: tt.opts}, tt.want)
		})
	}
}

// TestCheckTabstops: a right tab stop at the right margin (gold), the same at
// 15.3 cm (1 - 964/9638 twips), centred, and with four words before the tab.
func TestCheckTabstops(t *testing.T) {
	gold := td("doc-tabs-gold.docx")
	three := map[string]any{"word_number_split_by_tabstop": int64(3), "index": int64(0)}
	runDocxCases(t, "check_tabstops", []docxCase{
		{gold, gold, nil, "1"},
		{gold, gold, three, "1"},
		{gold, gold, map[string]any{"word_number_split_by_tabstop": int64(3), "index": int64(-2)}, "1"},
		{gold, gold, map[string]any{"word_number_split_by_tabstop": int64(2), "index": int64(1)}, "0"},
		{gold, gold, map[string]any{"word_number_split_by_tabstop": int64(3), "index": int64(2)}, "error"},
		{td("doc-tabs-shifted.docx"), gold, three, "0.8999792488068064"},
		{gold, td("doc-tabs-shifted.docx"), nil, "0.8999792488068064"},
		{td("doc-tabs-center.docx"), gold, three, "0"},
		{td("doc-tabs-four.docx"), gold, nil, "1"},
		{td("doc-tabs-four.docx"), gold, three, "0"},
		{td("doc-more-gold.docx"), gold, nil, "0"}, // other paragraph counts
		{nil, gold, nil, "0"},
		{td("xlsx-gold.xlsx"), gold, nil, "0"},
	})
}

// TestCompareSubscriptContains: H₂O's 2 subscript in both, in neither
// (nosub), superscript (super).
func TestCompareSubscriptContains(t *testing.T) {
	gold := td("doc-more-gold.docx")
	runDocxCases(t, "compare_subscript_contains", []docxCase{
		{gold, gold, nil, "1"},
		{td("doc-more-ital12.docx"), gold, nil, "1"},
		{td("doc-more-nosub.docx"), gold, nil, "0"},
		{td("doc-more-super.docx"), gold, nil, "0"},
		{gold, td("doc-more-super.docx"), nil, "0"},
		{gold, td("doc-tabs-gold.docx"), nil, "0"},
		{gold, nil, nil, "0"},
	})
}

// TestCheckItalicFontSize14: the italic word at 14 pt, at 12 pt (ital12),
// and a result whose text differs (word).
func TestCheckItalicFontSize14(t *testing.T) {
	gold := td("doc-more-gold.docx")
	runDocxCases(t, "check_italic_font_size_14", []docxCase{
		{gold, gold, nil, "1"},
		{td("doc-more-nosub.docx"), gold, nil, "1"},
		{td("doc-more-ital12.docx"), gold, nil, "0"},
		{td("doc-more-word.docx"), gold, nil, "0"},
		{td("doc-fmt-font.docx"), td("doc-fmt-font.docx"), nil, "1"}, // no italic run
		{td("doc-more-gold.odt"), td("doc-more-gold.odt"), nil, "0"}, // the texts match, python-docx does not open it
		{nil, gold, nil, "0"},
	})
}

// TestEvaluateStrikeThroughLastParagraph: the last paragraph struck through,
// not struck (nostrike), and a text that differs (word).
func TestEvaluateStrikeThroughLastParagraph(t *testing.T) {
	gold := td("doc-more-gold.docx")
	runDocxCases(t, "evaluate_strike_through_last_paragraph", []docxCase{
		{gold, gold, nil, "1"},
		{td("doc-more-ital12.docx"), gold, nil, "1"},
		{td("doc-more-nostrike.docx"), gold, nil, "0"},
		{td("doc-more-nostrike.docx"), td("doc-more-nostrike.docx"), nil, "0"},
		{td("doc-more-word.docx"), gold, nil, "0"},
		{gold, nil, nil, "0"},
	})
}

// TestCheckHighlightedWords runs on the odt files Writer saved: a word with
// no background (gold), highlighted in yellow, in green, and a result whose
// text differs.
func TestCheckHighlightedWords(t *testing.T) {
	gold := td("doc-more-gold.odt")
	runDocxCases(t, "check_highlighted_words", []docxCase{
		{gold, gold, nil, "1"},
		{td("doc-more-green.odt"), gold, nil, "1"},
		{td("doc-more-yellow.odt"), gold, nil, "0"},
		{td("doc-more-yellow.odt"), td("doc-more-yellow.odt"), nil, "0"},
		{td("doc-more-word.odt"), gold, nil, "0"},
		{td("doc-more-gold.docx"), td("doc-more-gold.docx"), nil, "error"}, // odfpy does not open a docx
		{td("doc-more-gold.docx"), gold, nil, "0"},
		{nil, gold, nil, "0"},
	})
}

// TestCompareContainsImage: the picture in both, before the text of its
// paragraph (picfirst: the first runs differ), another picture at the same
// place (pic2), and none (noimage: as OSWorld's, a pass, for only the runs
// both paragraphs have are compared).
func TestCompareContainsImage(t *testing.T) {
	gold := td("doc-more-gold.docx")
	runDocxCases(t, "compare_contains_image", []docxCase{
		{gold, gold, nil, "1"},
		{td("doc-more-pic2.docx"), gold, nil, "1"},
		{td("doc-more-noimage.docx"), gold, nil, "1"},
		{td("doc-more-picfirst.docx"), gold, nil, "0"},
		{gold, td("doc-more-picfirst.docx"), nil, "0"},
		{td("doc-more-noimage.docx"), td("doc-more-noimage.docx"), nil, "1"},
		{td("doc-tabs-gold.docx"), gold, nil, "1"}, // its runs pair with runs without pictures
		{gold, nil, nil, "0"},
	})
}

// TestCIEDE2000 checks the colour difference on pairs of Sharma, Wu and
// Dalal's CIEDE2000 test data (published with four decimals) and the L*a*b*
// of sRGB red.
func TestCIEDE2000(t *testing.T) {
	pairs := []struct {
		a, b [3]float64
		want float64
	}{
		{[3]float64{50, 2.6772, -79.7751}, [3]float64{50, 0, -82.7485}, 2.0425},
		{[3]float64{50, 3.1571, -77.2803}, [3]float64{50, 0, -82.7485}, 2.8615},
		{[3]float64{50, 0, 0}, [3]float64{50, -1, 2}, 2.3669},
		{[3]float64{50, 2.49, -0.001}, [3]float64{50, -2.49, 0.0009}, 7.1792},
		{[3]float64{50, 2.5, 0}, [3]float64{73, 25, -18}, 27.1492},
		{[3]float64{60.2574, -34.0099, 36.2677}, [3]float64{60.4626, -34.1751, 39.4387}, 1.2644},
		{[3]float64{2.0776, 0.0795, -1.135}, [3]float64{0.9033, -0.0636, -0.5514}, 0.9082},
	}
	for _, p := range pairs {
		if got := ciede2000(p.a, p.b); math.Abs(got-p.want) > 5e-5 {
			t.Errorf("ciede2000(%v, %v) = %.5f, want %.4f", p.a, p.b, got, p.want)
		}
	}
	lab := srgbToLab([3]float64{1, 0, 0})
	if math.Abs(lab[0]-53.2408) > 1e-3 || math.Abs(lab[1]-80.0925) > 1e-3 || math.Abs(lab[2]-67.2032) > 1e-3 {
		t.Errorf("red is %v in L*a*b*", lab)
	}
	t.Logf("near %.4f off %.4f", rgbDistance([3]uint8{10, 0, 255}, [3]uint8{0, 0, 255}), rgbDistance([3]uint8{80, 0, 255}, [3]uint8{0, 0, 255}))
}

// TestEvaluateColoredWordsInTables: the table's words red (apple, Egg) and
// blue (ball, cat); blue as #0a00ff (0.15 from blue), as #5000ff (3.68 from
// blue: over the default threshold, under 4), and a text that differs.
func TestEvaluateColoredWordsInTables(t *testing.T) {
	gold := td("doc-more-gold.docx")
	runDocxCases(t, "evaluate_colored_words_in_tables", []docxCase{
		{gold, gold, nil, "1"},
		{td("doc-more-bluenear.docx"), gold, nil, "1"},
		{td("doc-more-blueoff.docx"), gold, nil, "0"},
		{td("doc-more-blueoff.docx"), gold, map[string]any{"threshold": int64(4)}, "1"},
		{td("doc-more-bluenear.docx"), gold, map[string]any{"threshold": 0.1}, "0"},
		{td("doc-more-word.docx"), gold, nil, "0"},
		{td("doc-tabs-gold.docx"), td("doc-tabs-gold.docx"), nil, "1"}, // no table
		{td("doc-more-nocolor.docx"), gold, nil, "error"},              // ball and cat without a colour: rgb None
		{gold, nil, nil, "0"},
	})
}

// TestFindDefaultFont on registrymodifications.xcu files LibreOffice wrote:
// with Writer's default font set to Times New Roman (lo-font.xcu), a fresh
// profile, and a file that is no XML.
func TestFindDefaultFont(t *testing.T) {
	tnr := map[string]any{"font_name": "Times New Roman"}
	runDocxCases(t, "find_default_font", []docxCase{
		{td("lo-font.xcu"), tnr, nil, "1"},
		{td("lo-font.xcu"), map[string]any{"font_name": "Liberation Serif"}, nil, "0"},
		{td("lo-fresh.xcu"), tnr, nil, "0"},
		{td("lo-set.xcu"), tnr, nil, "0"},
		{td("doc-more-gold.docx"), tnr, nil, "0"},
		{nil, tnr, nil, "0"},
		{td("lo-font.xcu"), map[string]any{"font": "Times New Roman"}, nil, "error"},
		{nil, map[string]any{}, nil, "error"},
	})
}

// TestCompareDocxImages: the same picture, the same pixels in a PNG written
// otherwise (picsame), one pixel changed (pic2), no picture (noimage), an SVG
// picture (svg), and a document that is not a docx.
func TestCompareDocxImages(t *testing.T) {
	gold := td("doc-more-gold.docx")
	runDocxCases(t, "compare_docx_images", []docxCase{
		{gold, gold, nil, "1"},
		{td("doc-more-word.docx"), gold, nil, "1"},
		{td("doc-more-picsame.docx"), gold, nil, "1"},
		{td("doc-more-pic2.docx"), gold, nil, "0"},
		{td("doc-more-noimage.docx"), gold, nil, "0"},
		{td("doc-more-noimage.docx"), td("doc-tabs-gold.docx"), nil, "1"},
		{td("doc-more-gold.odt"), gold, nil, "0"},
		{td("doc-more-svg.docx"), gold, nil, "0"}, // Writer stores the SVG rendered as a 9x7 RGBA PNG
		{nil, gold, nil, "0"},
	})
}

// TestCompareReferences: the references after "References" the same, one
// letter off in one of three (life/Life: their mean ratio is 161/162), and a
// heading renamed (biblio), with the options task multi_apps/2c1ebcd7 uses.
func TestCompareReferences(t *testing.T) {
	gold := td("doc-more-gold.docx")
	task := map[string]any{"content_only": true, "reference_base_result": 0.92}
	runDocxCases(t, "compare_references", []docxCase{
		{gold, gold, nil, "1"},
		{gold, gold, task, "1"},
		{td("doc-more-word.docx"), gold, nil, "0.9876543209876543"},
		{td("doc-more-word.docx"), gold, task, "0.9228395061728392"},
		{td("doc-more-word.docx"), gold, map[string]any{"reference_base_result": 0.995}, "0"},
		{td("doc-more-biblio.docx"), gold, nil, "0"},
		{td("doc-more-biblio.docx"), td("doc-more-word.docx"), map[string]any{"reference_indicator": "Bibliography"}, "0"},
		{td("doc-more-biblio.docx"), td("doc-tabs-gold.docx"), map[string]any{"reference_indicator": "Bibliography"}, "0"},
		{td("doc-tabs-gold.docx"), gold, map[string]any{"reference_indicator": "Bibliography"}, "1"}, // neither has it
		{gold, gold, map[string]any{"reference_base_result": 1}, "error"},
		{td("doc-more-gold.odt"), gold, nil, "0"},
		{nil, gold, nil, "0"},
	})
}
