//go:build linux

package eval

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"path"
)

//go:embed summary.tmpl
var summaryTemplate string

// writeHTML writes the summary page: one self-contained file (no script, no
// external resource) with a row per result linking its trace's report.html.
// Everything from tasks and runs is escaped: answers are model output.
func writeHTML(file string, s Summary) error {
	t, err := template.New("summary").Funcs(template.FuncMap{
		"percent": func(a, b int) string { return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b)) },
		"rate": func(v any) string {
			switch f := v.(type) {
			case float64:
				return fmt.Sprintf("%.1f%%", 100*f)
			case *float64:
				if f != nil {
					return fmt.Sprintf("%.1f%%", 100**f)
				}
			}
			return "–"
		},
		"deref": func(f *float64) float64 { return *f },
		"report": func(trace string) string {
			return (&url.URL{Path: path.Join(trace, "report.html")}).String()
		},
	}).Parse(summaryTemplate)
	if err != nil {
		return err
	}
	return writeAtomic(file, func(w io.Writer) error { return t.Execute(w, s) })
}
