package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// snapshot is the closest archived copy the availability API reports.
type snapshot struct {
	Available bool   `json:"available"`
	URL       string `json:"url"`
	Timestamp string `json:"timestamp"` // YYYYMMDDhhmmss
	Status    string `json:"status"`
}

// Archived finds the Wayback Machine snapshot of rawURL closest to date
// ("YYYYMMDD"; when none is near it, any snapshot) and visits it. The answer
// starts with a line naming the snapshot's date, then the page header and
// first viewport. No snapshot at all is a plain message, not an error.
func (b *Browser) Archived(ctx context.Context, rawURL, date string) (string, error) {
	target := strings.TrimSpace(rawURL)
	if target == "" {
		return "", errors.New("browser: archived_url needs the URL of the page to look up")
	}
	date = strings.TrimSpace(date)
	if _, err := time.Parse("20060102", date); err != nil {
		return "", fmt.Errorf("browser: archived_url date %q must be YYYYMMDD, e.g. \"20200131\"", date)
	}
	snap, err := b.closest(ctx, target, date)
	if err == nil && snap == nil {
		snap, err = b.closest(ctx, target, "")
	}
	if err != nil {
		return "", fmt.Errorf("browser: wayback: %w", err)
	}
	if snap == nil {
		return fmt.Sprintf("The Wayback Machine has no archived copy of %s.", target), nil
	}
	u, err := url.Parse(snap.URL)
	if err == nil {
		err = checkScheme(u)
	}
	if err != nil {
		return "", fmt.Errorf("browser: wayback gave an unusable snapshot address %q: %w", snap.URL, err)
	}
	p, err := b.fetchPage(ctx, u)
	if err != nil {
		return "", fmt.Errorf("browser: visit snapshot %s: %w", u.Redacted(), err)
	}
	taken := snap.Timestamp
	if len(taken) > 8 {
		taken = taken[:8]
	}
	return fmt.Sprintf("Web archive for url %s, snapshot taken at date %s:\n", target, taken) + b.show(p), nil
}

// closest asks the availability API for the snapshot nearest timestamp ("" =
// the newest); nil means none.
func (b *Browser) closest(ctx context.Context, target, timestamp string) (*snapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, b.opts.Timeout)
	defer cancel()
	v := url.Values{"url": {target}}
	if timestamp != "" {
		v.Set("timestamp", timestamp)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.opts.WaybackURL+"?"+v.Encode(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", b.opts.UserAgent)
	var ans struct {
		ArchivedSnapshots struct {
			Closest *snapshot `json:"closest"`
		} `json:"archived_snapshots"`
	}
	if err := getJSON(b.api, req, "availability API", &ans); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("timed out after %s: %w", b.opts.Timeout, context.DeadlineExceeded)
		}
		return nil, err
	}
	s := ans.ArchivedSnapshots.Closest
	if s == nil || !s.Available || s.URL == "" {
		return nil, nil
	}
	return s, nil
}
