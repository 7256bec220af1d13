package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"deskpilot/eval/gdrive"
	"deskpilot/eval/gdrive/gdrivetest"
)

// driveEnv is a dirEnv with a Google Drive.
type driveEnv struct {
	dirEnv
	root, api string
}

func (e driveEnv) GoogleDrive(settings string) (*gdrive.Client, error) {
	return gdrive.Open(gdrive.Config{Settings: settings, Root: e.root, API: e.api})
}

// TestGoogleDriveFile: get_googledrive_file's four forms (query, path,
// query_list, path_list), with the configs of OSWorld's own tasks, on a fake
// Drive: found files downloaded into the cache folder, None for a missing
// one and for a Google Docs file asked as its own type, and a failing Drive
// an error.
func TestGoogleDriveFile(t *testing.T) {
	ctx := context.Background()
	d := gdrivetest.New(t)
	e := driveEnv{dirEnv: newDirEnv(t), root: t.TempDir(), api: d.URL}
	d.Account(t, e.root, false)
	const folder = gdrive.FolderType
	forms := d.Add(gdrivetest.File{Title: "forms", MimeType: folder})
	d.Add(gdrivetest.File{Title: "form.pdf", MimeType: "application/pdf", Content: []byte("FORM"), Parents: []string{forms}})
	d.Add(gdrivetest.File{Title: "form.pdf", MimeType: "application/pdf", Content: []byte("ROOT FORM")}) // not in forms
	figures := d.Add(gdrivetest.File{Title: "figures", MimeType: folder})
	d.Add(gdrivetest.File{Title: "1.png", MimeType: "image/png", Content: []byte("PNG1"), Parents: []string{figures}})
	d.Add(gdrivetest.File{Title: "2.png", MimeType: "image/png", Content: []byte("PNG2"), Parents: []string{figures}, Trashed: true})
	att := d.Add(gdrivetest.File{Title: "attachment", MimeType: folder})
	d.Add(gdrivetest.File{Title: "Invoice-01234567-89ab.pdf", MimeType: "application/pdf", Content: []byte("INV"), Parents: []string{att}})
	pol := d.Add(gdrivetest.File{Title: "environment_policy", MimeType: folder})
	d.Add(gdrivetest.File{Title: "environment_policy_report (draft)", MimeType: "application/vnd.google-apps.document",
		Parents: []string{pol}, Export: map[string][]byte{"application/pdf": []byte("x")}})
	for i := 0; i < 5; i++ { // more than a page of decoys at the root
		d.Add(gdrivetest.File{Title: "decoy", MimeType: "text/plain"})
	}
	d.Add(gdrivetest.File{Title: "attachment_full.pdf", MimeType: "application/pdf", Content: []byte("FULL")})

	tests := []struct {
		name, cfg string
		want      []string // file contents, "None" for nil; one entry = not a list
		list      bool
	}{
		{"query (897e3b53)", `{"type": "googledrive_file", "settings_file": "evaluation_examples/settings/googledrive/settings.yml", "query": ["title = 'forms' and mimeType = 'application/vnd.google-apps.folder' and trashed = false", "( title = 'form.pdf' or title = 'form.docx.pdf' ) and trashed = false"], "dest": "form.pdf"}`,
			[]string{"FORM"}, false},
		{"query at the root (b52b40a5)", `{"type": "googledrive_file", "query": ["title = 'attachment_full.pdf' and trashed = false and 'root' in parents"], "dest": "attachment_full.pdf"}`,
			[]string{"FULL"}, false},
		{"path of a Docs file (0c825995)", `{"type": "googledrive_file", "settings_file": "evaluation_examples/settings/googledrive/settings.yml", "path": ["environment_policy", "environment_policy_report (draft)"], "dest": "environment_policy_report (draft).docx"}`,
			[]string{"None"}, false},
		{"path missing (22a4636f)", `{"type": "googledrive_file", "path": ["meetings", "Meeting-Agenda.pdf"], "dest": "Meeting-Agenda.pdf"}`,
			[]string{"None"}, false},
		{"query_list, one trashed, one missing (46407397)", `{"type": "googledrive_file", "query_list": [["title = 'figures' and trashed = false and 'root' in parents and mimeType = 'application/vnd.google-apps.folder'", "title = '1.png' and trashed = false"], ["title = 'figures' and trashed = false and 'root' in parents and mimeType = 'application/vnd.google-apps.folder'", "title = '2.png' and trashed = false"], ["title = 'figures' and trashed = false and 'root' in parents and mimeType = 'application/vnd.google-apps.folder'", "title = '3.png' and trashed = false"]], "dest": ["1.png", "2.png", "3.png"]}`,
			[]string{"PNG1", "None", "None"}, true},
		{"path_list (78aed49a)", `{"type": "googledrive_file", "path_list": [["attachment", "Invoice-01234567-89ab.pdf"], ["attachment", "Receipt-0123-4567.pdf"]], "dest": ["Invoice-01234567-89ab.pdf", "Receipt-0123-4567.pdf"]}`,
			[]string{"INV", "None"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg map[string]any
			if err := json.Unmarshal([]byte(tt.cfg), &cfg); err != nil {
				t.Fatal(err)
			}
			g, _ := LookupGetter("googledrive_file")
			if err := g.Validate(cfg); err != nil {
				t.Fatalf("validate: %v", err)
			}
			v, err := Get(ctx, e, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			if tt.list {
				l, ok := v.([]any)
				if !ok {
					t.Fatalf("got %#v, want a list", v)
				}
				got = l
			} else {
				got = []any{v}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %d values", got, len(tt.want))
			}
			for i, w := range tt.want {
				if w == "None" {
					if got[i] != nil {
						t.Errorf("[%d] = %v, want None", i, got[i])
					}
					continue
				}
				p, _ := got[i].(string)
				b, err := os.ReadFile(p)
				if err != nil || string(b) != w || !strings.HasPrefix(p, e.cache) {
					t.Errorf("[%d] = %v (%q, %v), want a file of the cache folder holding %q", i, got[i], b, err, w)
				}
			}
		})
	}
	// Load-time checks: OSWorld's assert on the lengths, a dest outside.
	for _, bad := range []string{
		`{"type": "googledrive_file", "path_list": [["a"], ["b"]], "dest": ["1"]}`,
		`{"type": "googledrive_file", "path": ["a"], "dest": "../x"}`,
		`{"type": "googledrive_file", "dest": "x"}`,
		`{"type": "googledrive_file", "query": "title = 'a'", "dest": "x"}`,
	} {
		var cfg map[string]any
		_ = json.Unmarshal([]byte(bad), &cfg)
		g, _ := LookupGetter("googledrive_file")
		if err := g.Validate(cfg); err == nil {
			t.Errorf("%s: validates, want an error", bad)
		}
	}
	// A Drive that fails is an error, not None; without a Drive, unavailable.
	d.Fail("/drive/v2/files", 500)
	cfg := map[string]any{"type": "googledrive_file", "path": []any{"forms", "form.pdf"}, "dest": "f.pdf"}
	if _, err := Get(ctx, e, cfg); err == nil || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("failing Drive: %v, want the HTTP 500", err)
	}
	if _, err := Get(ctx, e.dirEnv, cfg); err == nil || !strings.Contains(err.Error(), ErrUnavailable.Error()) {
		t.Errorf("no Drive: %v, want unavailable", err)
	}
}

// signInPage is a page with the fields and buttons of Google's sign-in
// that OSWorld's login step uses: the email, Next, then (after a moment)
// the password, Next, which posts what was typed.
const signInPage = `<!doctype html><html><body>
<div id="one"><input type="email" id="e"><div id="identifierNext"><div><button onclick="next1()">Next</button></div></div></div>
<div id="two" style="display:none"><input type="password" id="p"><div id="passwordNext"><div><button onclick="next2()">Next</button></div></div></div>
<script>
function next1() { document.getElementById('one').style.display = 'none'; setTimeout(() => { document.getElementById('two').style.display = 'block'; }, 300); }
function next2() { fetch('/signed-in', {method: 'POST', body: JSON.stringify({email: document.getElementById('e').value, password: document.getElementById('p').value})}).then(() => { location.href = '/drive'; }); }
</script></body></html>`

// TestGoogleDriveLogin: the login step's sign-in on a real Chromium over
// DevTools: the email and password typed into the fields, each Next
// clicked; on a page without the fields it ends quietly, as OSWorld's; the
// log never holds the password.
func TestGoogleDriveLogin(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/signin":
			_, _ = w.Write([]byte(signInPage))
		case "/signed-in":
			b, _ := io.ReadAll(r.Body)
			got <- string(b)
		default:
			_, _ = w.Write([]byte("<html><body>my drive</body></html>"))
		}
	}))
	defer srv.Close()
	c := startChromium(t, "about:blank")
	env := c.env(t)
	var log strings.Builder
	logf := func(f string, a ...any) { fmt.Fprintf(&log, f, a...) }
	old := DriveLoginURL
	t.Cleanup(func() { DriveLoginURL = old })
	DriveLoginURL = srv.URL + "/signin"
	if err := GoogleDriveLogin(t.Context(), env, "someone@example.com", "pa55-\"word'", logf); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-got:
		if b != `{"email":"someone@example.com","password":"pa55-\"word'"}` {
			t.Errorf("the page got %s", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the page got no sign-in; log: %s", log.String())
	}
	DriveLoginURL = srv.URL + "/drive" // already signed in: no fields
	if err := GoogleDriveLogin(t.Context(), env, "someone@example.com", "pa55-\"word'", logf); err != nil {
		t.Errorf("no sign-in fields: %v, want nil (OSWorld logs the timeout and goes on)", err)
	}
	if !strings.Contains(log.String(), "timeout when waiting for google drive login page to load") || strings.Contains(log.String(), "pa55") {
		t.Errorf("log: %s", log.String())
	}
}
