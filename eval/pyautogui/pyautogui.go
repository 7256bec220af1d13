// Package pyautogui holds the pyautogui-compatible Python module the programs
// of an eval task import (OSWorld's setup steps call pyautogui): a module that
// drives the task's display through XTEST with nothing but python3, and raises
// NotImplementedError for any call it does not have.
package pyautogui

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// Source is the module, pyautogui.py.
//
//go:embed pyautogui.py
var Source []byte

// Write puts the module in dir (made if missing) as pyautogui.py, for a
// PYTHONPATH that names dir.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("pyautogui: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pyautogui.py"), Source, 0o644); err != nil {
		return fmt.Errorf("pyautogui: %w", err)
	}
	return nil
}
