package checks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	files, err := suiteFiles(c.Env.CacheDir(), test)
	if err != nil {
		return Score{}, fmt.Errorf("check_python_file_by_test_suite: %w", err)
	}
	folder, inBox, err := boxFolder(c.Env, ".osworld-test-suite-", files)
	if err != nil {
		return Score{}, fmt.Errorf("check_python_file_by_test_suite: %w", err)
	}
	defer os.RemoveAll(folder)
	res, err := c.Env.Exec(ctx, []any{"python3", "-c", pySuiteRunner, inBox, inBox + "/" + filepath.Base(test), name}, false)
	if err != nil {
		return Score{}, fmt.Errorf("check_python_file_by_test_suite: %w", err)
	}
	ok, err = boxVerdict(res)
	if err != nil {
		return Score{}, fmt.Errorf("check_python_file_by_test_suite: the test file failed (%w)", err)
	}
	if ok {
		return Score{Value: 1}, nil
	}
	return Score{}, nil
}

// suiteFiles lists what check_python_file_by_test_suite copies next to the
// test: the regular files of cache (the task's cache folder, where the
// getters put what they fetched), then test itself.
func suiteFiles(cache, test string) ([][2]string, error) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return nil, err
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
	return files, nil
}
