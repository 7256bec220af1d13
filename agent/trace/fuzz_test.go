package trace

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// FuzzReadTrace feeds arbitrary trace.jsonl content to the reader, the report and the
// export: none may panic, and whatever parses must render.
func FuzzReadTrace(f *testing.F) {
	if data, err := os.ReadFile("testdata/trace.golden.jsonl"); err == nil {
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	start := `{"v":1,"type":"run_start","t":"2026-11-29T19:20:00Z","step":0,"screen":{"x":-5,"y":0,"w":0,"h":-3}}` + "\n"
	f.Add([]byte(start))
	f.Add([]byte(start + `{"type":"action","t":"2026-11-29T19:20:00Z","step":-7,"action":{"name":"drag","screen":[1,2],"to":[1,2]}}`))
	f.Add([]byte(start + `{"type":"observation","t":"2026-11-29T19:20:00Z","step":1,"frame":"../x.png","attachments":["C:\\a"]}` + "\n\n{"))
	f.Add([]byte(start + `{"type":"run_end","t":"0001-01-01T00:00:00Z","step":9999999999,"usage":{"in":-1,"out":1e3}}`))
	f.Add([]byte(""))
	f.Add([]byte("\x00\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse(bytes.NewReader(data))
		if err != nil {
			if tr != nil {
				t.Fatal("Parse returned a trace and an error")
			}
			return
		}
		if tr.Start.Type != TypeRunStart || tr.Start.V != Version {
			t.Fatalf("accepted a trace starting with %q v%d", tr.Start.Type, tr.Start.V)
		}
		if err := Report(tr, io.Discard); err != nil {
			t.Fatalf("Report: %v", err)
		}
		if err := Export(tr, io.Discard, ExportOptions{}); err != nil {
			t.Fatalf("Export: %v", err)
		}
	})
}
