// Package gdrivetest is a fake Google Drive for tests: an HTTP server that
// speaks the wire format of Drive API v2 (files.list with a query and
// pages, files.insert with JSON or a multipart upload, files.delete,
// files.trash, downloadUrl and exportLinks) and of Google's OAuth token
// endpoint (a refresh_token grant), with the files in memory.
package gdrivetest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Secrets of the fake's one account: tests check no output holds them.
const (
	ClientID     = "123-fake.apps.googleusercontent.com"
	ClientSecret = "GOCSPX-fake-client-secret-4f9a"
	RefreshToken = "1//fake-refresh-token-8c2e71"
	FirstToken   = "ya29.fake-access-token-first-0001"
)

// File is one file of the fake Drive.
type File struct {
	ID       string
	Title    any // a string, or what an upload sent
	MimeType string
	Parents  []string // "root" for the Drive's root
	Trashed  bool
	Content  []byte
	// Export, for a Google-native file: its content per export MIME type.
	Export map[string][]byte
}

// Drive is the fake server.
type Drive struct {
	*httptest.Server
	// PageSize is the number of files per files.list page (default 2, to
	// make paging happen).
	PageSize int

	mu      sync.Mutex
	files   map[string]*File
	next    int
	tokens  map[string]bool // access tokens that are valid
	issued  int
	refresh string
	// Fail answers requests whose path starts with the key with that status
	// (Google's JSON error body); Raw answers them with the body instead.
	fail map[string]int
	raw  map[string]string
	huge map[string]bool
	// Log is every request: "METHOD path?query".
	log []string
	// Uploads are the metadata parts of multipart uploads, as sent.
	uploads []string
}

// New starts a fake Drive with FirstToken valid; stop it with Close.
func New(t testing.TB) *Drive {
	d := &Drive{PageSize: 2, files: map[string]*File{}, tokens: map[string]bool{FirstToken: true},
		refresh: RefreshToken, fail: map[string]int{}, raw: map[string]string{}, huge: map[string]bool{}}
	d.Server = httptest.NewServer(http.HandlerFunc(d.serve))
	t.Cleanup(d.Close)
	return d
}

// Add puts a file in the Drive and returns its id.
func (d *Drive) Add(f File) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.next++
	f.ID = fmt.Sprintf("id%03d", d.next)
	if len(f.Parents) == 0 {
		f.Parents = []string{"root"}
	}
	d.files[f.ID] = &f
	return f.ID
}

// Get returns a copy of the file id, or nil.
func (d *Drive) Get(id string) *File {
	d.mu.Lock()
	defer d.mu.Unlock()
	if f := d.files[id]; f != nil {
		c := *f
		return &c
	}
	return nil
}

// Find returns the files titled title (in any folder, trashed too), by id.
func (d *Drive) Find(title string) []File {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []File
	for _, f := range d.files {
		if f.Title == title {
			out = append(out, *f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Expire makes every access token invalid (as Google does after an hour).
func (d *Drive) Expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tokens = map[string]bool{}
}

// Revoke makes the refresh token invalid too.
func (d *Drive) Revoke() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tokens = map[string]bool{}
	d.refresh = ""
}

// Fail makes requests whose path starts with prefix answer status.
func (d *Drive) Fail(prefix string, status int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.fail[prefix] = status
}

// Raw makes requests whose path starts with prefix answer 200 with body.
func (d *Drive) Raw(prefix, body string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.raw[prefix] = body
}

// Huge makes requests whose path starts with prefix answer 200 with an
// endless body.
func (d *Drive) Huge(prefix string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.huge[prefix] = true
}

// Log returns the requests so far.
func (d *Drive) Log() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.log...)
}

// Uploads returns the metadata of the multipart uploads so far, as sent.
func (d *Drive) Uploads() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.uploads...)
}

// Issued is the number of access tokens the token endpoint gave.
func (d *Drive) Issued() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.issued
}

func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"errors": []map[string]any{{"domain": "global", "reason": "fake", "message": msg}}, "code": status, "message": msg}})
}

func (d *Drive) serve(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.log = append(d.log, r.Method+" "+r.URL.RequestURI())
	for p, status := range d.fail {
		if strings.HasPrefix(r.URL.Path, p) {
			apiError(w, status, "fake failure")
			return
		}
	}
	for p, body := range d.raw {
		if strings.HasPrefix(r.URL.Path, p) {
			_, _ = io.WriteString(w, body)
			return
		}
	}
	for p := range d.huge {
		if strings.HasPrefix(r.URL.Path, p) {
			chunk := []byte(strings.Repeat("x", 1<<16))
			for i := 0; i < 1<<14; i++ { // 1 GiB, unless the client stops reading
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
			return
		}
	}
	if r.URL.Path == "/token" {
		d.token(w, r)
		return
	}
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || !d.tokens[auth] {
		w.Header().Set("WWW-Authenticate", `Bearer realm="https://accounts.google.com/"`)
		apiError(w, http.StatusUnauthorized, "Invalid Credentials")
		return
	}
	path := r.URL.Path
	switch {
	case path == "/drive/v2/files" && r.Method == http.MethodGet:
		d.list(w, r)
	case path == "/drive/v2/files" && r.Method == http.MethodPost:
		var meta map[string]any
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&meta); err != nil {
			apiError(w, http.StatusBadRequest, "Parse Error")
			return
		}
		d.insert(w, meta, nil)
	case path == "/upload/drive/v2/files" && r.Method == http.MethodPost:
		d.upload(w, r)
	case strings.HasPrefix(path, "/drive/v2/files/") && strings.HasSuffix(path, "/trash") && r.Method == http.MethodPost:
		f := d.files[strings.TrimSuffix(strings.TrimPrefix(path, "/drive/v2/files/"), "/trash")]
		if f == nil {
			apiError(w, http.StatusNotFound, "File not found")
			return
		}
		d.setTrashed(f)
		d.resource(w, f)
	case strings.HasPrefix(path, "/drive/v2/files/") && r.Method == http.MethodDelete:
		id := strings.TrimPrefix(path, "/drive/v2/files/")
		if d.files[id] == nil {
			apiError(w, http.StatusNotFound, "File not found: "+id)
			return
		}
		d.remove(id)
		w.WriteHeader(http.StatusNoContent)
	case strings.HasPrefix(path, "/download/"):
		f := d.files[strings.TrimPrefix(path, "/download/")]
		if f == nil || f.Export != nil {
			apiError(w, http.StatusNotFound, "File not found")
			return
		}
		_, _ = w.Write(f.Content)
	case strings.HasPrefix(path, "/export/"):
		f := d.files[strings.TrimPrefix(path, "/export/")]
		if f == nil || f.Export[r.URL.Query().Get("mimeType")] == nil {
			apiError(w, http.StatusBadRequest, "Export only supports Docs Editors files.")
			return
		}
		_, _ = w.Write(f.Export[r.URL.Query().Get("mimeType")])
	default:
		apiError(w, http.StatusNotFound, "Not Found")
	}
}

// token is Google's token endpoint for the refresh_token grant.
func (d *Drive) token(w http.ResponseWriter, r *http.Request) {
	bad := func(code, desc string) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		bad("invalid_request", "want a form POST")
		return
	}
	if err := r.ParseForm(); err != nil {
		bad("invalid_request", "bad form")
		return
	}
	f := r.PostForm
	switch {
	case f.Get("grant_type") != "refresh_token":
		bad("unsupported_grant_type", "Invalid grant_type: "+f.Get("grant_type"))
	case f.Get("client_id") != ClientID || f.Get("client_secret") != ClientSecret:
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client", "error_description": "Unauthorized"})
	case d.refresh == "" || f.Get("refresh_token") != d.refresh:
		bad("invalid_grant", "Token has been expired or revoked.")
	default:
		d.issued++
		tok := fmt.Sprintf("ya29.fake-access-token-%04d-%d", d.issued, time.Now().UnixNano()%1000)
		d.tokens[tok] = true
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": 3599, "scope": "https://www.googleapis.com/auth/drive", "token_type": "Bearer"})
	}
}

func (d *Drive) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	match, err := parseQuery(q.Get("q"))
	if err != nil {
		apiError(w, http.StatusBadRequest, "Invalid query")
		return
	}
	var ids []string
	for id, f := range d.files {
		if match == nil || match(f) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	start := 0
	if t := q.Get("pageToken"); t != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(t, "page-"))
		if err != nil || n < 0 || n > len(ids) {
			apiError(w, http.StatusBadRequest, "Invalid Value")
			return
		}
		start = n
	}
	end := min(start+d.PageSize, len(ids))
	items := []any{}
	for _, id := range ids[start:end] {
		items = append(items, d.meta(d.files[id]))
	}
	ans := map[string]any{"kind": "drive#fileList", "etag": `"fake"`, "selfLink": d.URL + r.URL.RequestURI(), "items": items}
	if end < len(ids) {
		ans["nextPageToken"] = fmt.Sprintf("page-%d", end)
		ans["nextLink"] = d.URL + "/drive/v2/files?pageToken=" + url.QueryEscape(ans["nextPageToken"].(string))
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(ans)
}

// meta is a file's v2 resource.
func (d *Drive) meta(f *File) map[string]any {
	var parents []any
	for _, p := range f.Parents {
		parents = append(parents, map[string]any{"kind": "drive#parentReference", "id": p, "isRoot": p == "root"})
	}
	m := map[string]any{"kind": "drive#file", "id": f.ID, "title": f.Title, "mimeType": f.MimeType,
		"labels":  map[string]any{"starred": false, "hidden": false, "trashed": f.Trashed, "restricted": false, "viewed": true},
		"parents": parents, "createdDate": "2024-01-25T12:00:00.000Z"}
	switch {
	case f.MimeType == "application/vnd.google-apps.folder":
	case f.Export != nil:
		links := map[string]any{}
		for mt := range f.Export {
			links[mt] = d.URL + "/export/" + f.ID + "?mimeType=" + url.QueryEscape(mt)
		}
		m["exportLinks"] = links
	default:
		m["downloadUrl"] = d.URL + "/download/" + f.ID
		m["fileSize"] = strconv.Itoa(len(f.Content))
	}
	return m
}

func (d *Drive) resource(w http.ResponseWriter, f *File) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_ = json.NewEncoder(w).Encode(d.meta(f))
}

func (d *Drive) insert(w http.ResponseWriter, meta map[string]any, content []byte) {
	f := &File{Title: meta["title"], Content: content}
	if t, ok := meta["title"]; !ok || t == nil {
		f.Title = "Untitled"
	}
	if mt, ok := meta["mimeType"].(string); ok && mt != "" {
		f.MimeType = mt
	} else if content != nil {
		f.MimeType = http.DetectContentType(content)
		if i := strings.IndexByte(f.MimeType, ';'); i >= 0 {
			f.MimeType = f.MimeType[:i]
		}
	} else {
		f.MimeType = "application/octet-stream"
	}
	if ps, ok := meta["parents"].([]any); ok {
		for _, p := range ps {
			pm, _ := p.(map[string]any)
			id, _ := pm["id"].(string)
			if id != "root" && d.files[id] == nil {
				apiError(w, http.StatusNotFound, "File not found: "+id)
				return
			}
			f.Parents = append(f.Parents, id)
		}
	}
	if len(f.Parents) == 0 {
		f.Parents = []string{"root"}
	}
	d.next++
	f.ID = fmt.Sprintf("id%03d", d.next)
	d.files[f.ID] = f
	d.resource(w, f)
}

func (d *Drive) upload(w http.ResponseWriter, r *http.Request) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/related" || r.URL.Query().Get("uploadType") != "multipart" {
		apiError(w, http.StatusBadRequest, "Bad multipart upload")
		return
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	var parts [][]byte
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			apiError(w, http.StatusBadRequest, "Bad multipart body")
			return
		}
		b, err := io.ReadAll(io.LimitReader(p, 64<<20))
		if err != nil {
			apiError(w, http.StatusBadRequest, "Bad multipart body")
			return
		}
		parts = append(parts, b)
	}
	if len(parts) != 2 {
		apiError(w, http.StatusBadRequest, "Multipart upload needs metadata and media")
		return
	}
	d.uploads = append(d.uploads, string(parts[0]))
	var meta map[string]any
	if err := json.Unmarshal(parts[0], &meta); err != nil {
		apiError(w, http.StatusBadRequest, "Parse Error")
		return
	}
	d.insert(w, meta, parts[1])
}

func (d *Drive) setTrashed(f *File) {
	f.Trashed = true
	for _, c := range d.files {
		for _, p := range c.Parents {
			if p == f.ID {
				d.setTrashed(c)
			}
		}
	}
}

func (d *Drive) remove(id string) {
	delete(d.files, id)
	for cid, c := range d.files {
		for _, p := range c.Parents {
			if p == id {
				d.remove(cid)
			}
		}
	}
}

// Account writes OSWorld's settings under root as a person with a Google
// account has them: evaluation_examples/settings/googledrive/ with
// settings.yml, client_secrets.json and credentials.json (the access token
// FirstToken, expired when expired), and google/settings.json for login.
func (d *Drive) Account(t testing.TB, root string, expired bool) {
	dir := filepath.Join(root, "evaluation_examples", "settings", "googledrive")
	if err := os.MkdirAll(filepath.Join(root, "evaluation_examples", "settings", "google"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings := "client_config_backend: file\nclient_config_file: evaluation_examples/settings/googledrive/client_secrets.json\n\n" +
		"save_credentials: True\nsave_credentials_backend: file\nsave_credentials_file: evaluation_examples/settings/googledrive/credentials.json\n\nget_refresh_token: True"
	secrets, _ := json.Marshal(map[string]any{"installed": map[string]any{"client_id": ClientID, "project_id": "fake-project",
		"auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": d.URL + "/token", "client_secret": ClientSecret,
		"redirect_uris": []string{"http://localhost"}}})
	expiry := time.Now().Add(time.Hour).UTC().Format("2006-01-02T15:04:05Z")
	if expired {
		expiry = time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05Z")
	}
	creds, _ := json.Marshal(map[string]any{"access_token": FirstToken, "client_id": ClientID, "client_secret": ClientSecret,
		"refresh_token": RefreshToken, "token_expiry": expiry, "token_uri": d.URL + "/token", "user_agent": nil,
		"revoke_uri": "https://oauth2.googleapis.com/revoke", "id_token": nil, "id_token_jwt": nil,
		"token_response": map[string]any{"access_token": FirstToken, "expires_in": 3599, "token_type": "Bearer"},
		"scopes":         []string{"https://www.googleapis.com/auth/drive"}, "token_info_uri": "https://oauth2.googleapis.com/tokeninfo",
		"invalid": false, "_class": "OAuth2Credentials", "_module": "oauth2client.client"})
	for name, data := range map[string][]byte{
		filepath.Join(dir, "settings.yml"):                                                []byte(settings),
		filepath.Join(dir, "client_secrets.json"):                                         secrets,
		filepath.Join(dir, "credentials.json"):                                            creds,
		filepath.Join(root, "evaluation_examples", "settings", "google", "settings.json"): []byte(`{"email": "someone@example.com", "password": "fake-password-77"}`),
	} {
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
