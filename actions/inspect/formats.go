package inspect

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"deskpilot/actions/browser"
)

// format is one readable file type.
type format struct {
	name    string   // as shown in errors: "pdf", "docx", ...
	label   string   // for the supported-formats list
	exts    []string // lower case, with the dot
	convert func(ctx context.Context, data []byte) (string, error)
}

// textExts are extensions read as plain text.
var textExts = []string{
	".txt", ".text", ".log", ".md", ".markdown", ".rst", ".ini", ".cfg", ".conf", ".toml", ".yaml", ".yml",
	".py", ".go", ".js", ".ts", ".java", ".c", ".h", ".cpp", ".rs", ".sh", ".sql", ".css", ".tex", ".srt", ".vtt",
}

// formats lists what the inspector reads, in detection order.
func formats() []format {
	return []format{
		{"text", "text and Markdown", textExts, textConvert},
		{"csv", "CSV", []string{".csv"}, func(_ context.Context, d []byte) (string, error) { return csvConvert(d, 0) }},
		{"tsv", "TSV", []string{".tsv", ".tab"}, func(_ context.Context, d []byte) (string, error) { return csvConvert(d, '\t') }},
		{"json", "JSON", []string{".json", ".jsonl", ".geojson"}, jsonConvert},
		{"feed", "RSS and Atom feeds", []string{".rss", ".atom"}, feedConvert},
		{"xml", "XML", []string{".xml", ".svg", ".kml"}, xmlConvert},
		{"ipynb", "Jupyter notebooks", []string{".ipynb"}, notebookConvert},
		{"epub", "EPUB e-books", []string{".epub"}, epubConvert},
		{"msg", "Outlook messages", []string{".msg"}, msgConvert},
		{"html", "HTML", []string{".html", ".htm", ".xhtml"}, htmlConvert},
		{"pdf", "PDF", []string{".pdf"}, nil}, // needs the engine and the page; see convert
		{"docx", "Word", []string{".docx", ".docm"}, docxConvert},
		{"xlsx", "Excel", []string{".xlsx", ".xlsm"}, xlsxConvert},
		{"pptx", "PowerPoint", []string{".pptx", ".pptm"}, pptxConvert},
		{"zip", "ZIP archives", []string{".zip"}, nil}, // needs the path; see convert
		{"image", "images", imageExts, nil},
	}
}

// supportedList names the supported formats and their extensions.
func supportedList() string {
	var parts []string
	for _, f := range formats() {
		exts := f.exts
		if f.name == "text" {
			exts = []string{".txt", ".md", ".log", "source code"}
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", f.label, strings.Join(exts, " ")))
	}
	return strings.Join(parts, ", ")
}

// detect picks the format for a file name, sniffing the content when the
// extension is unknown.
func detect(name string, data []byte) (format, bool) {
	ext := strings.ToLower(filepath.Ext(name))
	all := formats()
	for _, f := range all {
		for _, e := range f.exts {
			if e == ext {
				return f, true
			}
		}
	}
	byName := func(n string) format {
		for _, f := range all {
			if f.name == n {
				return f
			}
		}
		panic("unknown format " + n)
	}
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return byName("pdf"), true
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return byName(ooxmlKind(data)), true
	case imageFormat(data) != "":
		return byName("image"), true
	}
	ct := http.DetectContentType(data)
	switch {
	case strings.HasPrefix(ct, "text/html"):
		return byName("html"), true
	case strings.HasPrefix(ct, "text/xml"):
		return byName("xml"), true
	case strings.HasPrefix(ct, "text/plain") && utf8.Valid(data[:min(len(data), 4096)]):
		return byName("text"), true
	}
	return format{}, false
}

// convert turns data into a file with text, by format.
func (in *Inspector) convert(ctx context.Context, display, name string, data []byte, req Request) (*file, error) {
	f, ok := detect(name, data)
	if !ok {
		return nil, &UnsupportedError{Name: name, Ext: strings.ToLower(filepath.Ext(name))}
	}
	out := &file{name: name, path: display, format: f.name}
	var err error
	switch f.name {
	case "pdf":
		err = in.pdfText(ctx, out, data, req)
	case "zip":
		out.text, err = in.zipText(ctx, data, display)
	case "image":
		out.image, err = readImage(name, data)
	default:
		out.text, err = safely(func() (string, error) { return f.convert(ctx, data) })
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("inspect: %s: %w", name, ctx.Err())
		}
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.Name = name
			return nil, fe
		}
		var ee *EngineError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("inspect: %s: %w", name, err)
		}
		return nil, &FormatError{Format: f.name, Name: name, Err: err}
	}
	out.text = tidy(out.text)
	return out, nil
}

// safely runs a converter, turning a panic in a parser into an error.
func safely(fn func() (string, error)) (s string, err error) {
	defer func() {
		if p := recover(); p != nil {
			s, err = "", fmt.Errorf("parser failed: %v", p)
		}
	}()
	return fn()
}

// tidy makes text valid UTF-8 with no trailing spaces and no runs of blank lines.
func tidy(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			blank++
			if blank > 1 {
				continue
			}
		} else {
			blank = 0
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func textConvert(_ context.Context, data []byte) (string, error) {
	text, _ := decodeText(data)
	if strings.ContainsRune(text[:min(len(text), 8192)], 0) {
		return "", errors.New("the file holds binary data, not text")
	}
	return text, nil
}

// csvConvert renders CSV (comma, or semicolon when the first line has more of
// them) or TSV as a markdown table with the first row as the header.
func csvConvert(data []byte, sep rune) (string, error) {
	text, _ := decodeText(data)
	if sep == 0 {
		first, _, _ := strings.Cut(text, "\n")
		sep = ','
		if strings.Count(first, ";") > strings.Count(first, ",") {
			sep = ';'
		}
	}
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = sep
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		rows = append(rows, rec)
	}
	if len(rows) == 0 {
		return "(empty table)", nil
	}
	return markdownTable(rows), nil
}

func jsonConvert(_ context.Context, data []byte) (string, error) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "  "); err != nil {
		// JSON Lines: one document per line.
		if lines, ok := jsonLines(data); ok {
			return "```json\n" + lines + "\n```", nil
		}
		return "", err
	}
	return "```json\n" + out.String() + "\n```", nil
}

func jsonLines(data []byte) (string, bool) {
	var b strings.Builder
	n := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			return "", false
		}
		b.Write(line)
		b.WriteByte('\n')
		n++
	}
	return strings.TrimSuffix(b.String(), "\n"), n > 1
}

func xmlConvert(ctx context.Context, data []byte) (string, error) {
	if isFeed(data) {
		return feedConvert(ctx, data)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for {
		_, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
	}
	text, _ := decodeText(data)
	return "```xml\n" + strings.TrimSpace(text) + "\n```", nil
}

func htmlConvert(_ context.Context, data []byte) (string, error) {
	doc, err := browser.HTMLToMarkdown(bytes.NewReader(data), "", nil)
	if err != nil {
		return "", err
	}
	if doc.Title != "" && !strings.HasPrefix(doc.Text, "# ") {
		return "# " + doc.Title + "\n\n" + doc.Text, nil
	}
	return doc.Text, nil
}

// markdownTable renders rows as a markdown table, the first row as the header.
// Rows are padded to the widest; pipes are escaped and line breaks become
// <br>.
func markdownTable(rows [][]string) string {
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		return ""
	}
	var b strings.Builder
	for i, r := range rows {
		b.WriteByte('|')
		for c := range width {
			cell := ""
			if c < len(r) {
				cell = cellText(r[c])
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteByte('\n')
		if i == 0 {
			b.WriteString("|" + strings.Repeat("---|", width) + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var cellReplacer = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

func cellText(s string) string { return cellReplacer.Replace(strings.TrimSpace(s)) }

// humanBytes renders a size as "512 bytes", "12.3 KiB" or "4.0 MiB".
func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
