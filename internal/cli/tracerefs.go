package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"deskpilot/agent/trace"
)

// listingFile, in the trace folder, holds the last `traces list` a person saw: the
// numbers in it keep meaning the runs they named there however many runs are added.
const listingFile = ".last-listing.json"

// savedListing is the content of listingFile: the folder names, in listing order.
type savedListing struct {
	Folders []string `json:"folders"`
}

// saveListing records the listing just printed, so `replay N` means row N of it.
func saveListing(root string, sums []trace.Summary) error {
	var l savedListing
	for _, s := range sums {
		l.Folders = append(l.Folders, filepath.Base(s.Dir))
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	tmp := filepath.Join(root, listingFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(root, listingFile))
}

// resolveTraceRef finds the trace folder arg names under root: a folder, a run id
// (or a unique prefix of at least 4 of its digits), a folder name under root, or a
// row number of the last `traces list`. It refuses a reference that could mean more
// than one run, and a number when no listing was printed or its run is gone.
func resolveTraceRef(root, arg string) (string, error) {
	if dirExists(arg) {
		return arg, nil
	}
	if n, err := strconv.Atoi(arg); err == nil {
		// A run id can be all digits ("127566"): a number is a row of the
		// listing, or the id it is the start of, and refused when it is both.
		row, rowErr := listedTrace(root, arg, n)
		hits, err := idHits(root, arg)
		switch {
		case err != nil:
			return "", err
		case len(hits) == 0 || rowErr == nil && len(hits) == 1 && hits[0].Dir == row:
			return row, rowErr
		case rowErr == nil:
			return "", fmt.Errorf("trace %s is ambiguous: it is row %d of the last listing (run %s) and the start of run id %s; give the whole id",
				arg, n, trace.RunID(row), hits[0].ID)
		}
		return oneHit(root, arg, hits)
	}
	if arg != filepath.Base(arg) {
		return "", fmt.Errorf("trace %s: no such folder", arg)
	}
	if dirExists(filepath.Join(root, arg)) {
		return filepath.Join(root, arg), nil
	}
	hits, err := idHits(root, arg)
	if err != nil {
		return "", err
	}
	return oneHit(root, arg, hits)
}

// idHits are the runs under root whose id starts with arg (4 characters or
// more).
func idHits(root, arg string) ([]trace.Summary, error) {
	if len(arg) < 4 {
		return nil, nil
	}
	sums, err := trace.List(root)
	if err != nil {
		return nil, err
	}
	var hits []trace.Summary
	for _, s := range sums {
		if strings.HasPrefix(s.ID, strings.ToLower(arg)) {
			hits = append(hits, s)
		}
	}
	return hits, nil
}

// oneHit is the run of hits when there is exactly one, else why not.
func oneHit(root, arg string, hits []trace.Summary) (string, error) {
	switch len(hits) {
	case 1:
		return hits[0].Dir, nil
	case 0:
		return "", fmt.Errorf("trace %s: no run has that id or folder in %s (`deskpilot traces list` shows them)", arg, root)
	}
	var names []string
	for _, h := range hits {
		names = append(names, h.ID+" "+filepath.Base(h.Dir))
	}
	return "", fmt.Errorf("trace %s is ambiguous: it could be %s; give more of the id", arg, strings.Join(names, ", "))
}

// listedTrace is row n of the last listing printed.
func listedTrace(root, arg string, n int) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, listingFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("trace %s: a number means a row of `deskpilot traces list`, and no listing was printed for %s yet; run it, or give the run's id", arg, root)
	}
	if err != nil {
		return "", err
	}
	var l savedListing
	if err := json.Unmarshal(b, &l); err != nil {
		return "", fmt.Errorf("trace %s: the last listing (%s) cannot be read: %v; run `deskpilot traces list` again", arg, listingFile, err)
	}
	if n < 1 || n > len(l.Folders) {
		return "", fmt.Errorf("trace %s: the last `deskpilot traces list` showed %d runs; give a row number it showed, or the run's id", arg, len(l.Folders))
	}
	name := l.Folders[n-1]
	dir := filepath.Join(root, name)
	if !dirExists(dir) || name != filepath.Base(name) {
		return "", fmt.Errorf("trace %s: run %s of the last listing (%s) is gone; run `deskpilot traces list` again", arg, trace.RunID(name), name)
	}
	return dir, nil
}
