package inspect

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// maxUnzip bounds the uncompressed size of a workbook; excelize refuses
// larger ones, which stops zip bombs.
const maxUnzip = 256 << 20

// xlsxConvert renders each sheet of a workbook as "## Sheet" and a markdown
// table of its formatted cell values, the first row as the header; empty rows
// are left out.
func xlsxConvert(ctx context.Context, data []byte) (string, error) {
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: maxUnzip, UnzipXMLSizeLimit: maxUnzip})
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	for i, sheet := range f.GetSheetList() {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		rows, err := f.GetRows(sheet)
		if err != nil {
			return "", fmt.Errorf("sheet %q: %w", sheet, err)
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("## " + sheet)
		if visible, err := f.GetSheetVisible(sheet); err == nil && !visible {
			b.WriteString(" (hidden)")
		}
		b.WriteString("\n\n")
		var kept [][]string
		for _, r := range rows {
			if strings.TrimSpace(strings.Join(r, "")) != "" {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			b.WriteString("(empty sheet)")
		} else {
			b.WriteString(markdownTable(kept))
		}
		if b.Len() > maxOutput {
			b.WriteString("\n\n[The workbook is too long; the rest was not read.]")
			break
		}
	}
	return b.String(), nil
}
