//go:build linux

package cli

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"deskpilot/agent/llm/llmtest"
	"deskpilot/eval"
)

// TestEvalOSWorldCachedInputs: a task that downloads its inputs reaches a
// verdict once they are cached. eval/suites/osworld/test_cached.json names
// such tasks of every domain of OSWorld that has them here (verbatim, their
// inputs on Google Drive). A local HTTP server serves a stand-in for each
// input: the task's own under stand-ins/<domain>/<id>/ in the suite (files the
// real apps made, for a task with a solution), else one made for its file
// type (a real xlsx, docx, pptx, JPEG, MP3 under the task's .mp4 name, a zip
// or tar.gz holding what the task unpacks); `deskpilot eval fetch --mirror`
// fills the cache from it, keyed by the tasks' own URLs; then `deskpilot eval
// --cache` runs the tasks offline, with a model that does nothing: each must
// reach a verdict (no status, no setup error) and fail. The tasks of
// test_cached_solved.json, those with a scripted solution, then run again with
// it: each must pass.
func TestEvalOSWorldCachedInputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs OSWorld tasks on private displays")
	}
	needTools(t, append(osworldApps, "thunderbird", "git", "unzip")...)
	index := filepath.Join(osworldSuite, "test_cached.json")
	s, err := eval.Load(index)
	if err != nil {
		t.Fatal(err)
	}
	isolate(t)
	cache := fillOSWorldCache(t, index, s)
	res, stderr := evalOSWorldCached(t, index, cache, newScriptedModel(t, map[string]policy{"": idlePolicy}), len(s.Tasks), 2*len(s.Tasks))
	for _, task := range s.Tasks {
		r, ok := res[task.ID]
		switch {
		case !ok:
			t.Errorf("%s: no result", task.ID)
		case r.Status != "" || strings.HasPrefix(r.Error, "setup: "):
			t.Errorf("%s: no verdict: status %q, error %q", task.ID, r.Status, r.Error)
		case r.Correct:
			t.Errorf("%s: passed with nothing done", task.ID)
		default:
			t.Logf("%s: fails (score %g) %s", task.ID, r.Score, r.Error)
		}
	}
	if t.Failed() {
		t.Fatalf("stderr:\n%s", stderr)
	}

	// test_cached_solved.json lists exactly the tasks of test_cached.json
	// that have a solution.
	var solved []osworldTask
	var keys []string
	for _, task := range s.Tasks {
		if replies := osworldSolution(t, task.ID); replies != nil {
			solved = append(solved, osworldTask{task.ID, osworldInstruction(t, task.ID), replies})
			keys = append(keys, task.ID)
		}
	}
	solvedIndex := filepath.Join(osworldSuite, "test_cached_solved.json")
	wantListed(t, solvedIndex, keys)
	m, n := newScriptedModel(t, map[string]policy{}), 0
	for _, task := range solved {
		m.policies[task.instruction] = solutionPolicy(task.replies)
		n += len(task.replies)
	}
	res, stderr = evalOSWorldCached(t, solvedIndex, cache, m, len(solved), n)
	wantPasses(t, res, m, solved)
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}

// fillOSWorldCache serves a stand-in for every input of the suite's tasks
// from a local HTTP server and fills a new inputs cache from it with
// `deskpilot eval fetch --mirror`; it returns the cache's folder.
func fillOSWorldCache(t *testing.T, index string, s *eval.Suite) string {
	t.Helper()
	files := map[string][]byte{} // request URI on the server → stand-in
	var hosts []string
	for _, task := range s.Tasks {
		urls := task.URLs()
		names := inputNames(t, task.ID, urls)
		if len(urls) == 0 {
			t.Fatalf("%s downloads nothing", task.ID)
		}
		for _, raw := range urls {
			u, err := url.Parse(raw)
			if err != nil || names[raw] == "" {
				t.Fatalf("%s: input %s: no file name (%v)", task.ID, raw, err)
			}
			uri := "/" + u.Host + u.RequestURI()
			data := standIn(t, task.ID, names[raw])
			if old, ok := files[uri]; ok && !bytes.Equal(old, data) {
				t.Fatalf("%s: input %s: two tasks want different stand-ins for it (the cache holds one file a URL)", task.ID, raw)
			}
			files[uri] = data
			if origin := u.Scheme + "://" + u.Host + "/"; !slices.Contains(hosts, origin) {
				hosts = append(hosts, origin)
			}
		}
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, ok := files[r.URL.RequestURI()]
		if !ok {
			http.NotFound(w, r)
			return
		}
		hits.Add(1)
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	cache := filepath.Join(t.TempDir(), "inputs")
	args := []string{"eval", "fetch", index, "--cache", cache}
	for _, origin := range hosts {
		args = append(args, "--mirror", origin+"="+srv.URL+"/"+strings.TrimPrefix(origin, "https://"))
	}
	_, stderr, code := runCLI(t.Context(), args...)
	if code != 0 || int(hits.Load()) != len(files) {
		t.Fatalf("eval fetch: exit %d, %d of %d inputs served\n%s", code, hits.Load(), len(files), stderr)
	}
	return cache
}

// evalOSWorldCached runs the index's n tasks offline from the cache with
// the scripted model, which gives at most replies replies.
// $DESKPILOT_OSWORLD_OUT, if set, keeps the results folders there.
func evalOSWorldCached(t *testing.T, index, cache string, m *scriptedModel, n, replies int) (map[string]osworldResult, string) {
	t.Helper()
	srv := llmtest.New(t, m.replies(replies)...).URL
	out := osworldResultsDir(t, index)
	stdout, stderr, code := runCLI(t.Context(), "eval", index, "--cache", cache, "--out", out, "--parallel", "2", "--json", "--yes",
		"--base-url", srv, "--model", "scripted", "--max-steps", "12", "--timeout", "3m")
	var sum struct {
		Results []osworldResult `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil || len(sum.Results) != n {
		t.Fatalf("exit %d: %d results (%v)\nstderr:\n%s", code, len(sum.Results), err, stderr)
	}
	res := map[string]osworldResult{}
	for _, r := range sum.Results {
		res[r.ID] = r
	}
	return res, stderr
}

// inputNames maps each URL a task downloads (of urls) to the file name it
// is saved as (a download step's path, a cloud_file getter's dest), read
// from the task file itself. An update_browse_history step's input, the
// empty browser history it fills, is "History".
func inputNames(t *testing.T, key string, urls []string) map[string]string {
	t.Helper()
	domain, id, _ := strings.Cut(key, "/")
	data, err := os.ReadFile(filepath.Join(osworldSuite, "examples", domain, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var task struct {
		Config    []rawStep `json:"config"`
		Evaluator struct {
			Postconfig []rawStep       `json:"postconfig"`
			Result     json.RawMessage `json:"result"`
			Expected   json.RawMessage `json:"expected"`
		} `json:"evaluator"`
	}
	if err := json.Unmarshal(data, &task); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	history := false
	for _, s := range append(task.Config, task.Evaluator.Postconfig...) {
		for _, f := range s.Parameters.Files {
			out[f.URL] = path.Base(f.Path)
		}
		history = history || s.Type == "update_browse_history"
	}
	for _, raw := range []json.RawMessage{task.Evaluator.Result, task.Evaluator.Expected} {
		var gs []cloudGetter
		if json.Unmarshal(raw, &gs) != nil {
			var g cloudGetter
			_ = json.Unmarshal(raw, &g)
			gs = []cloudGetter{g}
		}
		for _, g := range gs {
			if g.Type == "cloud_file" {
				out[g.Path] = g.Dest
			}
		}
	}
	for _, u := range urls {
		if _, ok := out[u]; !ok && history {
			out[u] = "History"
		}
	}
	return out
}

type rawStep struct {
	Type       string `json:"type"`
	Parameters struct {
		Files []struct {
			URL  string `json:"url"`
			Path string `json:"path"`
		} `json:"files"`
	} `json:"parameters"`
}

type cloudGetter struct {
	Type string `json:"type"`
	Path string `json:"path"`
	Dest string `json:"dest"`
}

// standIn is the file a task downloads as name: the task's own stand-in in
// the suite's stand-ins/<domain>/<id>/, else one of the type name says: files
// the real apps made (eval/checks/testdata), or archives holding what the
// tasks unpack from theirs.
func standIn(t *testing.T, key, name string) []byte {
	t.Helper()
	domain, id, _ := strings.Cut(key, "/")
	if data, err := os.ReadFile(filepath.Join(osworldSuite, "stand-ins", domain, id, name)); err == nil {
		return data
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	testdata := func(f string) []byte {
		data, err := os.ReadFile(filepath.Join("../../eval/checks/testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	switch ext := strings.ToLower(path.Ext(name)); {
	case ext == ".xlsx":
		return testdata("xlsx-same.xlsx")
	case ext == ".docx":
		return testdata("doc-word.docx")
	case ext == ".pptx":
		return testdata("ppt-same.pptx")
	case ext == ".jpeg" || ext == ".jpg":
		return testdata("img-base.jpg")
	case ext == ".mp4" || ext == ".mp3":
		return testdata("mp3-lame.mp3") // VLC finds the format by the content
	case ext == ".sh":
		return []byte("#!/bin/sh\necho stand-in\n")
	case ext == ".zip":
		// helloExtension.zip, binder.zip: a folder of the archive's name.
		var b bytes.Buffer
		z := zip.NewWriter(&b)
		dir := strings.TrimSuffix(name, ext)
		for _, m := range [][2]string{{"README.md", "stand-in\n"},
			{"manifest.json", `{"manifest_version": 3, "name": "stand-in", "version": "1.0"}`}} {
			f, body := m[0], m[1]
			w, err := z.Create(dir + "/" + f)
			if err == nil {
				_, err = w.Write([]byte(body))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	case strings.HasSuffix(name, ".tar.gz"):
		// thunderbird-profile.tar.gz: the profile OSWorld's tasks read,
		// with the prefs.js a new Thunderbird profile has.
		var b bytes.Buffer
		gz := gzip.NewWriter(&b)
		tw := tar.NewWriter(gz)
		// In a fixed order: tasks sharing the URL must get the same bytes.
		for _, m := range []struct {
			name string
			body []byte
		}{
			{".thunderbird/profiles.ini", []byte("[Profile0]\nName=default-release\nIsRelative=1\nPath=t5q2a5hp.default-release\nDefault=1\n\n[General]\nStartWithLastProfile=1\nVersion=2\n")},
			{".thunderbird/t5q2a5hp.default-release/prefs.js", testdata("tb-prefs-fresh.js")},
		} {
			f, body := m.name, m.body
			if err := tw.WriteHeader(&tar.Header{Name: f, Mode: 0o644, Size: int64(len(body))}); err != nil {
				t.Fatal(err)
			}
			if _, err := tw.Write(body); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := gz.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	t.Fatalf("no stand-in for %s", name)
	return nil
}

// TestEvalFetchMirrorUsage: a --mirror that is not FROM=TO with two http(s)
// URLs is a usage error, before anything is fetched.
func TestEvalFetchMirrorUsage(t *testing.T) {
	isolate(t)
	for _, bad := range []string{"https://drive.google.com/", "https://a/=/local/copies", "file:///a=http://b/"} {
		_, stderr, code := runCLI(t.Context(), "eval", "fetch", filepath.Join(osworldSuite, "test_cached.json"),
			"--cache", t.TempDir(), "--mirror", bad)
		if code != exitUsage || !strings.Contains(stderr, "want FROM=TO") {
			t.Errorf("--mirror %q: exit %d, want %d; stderr:\n%s", bad, code, exitUsage, stderr)
		}
	}
}
