package browser

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxNameLen bounds the length of a saved file's name (bytes).
const maxNameLen = 100

// download saves a non-HTML response to the downloads folder and shows the
// inspector's text of it.
func (b *Browser) download(ctx context.Context, r *response) (*page, error) {
	if r.truncated {
		return nil, fmt.Errorf("the file is larger than the %s download limit and was not saved", formatBytes(b.opts.MaxBytes))
	}
	dir, err := b.downloadDir()
	if err != nil {
		return nil, err
	}
	name := fileName(r)
	saved, err := saveUnique(dir, name, r.body)
	if err != nil {
		return nil, fmt.Errorf("save download: %w", err)
	}
	var text strings.Builder
	fmt.Fprintf(&text, "# Download complete\n\nSaved the file (%s, %s) to '%s'.", r.contentType, formatBytes(int64(len(r.body))), saved)
	switch {
	case b.opts.Inspect == nil:
		text.WriteString(" No file inspector is configured, so its content is not shown.")
	default:
		content, err := b.opts.Inspect(ctx, saved)
		if err != nil {
			fmt.Fprintf(&text, " It could not be read as text: %v", err)
		} else {
			text.WriteString("\n\n")
			text.WriteString(strings.TrimSpace(content))
		}
	}
	return newPage(r.url.String(), filepath.Base(saved), text.String(), b.opts.Viewport, true), nil
}

// downloadDir is Options.DownloadDir (created if missing) or a temporary
// directory made once per browser.
func (b *Browser) downloadDir() (string, error) {
	b.dlOnce.Do(func() {
		if b.dlDir == "" {
			b.dlDir, b.dlErr = os.MkdirTemp("", "deskpilot-downloads-")
			return
		}
		b.dlErr = os.MkdirAll(b.dlDir, 0o755)
	})
	if b.dlErr != nil {
		return "", fmt.Errorf("downloads folder: %w", b.dlErr)
	}
	return b.dlDir, nil
}

// fileName picks a safe file name for a response: the Content-Disposition
// name, else the last path segment, else "download", with an extension that
// matches the content type when it has none.
func fileName(r *response) string {
	var name string
	if _, params, err := mime.ParseMediaType(r.disposition); err == nil {
		name = path.Base(strings.ReplaceAll(params["filename"], "\\", "/"))
	}
	if name == "" {
		name = path.Base(r.url.Path)
	}
	name = sanitize(name)
	if strings.Trim(name, "._") == "" {
		name = "download"
	}
	if filepath.Ext(name) == "" {
		if exts, err := mime.ExtensionsByType(r.contentType); err == nil && len(exts) > 0 {
			name += preferredExt(r.contentType, exts)
		}
	}
	return name
}

// preferredExt picks the common extension for a media type.
func preferredExt(ct string, exts []string) string {
	common := map[string]string{
		"application/pdf": ".pdf", "image/jpeg": ".jpg", "text/csv": ".csv",
		"application/zip": ".zip", "application/json": ".json", "image/png": ".png",
	}
	if e, ok := common[ct]; ok {
		return e
	}
	return exts[0]
}

// sanitize keeps letters, digits, dot, dash and underscore; anything else
// becomes "_". Leading dots are dropped so the file is never hidden.
func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if len(s) > maxNameLen {
		ext := filepath.Ext(s)
		if len(ext) > 10 {
			ext = ""
		}
		s = s[:maxNameLen-len(ext)] + ext
	}
	return s
}

// saveUnique writes data to dir/name, or dir/stem__N.ext when that exists.
func saveUnique(dir, name string, data []byte) (string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		p := filepath.Join(dir, name)
		if i > 1 {
			p = filepath.Join(dir, fmt.Sprintf("%s__%d%s", stem, i, ext))
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return "", err
		}
		return p, f.Close()
	}
	return "", fmt.Errorf("too many files named %q in %s", name, dir)
}
