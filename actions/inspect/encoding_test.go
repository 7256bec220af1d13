package inspect

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// TestDecodeText encodes real sentences with x/text's encoders and checks
// the detector brings each back.
func TestDecodeText(t *testing.T) {
	ja := "品名,数量,単価\nりんご,12,150\nみかん,30,80\n東京都の店舗で販売された果物の一覧です。今月は天候に恵まれ、売上が大きく伸びました。\n"
	zh := "产品,数量,价格\n苹果,12,150\n橘子,30,80\n这是在上海的商店里出售的水果清单。本月天气很好，销售额大幅增长。\n"
	tw := "產品,數量,價格\n蘋果,12,150\n橘子,30,80\n這是在台北的商店裡出售的水果清單。本月天氣很好，銷售額大幅增長。\n"
	ko := "제품,수량,가격\n사과,12,150\n귤,30,80\n이것은 서울의 가게에서 판매된 과일 목록입니다. 이번 달에는 날씨가 좋아서 매출이 크게 늘었습니다.\n"
	ru := "Товар,Количество,Цена\nЯблоки,12,150\nМандарины,30,80\nЭто список фруктов, проданных в магазине в Москве. В этом месяце погода была хорошей, и продажи сильно выросли.\n"
	fr := "Produit,Quantité,Prix\nPommes,12,150\nClémentines,30,80\nVoici la liste des fruits vendus au magasin de Lyon. Ce mois-ci, la météo était agréable et les ventes ont fortement augmenté, déjà à l'été.\n"
	for _, c := range []struct {
		name string
		text string
		enc  encoding.Encoding
	}{
		{"Shift-JIS", ja, japanese.ShiftJIS},
		{"EUC-JP", ja, japanese.EUCJP},
		{"GBK", zh, simplifiedchinese.GBK},
		{"Big5", tw, traditionalchinese.Big5},
		{"EUC-KR", ko, korean.EUCKR},
		{"Windows-1251", ru, charmap.Windows1251},
		{"KOI8-R", ru, charmap.KOI8R},
		{"Windows-1252", fr, charmap.Windows1252},
		{"UTF-16LE without BOM", fr, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)},
		{"UTF-16BE with BOM", fr, unicode.UTF16(unicode.BigEndian, unicode.UseBOM)},
		{"UTF-8", fr, encoding.Nop},
	} {
		t.Run(c.name, func(t *testing.T) {
			data, err := c.enc.NewEncoder().Bytes([]byte(c.text))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := decodeText(data)
			if got != c.text {
				t.Errorf("decoded:\n%s\nwant:\n%s", got, c.text)
			}
			if strings.ContainsRune(got, '\uFFFD') {
				t.Error("replacement characters in the text")
			}
		})
	}
}
