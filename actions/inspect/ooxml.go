package inspect

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// maxPartBytes bounds one uncompressed XML part of an Office file.
const maxPartBytes = 64 << 20

// Namespaces of the Office Open XML vocabularies we read, transitional and
// strict.
var (
	wordNS = map[string]bool{
		"http://schemas.openxmlformats.org/wordprocessingml/2006/main": true,
		"http://purl.oclc.org/ooxml/wordprocessingml/main":             true,
	}
	drawingNS = map[string]bool{
		"http://schemas.openxmlformats.org/drawingml/2006/main": true,
		"http://purl.oclc.org/ooxml/drawingml/main":             true,
	}
	presentationNS = map[string]bool{
		"http://schemas.openxmlformats.org/presentationml/2006/main": true,
		"http://purl.oclc.org/ooxml/presentationml/main":             true,
	}
	relNS = map[string]bool{
		"http://schemas.openxmlformats.org/officeDocument/2006/relationships": true,
		"http://purl.oclc.org/ooxml/officeDocument/relationships":             true,
	}
	compatNS = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// pkg is an opened Office package (a zip of XML parts).
type pkg struct {
	files map[string]*zip.File // by lower-case name
}

func openPackage(data []byte) (*pkg, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a valid zip package: %w", err)
	}
	p := &pkg{files: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		p.files[strings.ToLower(strings.TrimPrefix(strings.ReplaceAll(f.Name, `\`, "/"), "/"))] = f
	}
	return p, nil
}

var errNoPart = errors.New("part not found")

// part reads one part by name.
func (p *pkg) part(name string) ([]byte, error) {
	f, ok := p.files[strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, errNoPart)
	}
	if f.UncompressedSize64 > maxPartBytes {
		return nil, fmt.Errorf("%s is %s uncompressed, more than the %s allowed", name, humanBytes(int64(f.UncompressedSize64)), humanBytes(maxPartBytes))
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxPartBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxPartBytes {
		return nil, fmt.Errorf("%s is larger than the %s allowed", name, humanBytes(maxPartBytes))
	}
	return data, nil
}

// has reports whether the package holds a part.
func (p *pkg) has(name string) bool {
	_, ok := p.files[strings.ToLower(name)]
	return ok
}

// rel is one relationship of a part.
type rel struct {
	Type, Target string
	External     bool
}

// rels reads the relationships of a part ("word/document.xml" ->
// "word/_rels/document.xml.rels"); internal targets are resolved to part
// names. A missing rels part is not an error.
func (p *pkg) rels(partName string) (map[string]rel, error) {
	dir, file := path.Split(partName)
	data, err := p.part(dir + "_rels/" + file + ".rels")
	if errors.Is(err, errNoPart) {
		return map[string]rel{}, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Rels []struct {
			ID         string `xml:"Id,attr"`
			Type       string `xml:"Type,attr"`
			Target     string `xml:"Target,attr"`
			TargetMode string `xml:"TargetMode,attr"`
		} `xml:"Relationship"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s relationships: %w", partName, err)
	}
	out := make(map[string]rel, len(doc.Rels))
	for _, r := range doc.Rels {
		x := rel{Type: r.Type, Target: r.Target, External: strings.EqualFold(r.TargetMode, "External")}
		if !x.External {
			if strings.HasPrefix(r.Target, "/") {
				x.Target = strings.TrimPrefix(r.Target, "/")
			} else {
				x.Target = path.Clean(dir + r.Target)
			}
		}
		out[r.ID] = x
	}
	return out, nil
}

// ooxmlKind tells a Word, Excel or PowerPoint package from a plain zip.
func ooxmlKind(data []byte) string {
	p, err := openPackage(data)
	if err != nil {
		return "zip"
	}
	switch {
	case p.has("META-INF/container.xml") && p.has("mimetype"):
		return "epub"
	case p.has("word/document.xml"):
		return "docx"
	case p.has("xl/workbook.xml"):
		return "xlsx"
	case p.has("ppt/presentation.xml"):
		return "pptx"
	}
	return "zip"
}

// attrOf returns the value of the attribute with the given local name (in any
// namespace, or in one of spaces when given).
func attrOf(e xml.StartElement, local string, spaces map[string]bool) string {
	for _, a := range e.Attr {
		if a.Name.Local == local && (spaces == nil || spaces[a.Name.Space] || a.Name.Space == "") {
			return a.Value
		}
	}
	return ""
}

// newDecoder returns a strict XML decoder that accepts any declared charset
// (Office parts are UTF-8 or UTF-16 with a BOM in practice).
func newDecoder(data []byte) *xml.Decoder {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	return d
}

// isFallback reports an mc:Fallback element, whose content repeats the
// mc:Choice next to it in an older form.
func isFallback(e xml.StartElement) bool {
	return e.Name.Space == compatNS && e.Name.Local == "Fallback"
}
