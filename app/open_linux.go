//go:build linux

package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"time"
)

// openWait is how long the opener may take to fail. xdg-open returns at once
// when it starts a browser that was not running, or runs until the browser
// exits; a failure (no program for the file type) comes within a moment.
const openWait = 3 * time.Second

// openFile opens path with the desktop's opener, xdg-open. Fyne's OpenURL
// starts it without waiting, so neither a missing xdg-open nor one that finds
// no browser would be noticed; here both are errors that say so.
func openFile(path string) error {
	bin, err := exec.LookPath("xdg-open")
	if err != nil {
		return fmt.Errorf("xdg-open: %w", exec.ErrNotFound)
	}
	var out strings.Builder
	cmd := exec.Command(bin, (&url.URL{Scheme: "file", Path: path}).String())
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("xdg-open: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ctx, cancel := context.WithTimeout(context.Background(), openWait)
	defer cancel()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			msg := strings.TrimSpace(out.String())
			if i := strings.IndexByte(msg, '\n'); i >= 0 {
				msg = msg[:i]
			}
			return fmt.Errorf("xdg-open found no program to open it (exit status %d) %s", exit.ExitCode(), msg)
		}
		return err
	case <-ctx.Done():
		return nil // still running: a browser is showing it
	}
}
