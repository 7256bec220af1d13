package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"deskpilot/internal/smallfile"
)

// The checks that run a Python program in the task's box
// (check_python_file_by_test_suite, compare_epub, compare_videos) copy the
// files it reads into a new folder of the task's home, within these bounds,
// and remove the folder afterwards.
const (
	maxBoxFiles = 256       // files copied
	maxBoxBytes = 256 << 20 // their total size, and of a file the program writes
)

// boxFolder makes a new folder, named prefix and a random part, in the
// task's home and copies files into it (pairs of a source and the name of
// its copy, later ones replacing earlier ones of the same name): its path
// here and in the box. The caller removes it; after an error there is none.
func boxFolder(env Env, prefix string, files [][2]string) (folder, inBox string, err error) {
	if len(files) > maxBoxFiles {
		return "", "", fmt.Errorf("%d files to copy, more than %d", len(files), maxBoxFiles)
	}
	folder, err = os.MkdirTemp(env.Path("~"), prefix)
	if err != nil {
		return "", "", err
	}
	if err := copyFiles(folder, files); err != nil {
		os.RemoveAll(folder)
		return "", "", err
	}
	return folder, "/home/user/" + filepath.Base(folder), nil
}

// copyFiles copies files into folder within maxBoxBytes, through an os.Root
// of the folder: a program of the box that swaps the folder's entries for
// links cannot send the writes elsewhere.
func copyFiles(folder string, files [][2]string) error {
	root, err := os.OpenRoot(folder)
	if err != nil {
		return err
	}
	defer root.Close()
	var total int64
	for _, f := range files {
		data, err := smallfile.Read(f[0], maxBoxBytes-total)
		if err != nil {
			return err
		}
		total += int64(len(data))
		if err := root.WriteFile(f[1], data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// boxVerdict reads the verdict of a box program that writes "1" or "0" as
// its last line: anything else, or a non-zero exit, is an error with the
// last line the program wrote on stderr.
func boxVerdict(r ExecResult) (bool, error) {
	lines := strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n")
	verdict := lines[len(lines)-1]
	if r.Code != 0 || (verdict != "0" && verdict != "1") {
		return false, fmt.Errorf("exit %d: %s", r.Code, stderrLine(r.Stderr))
	}
	return verdict == "1", nil
}

// stderrLine is the last non-empty line of a program's stderr, cut short.
func stderrLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return cut(lines[len(lines)-1], 300)
}

// readBoxJSON decodes the JSON file name that a program of the box wrote
// into folder, read through an os.Root of folder (a link cannot lead out of
// it) and within maxBoxBytes.
func readBoxJSON(folder, name string, v any) error {
	root, err := os.OpenRoot(folder)
	if err != nil {
		return err
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return errors.New(name + " is not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBoxBytes+1))
	if err != nil {
		return err
	}
	if len(data) > maxBoxBytes {
		return fmt.Errorf("%s: more than %d bytes", name, maxBoxBytes)
	}
	return json.Unmarshal(data, v)
}
