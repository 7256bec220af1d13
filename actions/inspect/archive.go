package inspect

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
)

// maxZipDepth bounds archives nested in archives.
const maxZipDepth = 3

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
