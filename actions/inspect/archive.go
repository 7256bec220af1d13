package inspect

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
)

// maxZipDepth bounds archives nested in archives.
const maxZipDepth = 3

// Budget for members converted inline below an archive's listing.
const (
	maxInlineMembers = 20
	maxInlineChars   = 100_000
)

// zipText lists an archive and converts its first members inline, in
// archive order, until maxInlineChars; archives inside, images and files the
// inspector cannot read are listed only. Members with credential names or
// private keys are never shown.
func (in *Inspector) zipText(ctx context.Context, data []byte, display string) (string, error) {
	listing, err := zipListing(data, display)
	if err != nil {
		return "", err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(listing)
	shown, skipped := 0, 0
	for _, f := range zr.File {
		if f.FileInfo().IsDir() || ctx.Err() != nil {
			continue
		}
		name := path.Clean("/" + f.Name)[1:]
		ext := strings.ToLower(path.Ext(name))
		if ext == ".zip" || imageFormatByExt(ext) {
			continue
		}
		if _, denied := deniedName(name); denied {
			continue
		}
		if shown >= maxInlineMembers || b.Len() >= maxInlineChars {
			skipped++
			continue
		}
		body, err := readZipFile(f, min(in.opts.MaxFileBytes, maxInlineChars*4))
		if err != nil || isPrivateKey(body) {
			continue
		}
		conv, err := in.convert(ctx, display+"/"+name, path.Base(name), body, Request{Page: 1})
		if err != nil || conv.image != nil || strings.TrimSpace(conv.text) == "" {
			continue
		}
		text, cut := truncate(conv.text, maxInlineChars-min(b.Len(), maxInlineChars-1000))
		fmt.Fprintf(&b, "\n\n## %s\n\n%s", name, text)
		if cut || conv.lastPage < conv.pdfPages {
			fmt.Fprintf(&b, "\n\n[Cut here; read the whole file with inspect_file(%q).]", display+"/"+name)
		}
		shown++
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "\n\n[%d more file(s) not shown inline; read one with inspect_file(\"%s/<name>\").]", skipped, display)
	}
	return b.String(), nil
}

// imageFormatByExt reports an image file extension.
func imageFormatByExt(ext string) bool {
	for _, e := range imageExts {
		if e == ext {
			return true
		}
	}
	return false
}

// zipListing lists an archive's files as a markdown table and says how to
// read one.
func zipListing(data []byte, display string) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", err
	}
	rows := [][]string{{"Name", "Size", "Modified"}}
	var files int
	var total uint64
	first := ""
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		files++
		total += f.UncompressedSize64
		if first == "" {
			first = f.Name
		}
		if files <= maxListing {
			mod := ""
			if !f.Modified.IsZero() {
				mod = f.Modified.Format("2006-01-02 15:04")
			}
			rows = append(rows, []string{f.Name, humanBytes(int64(f.UncompressedSize64)), mod})
		}
	}
	if files > maxListing {
		rows = append(rows, []string{fmt.Sprintf("… %d more", files-maxListing), "", ""})
	}
	name := filepath.Base(display)
	if files == 0 {
		return fmt.Sprintf("# Archive: %s\n\nThe archive is empty.", name), nil
	}
	noun := "files"
	if files == 1 {
		noun = "file"
	}
	return fmt.Sprintf("# Archive: %s\n\n%d %s, %s uncompressed:\n\n%s\n\nRead a file inside with inspect_file(\"%s/%s\").",
		name, files, noun, humanBytes(int64(total)), markdownTable(rows), display, first), nil
}

// member is a file read out of an archive.
type member struct {
	name string
	data []byte
}

// zipMember reads the member at slash path name from an archive, following
// archives inside archives ("inner.zip/file.txt").
func zipMember(data []byte, name string, max int64, depth int) (member, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return member{}, fmt.Errorf("zip: file is corrupt or truncated: %w", err)
	}
	want := strings.Trim(path.Clean("/"+name), "/")
	for _, f := range zr.File {
		if strings.Trim(path.Clean("/"+f.Name), "/") == want && !f.FileInfo().IsDir() {
			b, err := readZipFile(f, max)
			return member{name: path.Base(want), data: b}, err
		}
	}
	if depth < maxZipDepth {
		for _, f := range zr.File {
			inner := strings.Trim(path.Clean("/"+f.Name), "/")
			if strings.HasPrefix(want, inner+"/") && strings.EqualFold(path.Ext(inner), ".zip") {
				b, err := readZipFile(f, max)
				if err != nil {
					return member{}, err
				}
				return zipMember(b, strings.TrimPrefix(want, inner+"/"), max, depth+1)
			}
		}
	}
	return member{}, fmt.Errorf("the archive has no file %q; inspect the archive itself to list its files", name)
}

func readZipFile(f *zip.File, max int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(max) {
		return nil, &TooLargeError{Name: f.Name, Size: int64(min(f.UncompressedSize64, 1<<62)), Max: max}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("zip: %s: %w", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, fmt.Errorf("zip: file is corrupt or truncated: %s: %w", f.Name, err)
	}
	if int64(len(b)) > max {
		return nil, &TooLargeError{Name: f.Name, Size: int64(len(b)), Max: max}
	}
	return b, nil
}
