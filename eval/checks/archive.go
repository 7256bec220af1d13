package checks

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"deskpilot/internal/smallfile"
)

// Limits of what an archive may unpack to.
const (
	maxArchiveEntries = 10000
	maxArchiveBytes   = 1 << 30
)

// archiveMetrics are compare_archive (metrics/chrome.py) and
// compare_zip_files (metrics/vscode.py).
func archiveMetrics() map[string]Metric {
	return map[string]Metric{
		"compare_archive":   {Fn: compareArchive, Kwargs: true},
		"compare_zip_files": {Fn: compareZipFiles, Kwargs: true},
	}
}

// archiveCompare maps compare_archive's file_type to the metric it runs on
// each pair of unpacked files.
var archiveCompare = map[string]string{
	"text": "compare_text_file", "pdf": "compare_pdfs", "docx": "compare_docx_files",
	"ppt": "compare_pptx_files", "image": "compare_images", "csv": "compare_csv",
	"table": "compare_table", "audio": "compare_audios", "video": "compare_videos",
}

// compareArchive is compare_archive: both archives unpacked (the result's
// next to it as NAME_pred, the gold's as NAME_gold, kept for later calls),
// the same sorted file names under file_path, and the mean of file_type's
// metric over the pairs of files, with the other options passed on.
func compareArchive(ctx context.Context, c Call) (Score, error) {
	pred, ok := c.Result.(string)
	if !ok || pred == "" {
		return Score{Note: "no archive"}, nil
	}
	gold, ok := c.Expected.(string)
	if !ok {
		return Score{}, fmt.Errorf("expected: want an archive path, got %s", PyType(c.Expected))
	}
	opts := map[string]any{}
	for k, v := range c.Options {
		opts[k] = v
	}
	sub := ""
	if v, ok := opts["file_path"]; ok {
		sub = PyStr(v)
		delete(opts, "file_path")
	}
	if !filepath.IsLocal(sub) && sub != "" {
		return Score{}, fmt.Errorf("file_path %q leaves the archive", sub)
	}
	predDir := strings.TrimSuffix(pred, filepath.Ext(pred)) + "_pred"
	goldDir := strings.TrimSuffix(gold, filepath.Ext(gold)) + "_gold"
	if err := os.RemoveAll(predDir); err != nil {
		return Score{}, err
	}
	if err := unpackArchive(pred, predDir); err != nil {
		return Score{}, err
	}
	if _, err := os.Stat(goldDir); err != nil {
		if err := unpackArchive(gold, goldDir); err != nil {
			return Score{}, err
		}
	}
	predFiles, err := sortedNames(filepath.Join(predDir, sub))
	if err != nil {
		return Score{}, err
	}
	goldFiles, err := sortedNames(filepath.Join(goldDir, sub))
	if err != nil {
		return Score{}, err
	}
	if !slices.Equal(predFiles, goldFiles) {
		return Score{Note: fmt.Sprintf("the archive holds %s, expected %s", show(predFiles), show(goldFiles))}, nil
	}
	typ := "text"
	if v, ok := opts["file_type"]; ok {
		typ = PyStr(v)
		delete(opts, "file_type")
	}
	name, ok := archiveCompare[typ]
	if !ok {
		return Score{}, fmt.Errorf("ValueError: [ERROR]: not support file type: %s", typ)
	}
	m, _ := Lookup(name)
	if len(predFiles) == 0 {
		return Score{}, errors.New("ZeroDivisionError: the archives hold no files")
	}
	total := 0.0
	var notes []string
	for i := range predFiles {
		s, err := m.Fn(ctx, Call{Env: c.Env, Options: opts,
			Result:   filepath.Join(predDir, sub, predFiles[i]),
			Expected: filepath.Join(goldDir, sub, goldFiles[i])})
		if err != nil {
			return Score{}, fmt.Errorf("%s: %w", predFiles[i], err)
		}
		total += s.Value
		if s.Value < 1 {
			notes = append(notes, predFiles[i]+": "+s.Note)
		}
	}
	return Score{Value: total / float64(len(predFiles)), Note: strings.Join(notes, "; ")}, nil
}

func sortedNames(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name()
	}
	slices.Sort(out)
	return out, nil
}

// unpackArchive is shutil.unpack_archive by the file's extension (zip, tar,
// tar.gz/tgz, tar.bz2/tbz2), refusing entries that leave dir, links, and
// archives that unpack to more than the limits.
func unpackArchive(p, dir string) error {
	lower := strings.ToLower(p)
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	u := &unpacker{dir: dir}
	switch {
	case strings.HasSuffix(lower, ".zip"):
		err = u.zip(data)
	case strings.HasSuffix(lower, ".tar"):
		err = u.tar(bytes.NewReader(data))
	case strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"):
		var z *gzip.Reader
		if z, err = gzip.NewReader(bytes.NewReader(data)); err == nil {
			err = u.tar(z)
		}
	case strings.HasSuffix(lower, ".tar.bz2"), strings.HasSuffix(lower, ".tbz2"):
		err = u.tar(bzip2.NewReader(bytes.NewReader(data)))
	default:
		return fmt.Errorf("ReadError: %s is not an archive format unpacked here (zip, tar, tar.gz, tar.bz2)", filepath.Base(p))
	}
	if err != nil {
		return fmt.Errorf("unpack %s: %w", filepath.Base(p), err)
	}
	return nil
}

type unpacker struct {
	dir     string
	entries int
	bytes   int64
}

// target is where entry name goes, or an error for a name leaving dir.
func (u *unpacker) target(name string) (string, error) {
	u.entries++
	if u.entries > maxArchiveEntries {
		return "", fmt.Errorf("more than %d entries", maxArchiveEntries)
	}
	clean := path.Clean("/" + strings.ReplaceAll(name, "\\", "/"))[1:]
	if clean == "" {
		return "", nil
	}
	if !filepath.IsLocal(clean) {
		return "", fmt.Errorf("entry %q leaves the archive", name)
	}
	return filepath.Join(u.dir, filepath.FromSlash(clean)), nil
}

func (u *unpacker) write(dst string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, maxArchiveBytes-u.bytes+1))
	u.bytes += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && u.bytes > maxArchiveBytes {
		err = fmt.Errorf("more than %d bytes unpacked", int64(maxArchiveBytes))
	}
	return err
}

func (u *unpacker) zip(data []byte) error {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	for _, f := range z.File {
		dst, err := u.target(f.Name)
		if err != nil {
			return err
		}
		if dst == "" {
			continue
		}
		if f.FileInfo().IsDir() {
			if err := os.MkdirAll(dst, 0o700); err != nil {
				return err
			}
			continue
		}
		if !f.Mode().IsRegular() {
			continue // a link: Python writes its target's name; nothing is read from it here
		}
		r, err := f.Open()
		if err != nil {
			return err
		}
		err = u.write(dst, r)
		r.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

func (u *unpacker) tar(r io.Reader) error {
	t := tar.NewReader(r)
	for {
		h, err := t.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		dst, err := u.target(h.Name)
		if err != nil {
			return err
		}
		if dst == "" {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(dst, 0o700); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := u.write(dst, t); err != nil {
				return err
			}
		}
	}
}

// compareZipFiles is compare_zip_files: the same member names, each member
// byte for byte the same, PDFs instead with texts at least 95% alike
// (difflib's ratio).
func compareZipFiles(ctx context.Context, c Call) (Score, error) {
	a, ok := c.Result.(string)
	if !ok || a == "" {
		return Score{Note: "no archive"}, nil
	}
	b, ok := c.Expected.(string)
	if !ok {
		return Score{}, fmt.Errorf("expected: want a zip path, got %s", PyType(c.Expected))
	}
	za, err := openZip(a)
	if err != nil {
		return Score{}, err
	}
	zb, err := openZip(b)
	if err != nil {
		return Score{}, err
	}
	names := func(z *zip.Reader) []string {
		var out []string
		for _, f := range z.File {
			out = append(out, f.Name)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	na, nb := names(za), names(zb)
	if !slices.Equal(na, nb) {
		return Score{Note: fmt.Sprintf("members %s, expected %s", show(na), show(nb))}, nil
	}
	for _, n := range na {
		x, err := zipPart(za, n)
		if err != nil {
			return Score{}, err
		}
		y, err := zipPart(zb, n)
		if err != nil {
			return Score{}, err
		}
		if strings.HasSuffix(strings.ToLower(n), ".pdf") {
			same, err := pdfContentsAlike(ctx, x, y)
			if err != nil {
				return Score{}, err
			}
			if !same {
				return Score{Note: n + ": the PDFs' texts differ"}, nil
			}
			continue
		}
		if !bytes.Equal(x, y) {
			return Score{Note: n + " differs"}, nil
		}
	}
	return Score{Value: 1}, nil
}

func openZip(p string) (*zip.Reader, error) {
	data, err := smallfile.Read(p, maxDocFile)
	if err != nil {
		return nil, err
	}
	return zip.NewReader(bytes.NewReader(data), int64(len(data)))
}

// pdfContentsAlike is compare_pdf_content(a, b, 0.95).
func pdfContentsAlike(ctx context.Context, a, b []byte) (bool, error) {
	dir, err := os.MkdirTemp("", "pdfcmp")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	pa, pb := filepath.Join(dir, "a.pdf"), filepath.Join(dir, "b.pdf")
	if err := os.WriteFile(pa, a, 0o600); err != nil {
		return false, err
	}
	if err := os.WriteFile(pb, b, 0o600); err != nil {
		return false, err
	}
	return withPDFs(ctx, func(ctx context.Context, r *pdfReader) (bool, error) {
		ta, err := r.pageTexts(ctx, pa)
		if err != nil {
			return false, err
		}
		tb, err := r.pageTexts(ctx, pb)
		if err != nil {
			return false, err
		}
		return seqRatio([]rune(strings.Join(ta, "")), []rune(strings.Join(tb, ""))) >= 0.95, nil
	})
}
