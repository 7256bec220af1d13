//go:build linux

package eval

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"deskpilot/eval/checks"
	"deskpilot/eval/gdrive"
	"deskpilot/eval/gdrive/gdrivetest"
)

// driveTasks are the 8 tasks of OSWorld's test_all.json that use its
// author's Google Drive (googledrive steps, googledrive_file getters).
var driveTasks = []string{
	"0c825995-5b70-4526-b663-113f4c999dd2", "22a4636f-8179-4357-8e87-d1743ece1f81",
	"46407397-a7d5-4c6b-92c6-dbe038b1457b", "4e9f0faf-2ecc-4ae8-a804-28c9a75d1ddc",
	"78aed49a-a710-4321-a793-b611a7c5b56b", "897e3b53-5d4d-444b-85cb-2cdc8a97d903",
	"a0b9dc9c-fc07-4a88-8c5d-5e3ecad91bcb", "b52b40a5-ad70-4c53-b5b0-5650a8387052",
}

// loadDriveTasks loads the 8 tasks, verbatim, from OSWorld's tree through
// an index file beside test_all.json.
func loadDriveTasks(t *testing.T) (*Suite, string) {
	t.Helper()
	tree := osworldTree(t)
	ids, _ := json.Marshal(map[string][]string{"multi_apps": driveTasks})
	index := filepath.Join(tree, "test_gdrive.json")
	if err := os.WriteFile(index, ids, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(index)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 8 {
		t.Fatalf("%d tasks, want 8", len(s.Tasks))
	}
	return s, filepath.Dir(tree)
}

// TestGoogleDriveTasksClassified: each of OSWorld's 8 Google Drive tasks,
// verbatim, loads with nothing unsupported; offline it is needs_network
// (its login opens Google Drive in the box's Chrome); with the network and
// OSWorld's tree as it is (settings.yml, no client_secrets.json, no
// credentials) needs_credentials naming the missing file; with a person's
// files in place it goes.
func TestGoogleDriveTasksClassified(t *testing.T) {
	t.Setenv("DESKPILOT_OSWORLD_ROOT", "")
	s, root := loadDriveTasks(t)
	inputs := &Inputs{Dir: t.TempDir()}
	offline := &harness{o: Options{}, inputs: inputs}
	online := &harness{o: Options{TaskNetwork: "host"}, inputs: inputs}
	secrets := filepath.Join(root, "evaluation_examples/settings/googledrive/client_secrets.json")
	for _, tk := range s.Tasks {
		if tk.Problem != nil {
			t.Errorf("%s: %v", tk.ID, tk.Problem)
			continue
		}
		err := offline.preflight(tk)
		if statusOf(err) != StatusNeedsNetwork {
			t.Errorf("%s offline: %v (status %q), want needs_network", tk.ID, err, statusOf(err))
		}
		err = online.preflight(tk)
		if statusOf(err) != StatusNeedsCredentials || !strings.Contains(err.Error(), "needs credentials: googledrive: OAuth client file "+secrets+" not found") {
			t.Errorf("%s online without credentials: %v (status %q), want needs_credentials naming %s", tk.ID, err, statusOf(err), secrets)
		}
	}
	// The upload's file is an input of the cache, which eval fetch fetches.
	for _, tk := range s.Tasks {
		if strings.HasSuffix(tk.ID, "/4e9f0faf-2ecc-4ae8-a804-28c9a75d1ddc") &&
			!slices.Contains(tk.URLs(), "https://drive.usercontent.google.com/download?id=1KAhoPFM0AU2dgn_NRt3y7CjOr9Er4vwD&export=download&authuser=0&confirm=t&uuid=e8528cd1-5106-45f3-a644-e1bbf5e08278&at=APZUnTUnTuXfV2Ted_9Wv2QomMvA:1706181110208") {
			t.Errorf("4e9f0faf: inputs %v lack its upload's URL", tk.URLs())
		}
	}
	d := gdrivetest.New(t)
	d.Account(t, root, false)
	for _, tk := range s.Tasks {
		if err := online.preflight(tk); err != nil {
			t.Errorf("%s with credentials: %v, want it to run", tk.ID, err)
		}
	}
	// The login's account file alone missing: named too.
	account := filepath.Join(root, "evaluation_examples/settings/google/settings.json")
	os.Remove(account)
	for _, tk := range s.Tasks {
		err := online.preflight(tk)
		if statusOf(err) != StatusNeedsCredentials || !strings.Contains(err.Error(), "needs credentials: login: account file "+account+" not found") {
			t.Errorf("%s without the login's account: %v", tk.ID, err)
		}
	}
}

// driveBox is a box with no display for steps that need none.
func driveBox(t *testing.T, taskDir, api string, in *Inputs) *box {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "setup.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	b := &box{home: filepath.Join(dir, "home"), cache: filepath.Join(dir, "cache"), taskDir: taskDir, log: &limitedLog{f: f, max: maxLog}, driveAPI: api}
	for _, p := range []string{b.home, b.cache} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(b.attachInputs(in))
	return b
}

// TestGoogleDriveSteps runs the googledrive steps of OSWorld's tasks,
// verbatim, on a fake Drive: delete removes what the query finds (files,
// then folders with what they hold), mkdirs makes a missing folder once,
// upload puts the input (from the cache, through a mirror) at the root
// with the title OSWorld sends; the getters of the same tasks then read
// what an agent left there.
func TestGoogleDriveSteps(t *testing.T) {
	t.Setenv("DESKPILOT_OSWORLD_ROOT", "")
	s, root := loadDriveTasks(t)
	byID := map[string]*Task{}
	for _, tk := range s.Tasks {
		byID[strings.TrimPrefix(tk.ID, "multi_apps/")] = tk
	}
	d := gdrivetest.New(t)
	d.Account(t, root, true) // an expired token: refreshed on the first request
	pdf := []byte("%PDF-1.4 invoice")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(pdf) }))
	defer srv.Close()
	in := &Inputs{Dir: t.TempDir(), Mirrors: []Mirror{{From: "https://drive.usercontent.google.com/", To: srv.URL + "/"}}}
	ctx := context.Background()
	run := func(id string) *box {
		t.Helper()
		tk := byID[id]
		b := driveBox(t, tk.os.dir, d.URL, in)
		if st := tk.os.config[0]; st.kind != "googledrive" {
			t.Fatalf("%s: first step %s", id, st.kind)
		} else if err := b.runStep(ctx, st); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return b
	}
	const folder = gdrive.FolderType

	// 897e3b53: delete "title = 'form.pdf' or ... or title = 'forms'".
	forms := d.Add(gdrivetest.File{Title: "forms", MimeType: folder})
	inForms := d.Add(gdrivetest.File{Title: "form.pdf", MimeType: "application/pdf", Content: []byte("old"), Parents: []string{forms}})
	other := d.Add(gdrivetest.File{Title: "keep.txt", MimeType: "text/plain"})
	stray := d.Add(gdrivetest.File{Title: "form.docx", MimeType: "application/octet-stream"})
	for i := 0; i < 3; i++ {
		d.Add(gdrivetest.File{Title: "form.pdf", MimeType: "application/pdf"}) // more than one page of matches
	}
	run("897e3b53-5d4d-444b-85cb-2cdc8a97d903")
	if d.Get(forms) != nil || d.Get(inForms) != nil || d.Get(stray) != nil || len(d.Find("form.pdf")) != 0 {
		t.Error("897e3b53: the files and folder the query finds are still there")
	}
	if d.Get(other) == nil {
		t.Error("897e3b53: a file the query does not find was deleted")
	}
	if d.Issued() != 1 {
		t.Errorf("the expired token was refreshed %d times, want 1", d.Issued())
	}
	var creds map[string]any
	data, _ := os.ReadFile(filepath.Join(root, "evaluation_examples/settings/googledrive/credentials.json"))
	if json.Unmarshal(data, &creds) != nil || creds["access_token"] == gdrivetest.FirstToken {
		t.Error("credentials.json does not hold the refreshed token")
	}

	// 22a4636f: delete the agenda, then mkdirs ["meetings"], twice: one folder.
	run("22a4636f-8179-4357-8e87-d1743ece1f81")
	run("22a4636f-8179-4357-8e87-d1743ece1f81")
	if m := d.Find("meetings"); len(m) != 1 || m[0].MimeType != folder || m[0].Parents[0] != "root" {
		t.Errorf("22a4636f: meetings folders %+v, want one at the root", m)
	}

	// 4e9f0faf: delete invoice.pdf, upload the invoice: at the root, with
	// path ["invoice.pdf"] as its title, as OSWorld sends it.
	d.Add(gdrivetest.File{Title: "invoice.pdf", MimeType: "application/pdf", Content: []byte("stale")})
	b := run("4e9f0faf-2ecc-4ae8-a804-28c9a75d1ddc")
	if len(d.Find("invoice.pdf")) != 0 {
		t.Error("4e9f0faf: the old invoice.pdf is still there")
	}
	ups := d.Uploads()
	if len(ups) != 1 || ups[0] != `{"title":["invoice.pdf"],"mimeType":null}` {
		t.Errorf("4e9f0faf: upload metadata %q, want OSWorld's {\"title\": [\"invoice.pdf\"], \"mimeType\": null}", ups)
	}
	logText, _ := os.ReadFile(b.log.f.Name())
	if !strings.Contains(string(logText), "googledrive: uploaded") {
		t.Errorf("setup.log: %s", logText)
	}

	// The getters of 897e3b53 and 78aed49a on what an agent left there.
	forms = d.Add(gdrivetest.File{Title: "forms", MimeType: folder})
	d.Add(gdrivetest.File{Title: "form.pdf", MimeType: "application/pdf", Content: []byte("%PDF agent"), Parents: []string{forms}})
	tk := byID["897e3b53-5d4d-444b-85cb-2cdc8a97d903"]
	b = driveBox(t, tk.os.dir, d.URL, in)
	v, err := b.get(ctx, b.checkEnv(""), tk.os.eval.result[0], "")
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := v.(string); p != filepath.Join(b.cache, "form.pdf") {
		t.Errorf("897e3b53 getter: %v", v)
	} else if got, _ := os.ReadFile(p); string(got) != "%PDF agent" {
		t.Errorf("897e3b53 getter: file holds %q", got)
	}
	tk = byID["78aed49a-a710-4321-a793-b611a7c5b56b"]
	v, err = b.get(ctx, b.checkEnv(""), tk.os.eval.result[1], "")
	if l, ok := v.([]any); err != nil || !ok || len(l) != 2 || l[0] != nil || l[1] != nil {
		t.Errorf("78aed49a getter with no attachment folder: %#v, %v; want [None, None]", v, err)
	}
	// Nothing of the credentials in the box's files or its log.
	scanSecrets(t, filepath.Dir(b.home))

	// Credentials that no longer sign in (the refresh token revoked): the
	// step fails as needs_credentials, not as the agent's failure.
	d.Revoke()
	tk = byID["897e3b53-5d4d-444b-85cb-2cdc8a97d903"]
	b = driveBox(t, tk.os.dir, d.URL, in)
	err = b.runStep(ctx, tk.os.config[0])
	if statusOf(err) != StatusNeedsCredentials || !strings.Contains(err.Error(), "invalid_grant") {
		t.Errorf("revoked: %v (status %q), want needs_credentials", err, statusOf(err))
	}
}

// scanSecrets fails for any file under dir holding a secret of the fake
// account (the client secret, any access or refresh token, the password).
func scanSecrets(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		for _, sec := range []string{gdrivetest.ClientSecret, gdrivetest.RefreshToken, "ya29.", "fake-password-77"} {
			if strings.Contains(string(data), sec) {
				t.Errorf("%s holds a secret (%s)", p, sec)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Errorf("no file under %s to scan", dir)
	}
}

// TestGoogleDriveRun runs three OSWorld-format tasks on the Drive through
// Run, on private displays, one at a time: each setup cleans the Drive
// (delete, mkdirs) and uploads an input; the first task's agent puts the
// answer in the Drive and passes, the second does nothing and fails
// although the first one's answer was there before its setup (the setup
// deleted it); the third names settings that are not there and is
// needs_credentials, counted apart. The access token starts expired. No
// file of the results folder holds a secret.
func TestGoogleDriveRun(t *testing.T) {
	t.Setenv("DESKPILOT_OSWORLD_ROOT", "")
	root := t.TempDir()
	d := gdrivetest.New(t)
	d.Account(t, root, true)
	suite := filepath.Join(root, "evaluation_examples", "examples", "drive")
	if err := os.MkdirAll(suite, 0o755); err != nil {
		t.Fatal(err)
	}
	task := func(id, settings string) string {
		return `{"id": "` + id + `", "instruction": "Put answer.txt saying 42 in the forms folder of my Google Drive.",
			"config": [
				{"type": "googledrive", "parameters": {"settings_file": "` + settings + `", "operation": ["delete", "mkdirs"],
					"args": [{"query": "title = 'answer.txt' or title = 'forms' or title = 'invoice.pdf'", "trash": false}, {"path": ["forms"]}]}},
				{"type": "googledrive", "parameters": {"settings_file": "` + settings + `", "operation": ["upload"],
					"args": [{"url": "https://drive.usercontent.google.com/download?id=invoice", "path": ["invoice.pdf"]}]}}],
			"evaluator": {"func": "compare_text_file",
				"result": {"type": "googledrive_file", "settings_file": "` + settings + `", "path": ["forms", "answer.txt"], "dest": "answer.txt"},
				"expected": {"type": "cloud_file", "path": "https://drive.usercontent.google.com/download?id=gold", "dest": "gold.txt"}}}`
	}
	const ok = "evaluation_examples/settings/googledrive/settings.yml"
	for name, text := range map[string]string{
		"a-solved.json":  task("a-solved", ok),
		"b-idle.json":    task("b-idle", ok),
		"c-nocreds.json": task("c-nocreds", "evaluation_examples/settings/elsewhere/settings.yml"),
	} {
		if err := os.WriteFile(filepath.Join(suite, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("id") {
		case "gold":
			_, _ = w.Write([]byte("42\n"))
		case "invoice":
			_, _ = w.Write([]byte("%PDF-1.4 invoice"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	in := &Inputs{Dir: t.TempDir(), Mirrors: []Mirror{{From: "https://drive.usercontent.google.com/", To: srv.URL + "/"}}}
	agent := func(ctx context.Context, j Job) (Outcome, error) {
		if j.TaskID == "a-solved" {
			forms := d.Find("forms")
			if len(forms) != 1 {
				return Outcome{}, errors.New("no forms folder after setup")
			}
			d.Add(gdrivetest.File{Title: "answer.txt", MimeType: "text/plain", Content: []byte("42\n"), Parents: []string{forms[0].ID}})
		}
		return Outcome{Answer: "done", Outcome: "answered", Steps: 1}, nil
	}
	out := filepath.Join(t.TempDir(), "out")
	sum, err := Run(t.Context(), Options{Suite: suite, Out: out, Model: "m", Parallel: 1, Screen: image1280(), Inputs: in, DriveAPI: d.URL}, agent)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range sum.Results {
		got[r.ID] = r
	}
	if r := got["a-solved"]; !r.Correct || r.Status != "" {
		t.Errorf("a-solved: %+v, want a pass", r)
	}
	if r := got["b-idle"]; r.Correct || r.Score != 0 || r.Status != "" {
		t.Errorf("b-idle: %+v, want a verdict of 0 (its setup deleted the answer left before)", r)
	}
	want := "setup: needs credentials: googledrive: settings file " + filepath.Join(root, "evaluation_examples/settings/elsewhere/settings.yml") + " not found"
	if r := got["c-nocreds"]; r.Status != StatusNeedsCredentials || r.Error != want {
		t.Errorf("c-nocreds: status %q, error %q; want %q", r.Status, r.Error, want)
	}
	if o := sum.Overall; o == nil || o.Attempted != 2 || o.Passed != 1 || o.NeedsCredentials != 1 {
		t.Errorf("overall %+v, want 2 attempted, 1 passed, 1 needs_credentials", sum.Overall)
	}
	if n := len(d.Uploads()); n != 2 {
		t.Errorf("%d uploads, want one per task that ran", n)
	}
	if d.Issued() != 1 {
		t.Errorf("%d tokens issued, want 1 (refreshed once, then saved and reused)", d.Issued())
	}
	scanSecrets(t, out)
}

// TestGoogleDriveVerbatimTask runs OSWorld's multi_apps/b52b40a5 (save an
// email's attachment to the root of Google Drive), verbatim, through Run
// with --task-network host, twice (two attempts, one at a time): its
// googledrive step cleans a stale attachment_full.pdf out of the Drive,
// Chromium starts behind the task's socat, the tabs open, the login step
// signs in on a page with Google's sign-in fields (checks.DriveLoginURL,
// served here), the Thunderbird profile (a stand-in from the cache) is
// unpacked and Thunderbird starts. The first attempt's agent puts the
// attachment (the gold PDF) in the Drive and passes; the second does
// nothing and fails, as its setup deleted the first one's file. No file of
// the results folder holds a secret.
func TestGoogleDriveVerbatimTask(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium and Thunderbird")
	}
	t.Setenv("DESKPILOT_OSWORLD_ROOT", "")
	tree := osworldTree(t)
	root := filepath.Dir(tree)
	const id = "b52b40a5-ad70-4c53-b5b0-5650a8387052"
	index := filepath.Join(tree, "test_gd1.json")
	if err := os.WriteFile(index, []byte(`{"multi_apps": ["`+id+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	d := gdrivetest.New(t)
	d.Account(t, root, true)
	gold, err := os.ReadFile("checks/testdata/pdf-gold.pdf")
	if err != nil {
		t.Fatal(err)
	}
	profile := tarGz(t, map[string]string{".thunderbird/profiles.ini": "[General]\nStartWithLastProfile=1\n"})
	signins := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/signin":
			_, _ = w.Write([]byte(driveSignInPage))
		case r.URL.Path == "/signed-in":
			b, _ := io.ReadAll(r.Body)
			signins <- string(b)
		case r.URL.Query().Get("id") == "1_SujjgvE6SkrIINB7bd-4quti7ICGaB_":
			_, _ = w.Write(profile)
		case r.URL.Query().Get("id") == "1-FaONI6f5g9XyJAlx8vPFgTP_SEZ-1vV":
			_, _ = w.Write(gold)
		default:
			_, _ = w.Write([]byte("<html><body>ok</body></html>"))
		}
	}))
	defer srv.Close()
	old := checks.DriveLoginURL
	checks.DriveLoginURL = srv.URL + "/signin"
	defer func() { checks.DriveLoginURL = old }()
	stale := d.Add(gdrivetest.File{Title: "attachment_full.pdf", MimeType: "application/pdf", Content: []byte("%PDF stale")})
	in := &Inputs{Dir: t.TempDir(), Mirrors: []Mirror{{From: "https://drive.usercontent.google.com/", To: srv.URL + "/"}}}
	agent := func(ctx context.Context, j Job) (Outcome, error) {
		if d.Get(stale) != nil {
			return Outcome{}, errors.New("the stale file is still in the Drive after setup")
		}
		if j.Attempt == 1 {
			d.Add(gdrivetest.File{Title: "attachment_full.pdf", MimeType: "application/pdf", Content: gold})
		}
		return Outcome{Answer: "done", Outcome: "answered", Steps: 1}, nil
	}
	out := filepath.Join(t.TempDir(), "out")
	sum, err := Run(t.Context(), Options{Suite: index, Out: out, Model: "m", Parallel: 1, Attempts: 2, Screen: image1280(),
		Inputs: in, DriveAPI: d.URL, TaskNetwork: "host"}, agent)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Attempts == nil || len(sum.Attempts.Results) != 2 {
		t.Fatalf("attempts: %+v", sum.Attempts)
	}
	for _, r := range sum.Attempts.Results {
		want := r.Attempt == 1
		if r.Correct != want || r.Status != "" || r.Error != "" {
			log, _ := os.ReadFile(filepath.Join(out, "tasks", safeName(r.ID), fmt.Sprintf("attempt-%d", r.Attempt), "setup.log"))
			t.Errorf("attempt %d: correct %v (score %v, status %q, error %q, check %q), want %v\nsetup.log:\n%s", r.Attempt, r.Correct, r.Score, r.Status, r.Error, r.Check, want, log)
		}
	}
	if log, err := os.ReadFile(filepath.Join(out, "tasks", safeName("multi_apps/"+id), "attempt-2", "setup.log")); err == nil {
		for _, l := range strings.Split(string(log), "\n") {
			if strings.Contains(l, "port 9222") {
				t.Logf("attempt 2: %s", l) // when attempt 1's connections were still in TIME_WAIT
			}
		}
	}
	for i := 0; i < 2; i++ {
		select {
		case b := <-signins:
			if b != `{"email":"someone@example.com","password":"fake-password-77"}` {
				t.Errorf("sign-in %d: %s", i+1, b)
			}
		default:
			log, _ := os.ReadFile(filepath.Join(out, "tasks", safeName("multi_apps/"+id), fmt.Sprintf("attempt-%d", i+1), "setup.log"))
			t.Errorf("sign-in %d: the login step typed nothing; setup.log:\n%s", i+1, log)
		}
	}
	scanSecrets(t, out)
}

// tarGz is a .tar.gz of the files.
func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, text := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(text))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// driveSignInPage has the fields and buttons of Google's sign-in that
// OSWorld's login step uses; the second Next posts what was typed.
const driveSignInPage = `<!doctype html><html><body>
<div id="one"><input type="email" id="e"><div id="identifierNext"><div><button onclick="next1()">Next</button></div></div></div>
<div id="two" style="display:none"><input type="password" id="p"><div id="passwordNext"><div><button onclick="next2()">Next</button></div></div></div>
<script>
function next1() { document.getElementById('one').style.display = 'none'; setTimeout(() => { document.getElementById('two').style.display = 'block'; }, 300); }
function next2() { fetch('/signed-in', {method: 'POST', body: JSON.stringify({email: document.getElementById('e').value, password: document.getElementById('p').value})}).then(() => { location.href = '/drive'; }); }
</script></body></html>`

// TestHostPortWait: a socat launch's listening port is found, and a port
// held by a socket bound without SO_REUSEADDR is not free until it closes.
func TestHostPortWait(t *testing.T) {
	for argv, want := range map[string]int{
		"socat tcp-listen:9222,fork tcp:localhost:1337": 9222,
		"/usr/bin/socat TCP-LISTEN:8080 tcp:x:1":        8080,
		"socat - tcp:localhost:9222":                    0,
		"chromium --remote-debugging-port=1337":         0,
	} {
		if got := listenPort(strings.Fields(argv)); got != want {
			t.Errorf("%s: port %d, want %d", argv, got, want)
		}
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 1); err != nil {
		t.Fatal(err)
	}
	sa, _ := syscall.Getsockname(fd)
	port := sa.(*syscall.SockaddrInet4).Port
	if portFree(port) {
		t.Errorf("port %d held by a listener: free", port)
	}
	syscall.Close(fd)
	if !portFree(port) {
		t.Errorf("port %d after its listener closed: not free", port)
	}
}
