package checks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"deskpilot/internal/smallfile"
)

// Bounds of the files a check copies into the task's box
// (check_python_file_by_test_suite, compare_epub).
const (
	maxSuiteFiles = 256       // files of the task's cache copied next to the test
	maxSuiteBytes = 256 << 20 // their total size
)

// pySuiteRunner is the program that loads the test file as OSWorld's
// check_python_file_by_test_suite does (a module named dynamic_module, put
// in sys.modules, then executed) and calls its test function: a true result
// is 1, a false one or an Exception the function raises 0. An error loading
// the file, a missing function or anything that ends the program other than
// an Exception (SystemExit) propagates, as in OSWorld, and is the check's
// error. The verdict is the last line the program writes.
const pySuiteRunner = `import importlib.util, os, sys
folder, test, name = sys.argv[1], sys.argv[2], sys.argv[3]
os.chdir(folder)
sys.path.insert(0, folder)
spec = importlib.util.spec_from_file_location("dynamic_module", test)
module = importlib.util.module_from_spec(spec)
sys.modules["dynamic_module"] = module
spec.loader.exec_module(module)
fn = getattr(module, name)
try:
    ok = True if fn() else False
except Exception:
    ok = False
sys.stdout.flush()
os.write(1, b"\n1\n" if ok else b"\n0\n")
`

// checkPythonFileByTestSuite is OSWorld's check_python_file_by_test_suite:
// it runs the test file's function (test_function_name, default "test"). OSWorld
// runs it in its own Python, next to the files its getters copied into the
// task's cache folder; here it runs in the task's box, never in the
// evaluator: the test file and the cache folder's files are copied into a new
// folder of the task's home, which is the program's working folder and first
// on its sys.path, and removed afterwards. The files the result names are
// among them (OSWorld's function does not open them itself).
func checkPythonFileByTestSuite(ctx context.Context, c Call) (Score, error) {
	test, ok, err := pathArg(c.Expected, "check_python_file_by_test_suite")
	if err != nil {
		return Score{}, err
	}
	if !ok {
		return Score{}, errors.New("check_python_file_by_test_suite: no test file")
	}
	name := "test"
	if v, ok := c.Options["test_function_name"]; ok {
		if name, ok = v.(string); !ok {
			return Score{}, fmt.Errorf("check_python_file_by_test_suite: test_function_name is %s, not a string", PyType(v))
		}
	}
	folder, inBox, err := boxFolder(c.Env, ".osworld-test-suite-")
	if err != nil {
		return Score{}, fmt.Errorf("check_python_file_by_test_suite: %w", err)
	}
	defer os.RemoveAll(folder)
	if err := copySuiteFiles(folder, c.Env.CacheDir(), test); err != nil {
		return Score{}, fmt.Errorf("check_python_file_by_test_suite: %w", err)
	}
	res, err := c.Env.Exec(ctx, []any{"python3", "-c", pySuiteRunner, inBox, inBox + "/" + filepath.Base(test), name}, false)
	if err != nil {
		return Score{}, fmt.Errorf("check_python_file_by_test_suite: %w", err)
	}
	lines := strings.Split(strings.TrimRight(res.Stdout, "\n"), "\n")
	verdict := lines[len(lines)-1]
	if res.Code != 0 || (verdict != "0" && verdict != "1") {
		return Score{}, fmt.Errorf("check_python_file_by_test_suite: the test file failed (exit %d): %s", res.Code, lastLine(res.Stderr))
	}
	if verdict == "1" {
		return Score{Value: 1}, nil
	}
	return Score{}, nil
}

// boxFolder makes a new folder, named prefix and a random part, in the
// task's home, for a check that runs a program in the task's box on files
// it copies there: its path here and in the box. The caller removes it.
func boxFolder(env Env, prefix string) (folder, inBox string, err error) {
	folder, err = os.MkdirTemp(env.Path("~"), prefix)
	if err != nil {
		return "", "", err
	}
	return folder, "/home/user/" + filepath.Base(folder), nil
}

// copyInto copies files (pairs of a source and the name of its copy, later
// ones replacing earlier ones of the same name) into folder, within
// maxSuiteBytes in all. Writes go through an os.Root of folder: a program of
// the box that swaps the folder's entries for links cannot send them
// elsewhere.
func copyInto(folder string, files [][2]string) error {
	if len(files) > maxSuiteFiles {
		return fmt.Errorf("%d files to copy, more than %d", len(files), maxSuiteFiles)
	}
	root, err := os.OpenRoot(folder)
	if err != nil {
		return err
	}
	defer root.Close()
	var total int64
	for _, f := range files {
		data, err := smallfile.Read(f[0], maxSuiteBytes-total)
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

// copySuiteFiles copies the regular files of cache (the task's cache folder,
// where the getters put what they fetched), and test, into folder.
func copySuiteFiles(folder, cache, test string) error {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return err
	}
	var files [][2]string
	for _, e := range entries {
		if e.Type().IsRegular() {
			files = append(files, [2]string{filepath.Join(cache, e.Name()), e.Name()})
		}
	}
	if filepath.Dir(test) != filepath.Clean(cache) {
		files = append(files, [2]string{test, filepath.Base(test)})
	}
	return copyInto(folder, files)
}

// lastLine is the last non-empty line of s, at most 300 bytes of it.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := lines[len(lines)-1]
	if len(l) > 300 {
		l = l[:300] + "…"
	}
	return l
}
