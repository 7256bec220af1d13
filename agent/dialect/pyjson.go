package dialect

import (
	"fmt"
	"strings"
)

// jsonObj is a JSON object with its keys in the order written, for text the
// model was trained on byte for byte (Python's json.dumps output).
type jsonObj []jsonKV

type jsonKV struct {
	k string
	v any // string, jsonObj, []any or []string
}

// pyJSON renders v as Python's json.dumps(v, ensure_ascii=False) does:
// ", " and ": " separators, non-ASCII kept, control characters escaped.
func pyJSON(v any) string {
	var b strings.Builder
	writePyJSON(&b, v)
	return b.String()
}

func writePyJSON(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		writePyString(b, v)
	case jsonObj:
		b.WriteByte('{')
		for i, kv := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyString(b, kv.k)
			b.WriteString(": ")
			writePyJSON(b, kv.v)
		}
		b.WriteByte('}')
	case []string:
		vs := make([]any, len(v))
		for i, s := range v {
			vs[i] = s
		}
		writePyJSON(b, vs)
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writePyJSON(b, x)
		}
		b.WriteByte(']')
	default:
		panic(fmt.Sprintf("dialect: pyJSON of %T", v))
	}
}

func writePyString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
