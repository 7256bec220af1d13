package inspect

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf16"

	"deskpilot/actions/browser"
	"github.com/richardlehane/mscfb"
)

// maxMsgStream bounds one property stream read from an Outlook message.
const maxMsgStream = 16 << 20

// MAPI property ids read from an Outlook .msg file ([MS-OXPROPS]).
const (
	propSubject     = 0x0037
	propSenderName  = 0x0C1A
	propSenderEmail = 0x0C1F
	propDisplayTo   = 0x0E04
	propDisplayCc   = 0x0E03
	propBody        = 0x1000
	propBodyHTML    = 0x1013
	propHeaders     = 0x007D
	propSubmitTime  = 0x0039
	propAttachLong  = 0x3707
	propAttachShort = 0x3704
)

var substg = regexp.MustCompile(`^__substg1\.0_([0-9A-Fa-f]{4})([0-9A-Fa-f]{4})$`)

// msgConvert reads an Outlook message (.msg, a compound file of MAPI
// properties): From, To, Cc, Date and Subject, the attachments' names, then
// the plain-text body (or the HTML body as markdown).
func msgConvert(_ context.Context, data []byte) (string, error) {
	m, err := readMsg(data)
	if err != nil {
		return "", err
	}
	props := m.props
	if props[propSubject] == "" && props[propBody] == "" && props[propBodyHTML] == "" {
		return "", errors.New("no subject or body: not an Outlook message")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", firstOf(props[propSubject], "(no subject)"))
	from := props[propSenderName]
	if email := props[propSenderEmail]; email != "" && email != from {
		from = strings.TrimSpace(from + " <" + email + ">")
	}
	date := headerField(props[propHeaders], "Date")
	if !m.submit.IsZero() {
		date = m.submit.UTC().Format("2006-01-02 15:04 MST")
	}
	for _, f := range [][2]string{{"From", from}, {"To", props[propDisplayTo]}, {"Cc", props[propDisplayCc]}, {"Date", date}} {
		if v := oneLineText(f[1]); v != "" {
			fmt.Fprintf(&b, "\n%s: %s", f[0], v)
		}
	}
	if len(m.attachments) > 0 {
		fmt.Fprintf(&b, "\nAttachments: %s", strings.Join(dedupe(m.attachments), ", "))
	}
	body := strings.TrimSpace(props[propBody])
	if body == "" && props[propBodyHTML] != "" {
		if doc, err := browser.HTMLBodyToMarkdown(strings.NewReader(props[propBodyHTML]), "", nil); err == nil {
			body = doc.Text
		}
	}
	if body != "" {
		b.WriteString("\n\n" + body)
	}
	return b.String(), nil
}

// msgFile is what is read of a .msg: the top-level string properties, the
// attachments' names (long name, else short) and the submit time.
type msgFile struct {
	props       map[int]string
	attachments []string
	submit      time.Time
}

func readMsg(data []byte) (*msgFile, error) {
	r, err := mscfb.New(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	m := &msgFile{props: map[int]string{}}
	attach := map[string][2]string{} // storage -> long, short name
	var order []string
	for e, err := r.Next(); err == nil; e, err = r.Next() {
		top := len(e.Path) == 0
		inAttach := len(e.Path) == 1 && strings.HasPrefix(e.Path[0], "__attach_version1.0_")
		if e.Size > maxMsgStream || !(top || inAttach) {
			continue
		}
		if top && e.Name == "__properties_version1.0" {
			m.submit = msgSubmitTime(e)
			continue
		}
		id, val, ok := msgProperty(e)
		switch {
		case !ok:
		case inAttach && (id == propAttachLong || id == propAttachShort):
			names, seen := attach[e.Path[0]]
			if !seen {
				order = append(order, e.Path[0])
			}
			if id == propAttachLong {
				names[0] = val
			} else {
				names[1] = val
			}
			attach[e.Path[0]] = names
		case top:
			m.props[id] = val
		}
	}
	for _, st := range order {
		m.attachments = append(m.attachments, firstOf(attach[st][0], attach[st][1]))
	}
	return m, nil
}

// msgProperty reads a "__substg1.0_IIIITTTT" stream: the property id and
// its value as text.
func msgProperty(e *mscfb.File) (int, string, bool) {
	sub := substg.FindStringSubmatch(e.Name)
	if sub == nil {
		return 0, "", false
	}
	var id, typ int
	fmt.Sscanf(sub[1], "%x", &id)
	fmt.Sscanf(sub[2], "%x", &typ)
	buf := make([]byte, e.Size)
	if _, err := io.ReadFull(e, buf); err != nil {
		return 0, "", false
	}
	return id, msgString(buf, typ), true
}

// msgString decodes a property value: UTF-16LE strings (type 001F), 8-bit
// strings (001E, taken as UTF-8 or Windows-1252) and binary (0102, which
// holds the HTML body) as bytes.
func msgString(b []byte, typ int) string {
	switch typ {
	case 0x001F:
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		return strings.TrimRight(string(utf16.Decode(u)), "\x00")
	case 0x001E, 0x0102:
		s, _ := decodeText(bytes.TrimRight(b, "\x00"))
		return s
	}
	return ""
}

// msgSubmitTime reads PR_CLIENT_SUBMIT_TIME from the top-level fixed-size
// property stream: a 32-byte header, then 16-byte entries (tag, flags, value).
func msgSubmitTime(r io.Reader) time.Time {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil || len(data) < 32 {
		return time.Time{}
	}
	for off := 32; off+16 <= len(data); off += 16 {
		tag := binary.LittleEndian.Uint32(data[off:])
		if tag>>16 == propSubmitTime && tag&0xFFFF == 0x0040 {
			ft := int64(binary.LittleEndian.Uint64(data[off+8:]))
			// FILETIME: 100 ns ticks since 1601-01-01.
			return time.Unix(ft/10_000_000-11_644_473_600, ft%10_000_000*100)
		}
	}
	return time.Time{}
}

// headerField reads one field of internet message headers.
func headerField(headers, name string) string {
	for _, line := range strings.Split(headers, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
