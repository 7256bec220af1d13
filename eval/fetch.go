//go:build linux

package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"deskpilot/eval/checks"
	"deskpilot/internal/wait"
)

// Inputs is the cache of files a suite's tasks download (OSWorld's download
// steps, cloud_file getters, update_browse_history's database): a folder with,
// per URL, the file (<key>) and what is known of it (<key>.json: the URL, its
// size and SHA-256). `deskpilot eval fetch` fills it once; a cluster fills it
// on a shared volume and every pod reads it.
//
// An Inputs is safe for concurrent use: tasks running at once that need the
// same URL download it once.
type Inputs struct {
	// Dir is the cache folder; it is created when missing.
	Dir string
	// Offline means never download: a URL not in Dir is a *NotCachedError.
	// `deskpilot eval --cache DIR` sets it.
	Offline bool
	// Client downloads; nil means a client with no overall timeout (a
	// download is bounded by its ctx) that follows redirects.
	Client *http.Client
	// Mirrors are other places to fetch inputs from, tried in order: a URL
	// starting with a mirror's From is downloaded from its To with the rest of
	// the URL appended (a Hugging Face mirror, a local server with copies).
	// The cache still keys and records the input by the task's URL, with the
	// URL it came from as the record's source. Only fetching uses them.
	Mirrors []Mirror
	// Progress, when set, is told how a download goes: bytes so far and the
	// total (-1 when the server does not say). Called from the downloading
	// goroutine.
	Progress func(url string, done, total int64)

	mu    sync.Mutex
	locks map[string]*sync.Mutex
}

// Download limits.
const (
	fetchTries = 3               // attempts per URL, as OSWorld's _download_setup
	fetchPause = 2 * time.Second // between attempts
	maxInput   = int64(20 << 30) // bytes of one input
)

// Mirror is a prefix of inputs' URLs and where else they are served
// (Inputs.Mirrors).
type Mirror struct{ From, To string }

// ParseMirror reads FROM=TO, two absolute http(s) URLs.
func ParseMirror(s string) (Mirror, error) {
	from, to, ok := strings.Cut(s, "=")
	for _, u := range []string{from, to} {
		p, err := neturl.Parse(u)
		if !ok || err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return Mirror{}, fmt.Errorf("mirror %q: want FROM=TO, two http(s) URLs (https://huggingface.co/=https://hf-mirror.com/)", s)
		}
	}
	return Mirror{From: from, To: to}, nil
}

// source is where url is downloaded from: through the first mirror whose From
// starts it, else url itself.
func (c *Inputs) source(url string) string {
	for _, m := range c.Mirrors {
		if rest, ok := strings.CutPrefix(url, m.From); ok {
			return m.To + rest
		}
	}
	return url
}

// NotCachedError is an input that is not in the cache and may not (Offline) or
// could not be downloaded.
type NotCachedError struct {
	URL string
	// Err is why the download failed; nil when offline.
	Err error
}

func (e *NotCachedError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("not cached: %s (download failed: %v)", e.URL, e.Err)
	}
	return "not cached: " + e.URL
}

// Unwrap gives checks.ErrNotCached, which getters report.
func (e *NotCachedError) Unwrap() []error { return []error{checks.ErrNotCached, e.Err} }

// entry is <key>.json.
type entry struct {
	URL    string `json:"url"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Fetched is when the download finished (RFC 3339).
	Fetched string `json:"fetched"`
	// Source is the URL it was downloaded from when that was a mirror's
	// (Inputs.Mirrors); absent when it was URL itself.
	Source string `json:"source,omitempty"`
}

// DefaultInputsDir is where inputs are cached when no folder is given: the
// user's cache folder (XDG_CACHE_HOME, else ~/.cache)/deskpilot/inputs.
func DefaultInputsDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("eval: no cache folder: %w", err)
	}
	return filepath.Join(d, "deskpilot", "inputs"), nil
}

// key is the file name of url's entry: the hex SHA-256 of the URL.
func key(url string) string {
	h := sha256.Sum256([]byte(url))
	return hex.EncodeToString(h[:])
}

// Cached reports whether url is in the cache (its file and record agree in size).
func (c *Inputs) Cached(url string) bool {
	_, err := c.lookup(url)
	return err == nil
}

// lookup returns url's record and file when both are there and agree in size.
func (c *Inputs) lookup(url string) (string, error) {
	p := filepath.Join(c.Dir, key(url))
	data, err := os.ReadFile(p + ".json")
	if err != nil {
		return "", err
	}
	var e entry
	if err := json.Unmarshal(data, &e); err != nil || e.URL != url {
		return "", fmt.Errorf("cache record %s.json is not for %s", key(url), url)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.Size() != e.Size {
		return "", fmt.Errorf("cached %s has %d bytes, its record says %d", url, fi.Size(), e.Size)
	}
	return p, nil
}

// Get returns the path of url's cached file, downloading it first unless
// Offline. A URL that is not cached and cannot be downloaded is a
// *NotCachedError.
func (c *Inputs) Get(ctx context.Context, url string) (string, error) {
	if p, err := c.lookup(url); err == nil {
		return p, nil
	}
	if c.Offline {
		return "", &NotCachedError{URL: url}
	}
	if err := c.Fetch(ctx, url); err != nil {
		var nc *NotCachedError
		if errors.As(err, &nc) || ctx.Err() != nil {
			return "", err
		}
		return "", &NotCachedError{URL: url, Err: err}
	}
	return c.lookup(url)
}

// Verify checks url's cached file against its recorded SHA-256.
func (c *Inputs) Verify(url string) error {
	p, err := c.lookup(url)
	if err != nil {
		return err
	}
	data, _ := os.ReadFile(p + ".json")
	var e entry
	_ = json.Unmarshal(data, &e)
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != e.SHA256 {
		return fmt.Errorf("cached %s: SHA-256 %s, recorded %s", url, got, e.SHA256)
	}
	return nil
}

// Fetch downloads url into the cache unless it is there already, resuming a
// download an earlier Fetch left partial (<key>.part) with an HTTP range
// request, and trying fetchTries times. The file is recorded with its size and
// SHA-256 only when it arrived whole.
func (c *Inputs) Fetch(ctx context.Context, url string) error {
	l := c.lock(url)
	l.Lock()
	defer l.Unlock()
	if _, err := c.lookup(url); err == nil {
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("eval: cache: %w", err)
	}
	var err error
	for try := 0; try < fetchTries; try++ {
		if try > 0 {
			if werr := wait.Sleep(ctx, fetchPause); werr != nil {
				return werr
			}
		}
		var final bool
		if final, err = c.download(ctx, url); err == nil || final || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		if src := c.source(url); src != url {
			return fmt.Errorf("%s (from the mirror %s): %w", url, src, err)
		}
		return fmt.Errorf("%s: %w", url, err)
	}
	return nil
}

// download makes one attempt; final says a retry cannot help (a 4xx answer).
func (c *Inputs) download(ctx context.Context, url string) (final bool, err error) {
	p := filepath.Join(c.Dir, key(url))
	part := p + ".part"
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return true, err
	}
	defer f.Close()
	have, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return true, err
	}
	src := c.source(url)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return true, err
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	total := resp.ContentLength
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		if total >= 0 {
			total += have
		}
	case resp.StatusCode == http.StatusOK:
		if err := f.Truncate(0); err != nil {
			return true, err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return true, err
		}
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		_ = f.Truncate(0) // the partial file is no prefix of it: start again
		return false, fmt.Errorf("HTTP %s for a resumed download", resp.Status)
	default:
		return resp.StatusCode >= 400 && resp.StatusCode < 500 && resp.StatusCode != http.StatusTooManyRequests,
			fmt.Errorf("HTTP %s", resp.Status)
	}
	pr := &progressWriter{url: url, done: have, total: total, report: c.Progress}
	n, err := io.Copy(io.MultiWriter(f, pr), io.LimitReader(resp.Body, maxInput-have+1))
	if err != nil {
		return false, err
	}
	if have+n > maxInput {
		return true, fmt.Errorf("larger than %d bytes", maxInput)
	}
	if total >= 0 && have+n != total {
		return false, fmt.Errorf("cut after %d of %d bytes", have+n, total)
	}
	if err := f.Sync(); err != nil {
		return false, err
	}
	sum, err := hashFile(f)
	if err != nil {
		return false, err
	}
	if err := os.Rename(part, p); err != nil {
		return true, err
	}
	e := entry{URL: url, Size: have + n, SHA256: sum, Fetched: time.Now().UTC().Format(time.RFC3339)}
	if src != url {
		e.Source = src
	}
	return true, writeJSON(p+".json", e)
}

func hashFile(f *os.File) (string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	var h hash.Hash = sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// lock returns url's download lock.
func (c *Inputs) lock(url string) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.locks == nil {
		c.locks = map[string]*sync.Mutex{}
	}
	l, ok := c.locks[url]
	if !ok {
		l = &sync.Mutex{}
		c.locks[url] = l
	}
	return l
}

// progressWriter counts bytes and reports them at most every 100 ms.
type progressWriter struct {
	url         string
	done, total int64
	report      func(string, int64, int64)
	last        time.Time
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if p.report != nil && (time.Since(p.last) > 100*time.Millisecond || p.done == p.total) {
		p.last = time.Now()
		p.report(p.url, p.done, p.total)
	}
	return len(b), nil
}

// copyInput copies a cached input to dst (its folders made), checking on the
// way that its content still has the SHA-256 recorded when it was fetched.
func (c *Inputs) copyInput(url, src, dst string) error {
	data, err := os.ReadFile(src + ".json")
	if err != nil {
		return err
	}
	var e entry
	if err := json.Unmarshal(data, &e); err != nil {
		return fmt.Errorf("cache record of %s: %w", url, err)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != e.SHA256 {
		_ = os.Remove(dst)
		return fmt.Errorf("cached %s is damaged (SHA-256 %s, fetched as %s): run deskpilot eval fetch again", url, got, e.SHA256)
	}
	return nil
}

// forget removes url's finished entry (a damaged one is then fetched again);
// a partial download stays, to be resumed.
func (c *Inputs) forget(url string) {
	p := filepath.Join(c.Dir, key(url))
	_ = os.Remove(p + ".json")
	_ = os.Remove(p)
}
