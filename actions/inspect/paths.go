package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// location is a checked path: a file or folder on disk, or a member of a zip
// archive on disk.
type location struct {
	real   string // symlinks resolved; the archive for a member
	member string // slash-separated path inside the archive; "" for a file
	dir    bool
}

// expand turns "~/x" into home/x and a relative path into one under the first
// root (or home).
func (in *Inspector) expand(p string) string {
	p = strings.TrimSpace(p)
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(in.opts.Home, p[1:])
	}
	if !filepath.IsAbs(p) {
		base := in.opts.Home
		if len(in.roots) > 0 {
			base = in.roots[0]
		}
		return filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// realPath is the absolute path with every symlink resolved.
func realPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	return p == dir || dir == string(filepath.Separator) || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// allowed checks a resolved path against the deny lists and the roots.
func (in *Inspector) allowed(real, asked string) error {
	for _, d := range in.own {
		if within(real, d) {
			return fmt.Errorf("inspect: %s is %w (%s); the inspector never reads it", asked, ErrDenied, d)
		}
	}
	if !in.allowedByUser(real) {
		for _, d := range in.deny {
			if within(real, d) {
				return fmt.Errorf("inspect: %s is %w (%s, which holds credentials); the inspector does not read it unless the person allows it in the settings", asked, ErrDenied, d)
			}
		}
		if name, ok := deniedName(real); ok {
			return fmt.Errorf("inspect: %s is %w (%s files hold credentials or history); the inspector does not read it unless the person allows it in the settings", asked, ErrDenied, name)
		}
	}
	for _, r := range in.roots {
		if within(real, r) {
			return nil
		}
	}
	roots := strings.Join(in.roots, ", ")
	if roots == "" {
		roots = "none are configured"
	}
	return fmt.Errorf("inspect: %s is %w (allowed: %s); the person can let it read more folders with inspect_folders in the config or DESKPILOT_INSPECT_FOLDERS", asked, ErrOutsideRoots, roots)
}

// allowedByUser reports a path the person exempted from the credential list.
func (in *Inspector) allowedByUser(real string) bool {
	for _, a := range in.allow {
		if within(real, a) {
			return true
		}
	}
	return false
}

// checkKind refuses anything but a regular file or a folder: reading a named
// pipe, a device or a socket would block or never end.
func checkKind(st fs.FileInfo, asked string) error {
	if st.IsDir() || st.Mode().IsRegular() {
		return nil
	}
	kind := "special file"
	switch m := st.Mode(); {
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		kind = "device"
	}
	return fmt.Errorf("inspect: %s is a %s, %w; the inspector reads only regular files and folders", asked, kind, ErrNotRegular)
}

// locate resolves and checks path. A path that does not exist but runs
// through a zip file names a member of that archive.
func (in *Inspector) locate(path string) (location, error) {
	if strings.TrimSpace(path) == "" {
		return location{}, errors.New("inspect: inspect_file needs the path of a file")
	}
	p := in.expand(path)
	if real, err := realPath(p); err == nil {
		if err := in.allowed(real, path); err != nil {
			return location{}, err
		}
		st, err := os.Stat(real)
		if err != nil {
			return location{}, fmt.Errorf("inspect: %w", err)
		}
		if err := checkKind(st, path); err != nil {
			return location{}, err
		}
		return location{real: real, dir: st.IsDir()}, nil
	}
	for q := filepath.Dir(p); q != filepath.Dir(q); q = filepath.Dir(q) {
		real, err := realPath(q)
		if err != nil {
			continue
		}
		if err := in.allowed(real, path); err != nil {
			return location{}, err
		}
		st, err := os.Stat(real)
		if err != nil || st.IsDir() {
			break
		}
		if err := checkKind(st, path); err != nil {
			return location{}, err
		}
		rel, _ := filepath.Rel(q, p)
		if !isZipFile(real) {
			return location{}, fmt.Errorf("inspect: no such file: %s (%s is a file, not a zip archive)", path, q)
		}
		return location{real: real, member: filepath.ToSlash(rel)}, nil
	}
	return location{}, fmt.Errorf("inspect: no such file: %s", path)
}

// isZipFile reports whether the file starts with a zip signature.
func isZipFile(p string) bool {
	f, err := openNoBlock(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	head := make([]byte, 4)
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == "PK\x03\x04"
}

// read returns the bytes of a located file or archive member, refusing
// anything larger than MaxFileBytes.
func (in *Inspector) read(ctx context.Context, loc location) (string, []byte, error) {
	data, err := readAside(ctx, loc.real, in.opts.MaxFileBytes, in.open)
	if err != nil {
		return "", nil, err
	}
	if loc.member == "" {
		return filepath.Base(loc.real), data, nil
	}
	m, err := zipMember(data, loc.member, in.opts.MaxFileBytes, 0)
	if err != nil {
		return "", nil, fmt.Errorf("inspect: %s: %w", filepath.Base(loc.real), err)
	}
	return m.name, m.data, nil
}

// TooLargeError reports a file larger than Options.MaxFileBytes.
type TooLargeError struct {
	Name      string
	Size, Max int64
}

// Error implements error.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("inspect: %s is %s, larger than the %s the inspector reads", e.Name, humanBytes(e.Size), humanBytes(e.Max))
}

// readAside reads a whole regular file with read of at most max bytes. The open and
// the read run aside and are abandoned when ctx ends, so a file on a hung
// network mount cannot hold the agent; the file is opened without blocking
// (a named pipe swapped in after the check cannot hang the open) and checked
// again on the open descriptor.
func readAside(ctx context.Context, p string, max int64, read func(string, int64) ([]byte, error)) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := read(p, max)
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("inspect: read %s: %w", filepath.Base(p), ctx.Err())
	}
}

// readCapped reads a whole regular file of at most max bytes.
func readCapped(p string, max int64) ([]byte, error) {
	f, err := openNoBlock(p)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	if err := checkKind(st, filepath.Base(p)); err != nil || st.IsDir() {
		if err == nil {
			err = fmt.Errorf("inspect: %s is a folder, %w", filepath.Base(p), ErrNotRegular)
		}
		return nil, err
	}
	if st.Size() > max {
		return nil, &TooLargeError{Name: filepath.Base(p), Size: st.Size(), Max: max}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("inspect: read %s: %w", p, err)
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Name: filepath.Base(p), Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// maxListing bounds the entries listed for a folder or an archive.
const maxListing = 1000

// listDir renders a folder's entries as a markdown table.
func listDir(p string) (string, error) {
	entries, err := os.ReadDir(p)
	if err != nil {
		return "", err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	rows := [][]string{{"Name", "Size"}}
	for i, e := range entries {
		if i == maxListing {
			rows = append(rows, []string{fmt.Sprintf("… %d more", len(entries)-maxListing), ""})
			break
		}
		name, size := e.Name(), ""
		if e.IsDir() {
			name += "/"
		} else if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			size = humanBytes(info.Size())
		} else if e.Type()&fs.ModeSymlink != 0 {
			name += " (link)"
		}
		rows = append(rows, []string{name, size})
	}
	if len(entries) == 0 {
		return fmt.Sprintf("# Folder: %s\n\nThe folder is empty.", p), nil
	}
	return fmt.Sprintf("# Folder: %s\n\n%d entries:\n\n%s", p, len(entries), markdownTable(rows)), nil
}
