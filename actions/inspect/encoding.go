package inspect

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// maxSniff bounds the bytes the encoding detector looks at.
const maxSniff = 64 << 10

// decodeText turns the bytes of a text file into UTF-8: a byte-order mark
// names UTF-8 or UTF-16; UTF-16 without one is recognised by its zero bytes;
// valid UTF-8 stays as it is; anything else goes to a statistical detector
// (ICU's, through gogs/chardet) over the legacy encodings — Shift-JIS,
// EUC-JP, GB18030/GBK, Big5, EUC-KR, Windows-125x, ISO-8859-x, KOI8-R — and
// is decoded with golang.org/x/text. The name of a legacy encoding found is
// returned ("" for UTF-8 and UTF-16).
func decodeText(data []byte) (string, string) {
	switch {
	case bytes.HasPrefix(data, []byte("\xEF\xBB\xBF")):
		return string(data[3:]), ""
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeWith(unicode.BOMOverride(unicode.UTF8.NewDecoder()), data), ""
	}
	if e, ok := utf16NoBOM(data); ok {
		return decodeWith(unicode.UTF16(e, unicode.IgnoreBOM).NewDecoder(), data), ""
	}
	if utf8.Valid(data) {
		return string(data), ""
	}
	if enc, name := detectLegacy(data); enc != nil {
		return decodeWith(enc.NewDecoder(), data), name
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), ""
}

func decodeWith(t transform.Transformer, data []byte) string {
	out, _, err := transform.Bytes(t, data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return string(out)
}

// utf16NoBOM recognises UTF-16 text without a byte-order mark: in text of
// Latin script every other byte is zero.
func utf16NoBOM(data []byte) (unicode.Endianness, bool) {
	n := min(len(data), 4096) &^ 1
	if n < 8 {
		return unicode.LittleEndian, false
	}
	even, odd := 0, 0
	for i := 0; i < n; i += 2 {
		if data[i] == 0 && data[i+1] != 0 {
			even++
		}
		if data[i+1] == 0 && data[i] != 0 {
			odd++
		}
	}
	pairs := n / 2
	switch {
	case odd*10 >= pairs*7 && even*10 < pairs:
		return unicode.LittleEndian, true
	case even*10 >= pairs*7 && odd*10 < pairs:
		return unicode.BigEndian, true
	}
	return unicode.LittleEndian, false
}

// detectLegacy names the most likely legacy encoding of data whose
// decoding leaves (almost) no invalid sequences.
func detectLegacy(data []byte) (encoding.Encoding, string) {
	sample := data[:min(len(data), maxSniff)]
	results, err := chardet.NewTextDetector().DetectAll(sample)
	if err != nil {
		return nil, ""
	}
	for _, r := range results {
		if strings.HasPrefix(r.Charset, "UTF") || strings.HasPrefix(r.Charset, "ISO-2022") {
			continue
		}
		enc, err := htmlindex.Get(r.Charset)
		if err != nil {
			continue
		}
		out, _, err := transform.Bytes(enc.NewDecoder(), sample)
		if err != nil {
			continue
		}
		if bad := strings.Count(string(out), "\uFFFD"); bad*100 > utf8.RuneCount(out) {
			continue
		}
		return enc, r.Charset
	}
	return nil, ""
}
