package gdrive_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"deskpilot/eval/gdrive"
	"deskpilot/eval/gdrive/gdrivetest"
)

const settingsPath = "evaluation_examples/settings/googledrive/settings.yml"

func open(t *testing.T, expired bool) (*gdrive.Client, *gdrivetest.Drive, string) {
	t.Helper()
	d := gdrivetest.New(t)
	root := t.TempDir()
	d.Account(t, root, expired)
	c, err := gdrive.Open(gdrive.Config{Settings: settingsPath, Root: root, API: d.URL})
	if err != nil {
		t.Fatal(err)
	}
	return c, d, root
}

// noSecret fails when s holds a secret of the fake account or token.
func noSecret(t *testing.T, what, s string) {
	t.Helper()
	for _, sec := range []string{gdrivetest.ClientSecret, gdrivetest.RefreshToken, gdrivetest.FirstToken, "ya29."} {
		if strings.Contains(s, sec) {
			t.Errorf("%s holds a secret (%q): %s", what, sec, s)
		}
	}
}

// TestDriveOperations: each operation against the fake Drive, paging
// included (2 files a page), with the v2 wire format.
func TestDriveOperations(t *testing.T) {
	ctx := context.Background()
	c, d, _ := open(t, false)
	for i := 0; i < 5; i++ {
		d.Add(gdrivetest.File{Title: "a.txt", MimeType: "text/plain", Content: []byte("x")})
	}
	d.Add(gdrivetest.File{Title: "b.txt", MimeType: "text/plain"})
	got, err := c.List(ctx, "title = 'a.txt'")
	if err != nil || len(got) != 5 {
		t.Fatalf("list: %d files, %v; want 5 over 3 pages", len(got), err)
	}
	pages := 0
	for _, l := range d.Log() {
		if strings.HasPrefix(l, "GET /drive/v2/files?") {
			pages++
			if !strings.Contains(l, "corpus=DEFAULT") || !strings.Contains(l, "supportsTeamDrives=true") {
				t.Errorf("list request %s: want PyDrive's Team Drive parameters", l)
			}
		}
	}
	if pages != 3 {
		t.Errorf("list took %d requests, want 3 pages", pages)
	}
	all, err := c.List(ctx, "")
	if err != nil || len(all) != 6 {
		t.Errorf("list all: %d, %v", len(all), err)
	}

	folder, err := c.CreateFolder(ctx, "meetings", "root")
	if err != nil || folder.MimeType != gdrive.FolderType {
		t.Fatalf("create folder: %+v %v", folder, err)
	}
	sub, err := c.CreateFolder(ctx, "sub", folder.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f := d.Get(sub.ID); f == nil || len(f.Parents) != 1 || f.Parents[0] != folder.ID {
		t.Errorf("sub folder %+v: want parent %s", f, folder.ID)
	}

	local := filepath.Join(t.TempDir(), "tmpabc")
	if err := os.WriteFile(local, []byte("%PDF-1.4 fake"), 0o600); err != nil {
		t.Fatal(err)
	}
	up, err := c.Upload(ctx, json.RawMessage(`{"title": "invoice.pdf", "parents": [{"id": "`+folder.ID+`"}]}`), local)
	if err != nil {
		t.Fatal(err)
	}
	if f := d.Get(up.ID); f == nil || string(f.Content) != "%PDF-1.4 fake" || f.Title != "invoice.pdf" || f.Parents[0] != folder.ID {
		t.Errorf("uploaded %+v", f)
	}

	dst := filepath.Join(t.TempDir(), "got.pdf")
	if err := c.Download(ctx, up, up.MimeType, dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "%PDF-1.4 fake" {
		t.Errorf("downloaded %q", b)
	}
	// A Google-native file: only its export links, by MIME type.
	docID := d.Add(gdrivetest.File{Title: "doc", MimeType: "application/vnd.google-apps.document",
		Export: map[string][]byte{"application/pdf": []byte("%PDF exported")}})
	docs, err := c.List(ctx, "title = 'doc'")
	if err != nil || len(docs) != 1 || docs[0].ID != docID {
		t.Fatalf("list doc: %+v %v", docs, err)
	}
	if err := c.Download(ctx, docs[0], "application/pdf", dst); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "%PDF exported" {
		t.Errorf("exported %q", b)
	}
	if err := c.Download(ctx, docs[0], docs[0].MimeType, dst); !errors.Is(err, gdrive.ErrNotDownloadable) {
		t.Errorf("download of a Doc as its own type: %v, want ErrNotDownloadable (PyDrive's FileNotDownloadableError)", err)
	}

	if err := c.Trash(ctx, folder.ID); err != nil {
		t.Fatal(err)
	}
	if f := d.Get(up.ID); f == nil || !f.Trashed {
		t.Errorf("trashing the folder: its file %+v not trashed", f)
	}
	if err := c.Delete(ctx, folder.ID); err != nil {
		t.Fatal(err)
	}
	if d.Get(folder.ID) != nil || d.Get(up.ID) != nil {
		t.Error("delete: the folder or its file is still there")
	}
	if err := c.Delete(ctx, folder.ID); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("delete a missing file: %v, want HTTP 404", err)
	}
}

// TestDriveRefresh: an expired access token is refreshed at token_uri
// before the first request, and credentials.json is rewritten (0600, every
// other field kept) with the new token and expiry; a 401 on a token thought
// valid refreshes once.
func TestDriveRefresh(t *testing.T) {
	ctx := context.Background()
	c, d, root := open(t, true)
	credFile := filepath.Join(root, "evaluation_examples/settings/googledrive/credentials.json")
	before, _ := os.ReadFile(credFile)
	if _, err := c.List(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if d.Issued() != 1 {
		t.Fatalf("token endpoint gave %d tokens, want 1", d.Issued())
	}
	after, err := os.ReadFile(credFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(credFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("credentials.json mode %v, want 0600", fi.Mode().Perm())
	}
	var b, a map[string]any
	_ = json.Unmarshal(before, &b)
	if err := json.Unmarshal(after, &a); err != nil {
		t.Fatal(err)
	}
	if a["access_token"] == b["access_token"] || !strings.HasPrefix(a["access_token"].(string), "ya29.fake-access-token-0001") {
		t.Errorf("access_token after refresh: %v", a["access_token"])
	}
	exp, err := time.Parse("2006-01-02T15:04:05Z", a["token_expiry"].(string))
	if err != nil || exp.Before(time.Now().Add(50*time.Minute)) {
		t.Errorf("token_expiry %v (%v), want about an hour from now in oauth2client's format", a["token_expiry"], err)
	}
	for _, k := range []string{"refresh_token", "client_id", "client_secret", "token_uri", "_class", "_module", "scopes"} {
		if ja, jb := mustJSON(a[k]), mustJSON(b[k]); ja != jb {
			t.Errorf("%s changed: %s -> %s", k, jb, ja)
		}
	}
	if matches, _ := filepath.Glob(filepath.Join(filepath.Dir(credFile), ".credentials-*")); len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
	// A new client reads the saved token and needs no refresh.
	c2, err := gdrive.Open(gdrive.Config{Settings: settingsPath, Root: root, API: d.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c2.List(ctx, ""); err != nil || d.Issued() != 1 {
		t.Errorf("second client: %v, %d tokens issued, want the saved one used", err, d.Issued())
	}
	// Google drops the token early: 401, then one refresh and a retry.
	d.Expire()
	if _, err := c2.List(ctx, ""); err != nil || d.Issued() != 2 {
		t.Errorf("after a 401: %v, %d tokens issued, want 2", err, d.Issued())
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestDriveErrors: a 401 whose refresh fails, a 500, an answer that is not
// JSON, a huge answer and a huge download: each a clear error, none holding
// a secret.
func TestDriveErrors(t *testing.T) {
	ctx := context.Background()
	c, d, _ := open(t, false)
	id := d.Add(gdrivetest.File{Title: "a.bin", MimeType: "application/octet-stream", Content: []byte("1")})
	files, err := c.List(ctx, "title = 'a.bin'")
	if err != nil || len(files) != 1 || files[0].ID != id {
		t.Fatal(files, err)
	}
	for _, tt := range []struct {
		name  string
		setup func(d *gdrivetest.Drive)
		do    func() error
		want  string
	}{
		{"revoked", (*gdrivetest.Drive).Revoke, func() error { _, err := c.List(ctx, ""); return err },
			"drive: files.list: token refresh failed: 400 Bad Request: invalid_grant: Token has been expired or revoked."},
		{"500", func(d *gdrivetest.Drive) { d.Fail("/drive/v2/files", 500) }, func() error { _, err := c.List(ctx, ""); return err },
			"drive: files.list: HTTP 500 Internal Server Error: fake failure"},
		{"bad json", func(d *gdrivetest.Drive) { d.Raw("/drive/v2/files", "{not json") }, func() error { _, err := c.List(ctx, ""); return err },
			"drive: files.list: the answer is not the JSON expected"},
		{"huge answer", func(d *gdrivetest.Drive) { d.Huge("/drive/v2/files") }, func() error { _, err := c.List(ctx, ""); return err },
			"drive: files.list: the answer is larger than 8388608 bytes"},
		{"huge download", func(d *gdrivetest.Drive) { d.Huge("/download/") }, func() error {
			return c.Download(ctx, files[0], "", filepath.Join(t.TempDir(), "x"))
		}, "drive: download: the content is larger than 536870912 bytes"},
		{"bad query", nil, func() error { _, err := c.List(ctx, "title = 'it's'"); return err },
			"drive: files.list: HTTP 400 Bad Request: Invalid query"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, d, _ = open(t, false)
			id := d.Add(gdrivetest.File{Title: "a.bin", MimeType: "application/octet-stream", Content: []byte("1")})
			files[0].ID, files[0].DownloadURL = id, d.URL+"/download/"+id
			if tt.setup != nil {
				tt.setup(d)
			}
			err := tt.do()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if err != nil {
				noSecret(t, "error", err.Error())
			}
			if revoked := tt.name == "revoked"; errors.Is(err, gdrive.ErrCredentials) != revoked {
				t.Errorf("errors.Is(%v, ErrCredentials) = %v, want %v", err, !revoked, revoked)
			}
		})
	}
	// A downloadUrl on another host never gets the token.
	files[0].DownloadURL = "http://127.0.0.2:1/steal"
	if err := c.Download(ctx, files[0], "", filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "not a host of the Drive API") {
		t.Errorf("download from another host: %v", err)
	}
}

// TestDriveMissingFiles: each file the settings name, missing, is a
// *MissingError naming it.
func TestDriveMissingFiles(t *testing.T) {
	d := gdrivetest.New(t)
	for _, rm := range []string{"settings.yml", "client_secrets.json", "credentials.json"} {
		root := t.TempDir()
		d.Account(t, root, false)
		full := filepath.Join(root, "evaluation_examples/settings/googledrive", rm)
		os.Remove(full)
		err := gdrive.Check(settingsPath, root)
		var me *gdrive.MissingError
		if !errors.As(err, &me) || me.File != full || !strings.Contains(err.Error(), full+" not found") {
			t.Errorf("without %s: %v, want a MissingError naming %s", rm, err, full)
		}
	}
	root := t.TempDir()
	d.Account(t, root, false)
	if err := gdrive.Check(settingsPath, root); err != nil {
		t.Errorf("all files there: %v", err)
	}
	// save_credentials off: PyDrive would sign in with a browser each time.
	os.WriteFile(filepath.Join(root, settingsPath), []byte("client_config_file: evaluation_examples/settings/googledrive/client_secrets.json\n"), 0o600)
	var me *gdrive.MissingError
	if err := gdrive.Check(settingsPath, root); !errors.As(err, &me) {
		t.Errorf("no save_credentials: %v, want a MissingError", err)
	}
}
