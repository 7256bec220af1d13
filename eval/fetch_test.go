//go:build linux

package eval

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"deskpilot/eval/checks"
)

// inputServer serves files by path, honours Range requests, and can cut a
// response after half its bytes (the first time each path is asked for).
type inputServer struct {
	files   map[string]string
	cutOnce map[string]bool
	hits    atomic.Int64
	ranges  atomic.Int64
}

func (s *inputServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	body, ok := s.files[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	start := 0
	if rg := r.Header.Get("Range"); rg != "" {
		s.ranges.Add(1)
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
		if err != nil || n > len(body) {
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start = n
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", n, len(body)-1, len(body)))
		w.Header().Set("Content-Length", strconv.Itoa(len(body)-n))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	if s.cutOnce[r.URL.Path] && start == 0 {
		delete(s.cutOnce, r.URL.Path)
		_, _ = w.Write([]byte(body[:len(body)/2]))
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
		return
	}
	_, _ = w.Write([]byte(body[start:]))
}

func TestInputsFetch(t *testing.T) {
	srv := &inputServer{files: map[string]string{"/a.xlsx": strings.Repeat("A", 100_000), "/b.txt": "bee"}, cutOnce: map[string]bool{"/a.xlsx": true}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := t.TempDir()
	c := &Inputs{Dir: dir}
	ctx := t.Context()

	t.Run("resumed after a cut", func(t *testing.T) {
		p, err := c.Get(ctx, hs.URL+"/a.xlsx")
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		if string(data) != srv.files["/a.xlsx"] {
			t.Fatalf("cached %d bytes, want %d", len(data), len(srv.files["/a.xlsx"]))
		}
		if srv.ranges.Load() != 1 {
			t.Errorf("%d range requests, want 1 (the resume)", srv.ranges.Load())
		}
		if err := c.Verify(hs.URL + "/a.xlsx"); err != nil {
			t.Error(err)
		}
	})
	t.Run("cached once", func(t *testing.T) {
		before := srv.hits.Load()
		if _, err := c.Get(ctx, hs.URL+"/a.xlsx"); err != nil {
			t.Fatal(err)
		}
		if srv.hits.Load() != before {
			t.Error("a cached input was downloaded again")
		}
	})
	t.Run("offline", func(t *testing.T) {
		off := &Inputs{Dir: dir, Offline: true}
		if _, err := off.Get(ctx, hs.URL+"/a.xlsx"); err != nil {
			t.Errorf("offline cache lost a cached input: %v", err)
		}
		before := srv.hits.Load()
		_, err := off.Get(ctx, hs.URL+"/b.txt")
		var nc *NotCachedError
		if !errors.As(err, &nc) || !errors.Is(err, checks.ErrNotCached) || err.Error() != "not cached: "+hs.URL+"/b.txt" {
			t.Errorf("offline Get = %v, want not cached", err)
		}
		if srv.hits.Load() != before {
			t.Error("an offline cache downloaded")
		}
	})
	t.Run("missing URL", func(t *testing.T) {
		_, err := c.Get(ctx, hs.URL+"/nope")
		if err == nil || !strings.Contains(err.Error(), "404") || statusOf(err) != StatusNotCached {
			t.Errorf("Get of a 404 = %v (status %q)", err, statusOf(err))
		}
	})
	t.Run("damaged entry", func(t *testing.T) {
		u := hs.URL + "/b.txt"
		p, err := c.Get(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("BEE"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := c.Verify(u); err == nil {
			t.Error("Verify passed a damaged input")
		}
		dst := filepath.Join(t.TempDir(), "x", "b.txt")
		if err := c.copyInput(u, p, dst); err == nil || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("copyInput of a damaged input = %v", err)
		}
		if _, err := os.Stat(dst); err == nil {
			t.Error("a damaged input was left at its destination")
		}
	})
}

// TestFetchSuite fills a cache for a suite from a local server: every
// distinct URL once, one failure named, and a second run downloads nothing.
func TestFetchSuite(t *testing.T) {
	srv := &inputServer{files: map[string]string{"/one.txt": "1", "/two.txt": "2"}}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := t.TempDir()
	task := func(id, urls string) string {
		return `{"id": "` + id + `", "instruction": "x", "config": [{"type": "download", "parameters": {"files": [` + urls + `]}}],
			"evaluator": {"func": "compare_text_file", "result": {"type": "vm_file", "path": "~/one.txt", "dest": "one.txt"},
			"expected": {"type": "cloud_file", "path": "` + hs.URL + `/two.txt", "dest": "two.txt"}}}`
	}
	f := func(name string) string { return `{"url": "` + hs.URL + "/" + name + `", "path": "~/` + name + `"}` }
	for id, urls := range map[string]string{"a": f("one.txt"), "b": f("one.txt") + "," + f("gone.txt")} {
		if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(task(id, urls)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := &Inputs{Dir: t.TempDir()}
	var seen []string
	rep, err := FetchSuite(t.Context(), s, c, func(u string, err error) { seen = append(seen, u) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.URLs != 3 || rep.Fetched != 2 || rep.Cached != 0 || len(rep.Failed) != 1 || rep.Tasks != 2 || len(seen) != 3 {
		t.Fatalf("report %+v, seen %v", rep, seen)
	}
	if err := rep.Failed[hs.URL+"/gone.txt"]; err == nil || !strings.Contains(err.Error(), "gone.txt") {
		t.Errorf("failure of gone.txt = %v, want it named", err)
	}
	hits := srv.hits.Load()
	rep, _ = FetchSuite(context.Background(), s, c, nil)
	if rep.Cached != 2 || rep.Fetched != 0 || srv.hits.Load() != hits+3*0+1 {
		t.Errorf("second fetch: %+v, %d requests (want only the failing one again)", rep, srv.hits.Load()-hits)
	}
}

// TestInputsMirror: a URL under a mirror's prefix is fetched from the mirror
// and cached under the task's URL, with its source recorded; other URLs, and
// a bad mirror, as they are.
func TestInputsMirror(t *testing.T) {
	srv := &inputServer{files: map[string]string{"/copies/drive/a.xlsx": "sheet", "/b.txt": "b"}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	m, err := ParseMirror("https://drive.example.com/=" + ts.URL + "/copies/drive/")
	if err != nil {
		t.Fatal(err)
	}
	c := &Inputs{Dir: t.TempDir(), Mirrors: []Mirror{m}}
	task := "https://drive.example.com/a.xlsx"
	if err := c.Fetch(t.Context(), task); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, key(task)))
	if err != nil || string(data) != "sheet" {
		t.Fatalf("cached %q, %v; want the mirror's file", data, err)
	}
	rec, _ := os.ReadFile(filepath.Join(c.Dir, key(task)+".json"))
	if !strings.Contains(string(rec), `"url": "`+task+`"`) || !strings.Contains(string(rec), `"source": "`+ts.URL+`/copies/drive/a.xlsx"`) {
		t.Errorf("record %s: want the task's URL and the mirror's as source", rec)
	}
	off := &Inputs{Dir: c.Dir, Offline: true}
	if _, err := off.Get(t.Context(), task); err != nil {
		t.Errorf("offline, the task's URL: %v", err)
	}
	if err := c.Fetch(t.Context(), ts.URL+"/b.txt"); err != nil {
		t.Errorf("a URL under no mirror: %v", err)
	}
	if err := c.Fetch(t.Context(), "https://drive.example.com/missing"); err == nil || !strings.Contains(err.Error(), "from the mirror "+ts.URL+"/copies/drive/missing") || !strings.Contains(err.Error(), "404") {
		t.Errorf("a file the mirror lacks: %v", err)
	}
	for _, bad := range []string{"https://a.example/", "a=b", "ftp://a/=http://b/", "https://a/=/local"} {
		if _, err := ParseMirror(bad); err == nil {
			t.Errorf("ParseMirror(%q): no error", bad)
		}
	}
}
