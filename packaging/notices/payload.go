package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
)

// payload is a file of compiled code a package embeds: its licences are those
// of whatever was compiled into it, which its module's licence files may not
// cover (go-pdfium embeds PDFium built to WebAssembly with FreeType, libjpeg,
// OpenJPEG and more). The notices name it and quote the copyright lines found
// in it, so that what it contains is on record.
type payload struct {
	name    string   // relative to the module's folder
	kind    string   // WebAssembly, ELF, PE
	size    int      // bytes
	notices []string // copyright lines found in it
}

// maxNotices bounds the copyright lines quoted from one payload.
const maxNotices = 40

// copyrightLine matches a printable run that states a copyright.
var copyrightLine = regexp.MustCompile(`(?i)[ -~]*(copyright (\(c\)|©|[0-9]{4})|\(c\) ?[0-9]{4})[ -~]*`)

// readPayload returns path as a payload when it is compiled code, nil when it
// is anything else (a template, a font, an image).
func readPayload(modDir, path string) (*payload, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("embedded file: %w", err)
	}
	kind := ""
	switch {
	case bytes.HasPrefix(b, []byte("\x00asm")):
		kind = "WebAssembly"
	case bytes.HasPrefix(b, []byte("\x7fELF")):
		kind = "ELF"
	case bytes.HasPrefix(b, []byte("MZ")):
		kind = "PE"
	default:
		return nil, nil
	}
	rel, _ := filepath.Rel(modDir, path)
	p := &payload{name: filepath.ToSlash(rel), kind: kind, size: len(b)}
	for _, m := range copyrightLine.FindAll(b, -1) {
		line := string(bytes.TrimSpace(m))
		if len(line) < 12 || len(line) > 200 || slices.Contains(p.notices, line) {
			continue
		}
		p.notices = append(p.notices, line)
		if len(p.notices) == maxNotices {
			break
		}
	}
	return p, nil
}
