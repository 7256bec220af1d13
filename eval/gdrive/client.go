package gdrive

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// DefaultAPI is the base URL of Google's APIs: Drive v2 is under
// /drive/v2, its uploads under /upload/drive/v2.
const DefaultAPI = "https://www.googleapis.com"

// FolderType is the MIME type of a Drive folder.
const FolderType = "application/vnd.google-apps.folder"

// Bounds of what the client accepts from the server.
const (
	maxJSON         = 8 << 20   // one metadata answer
	maxPages        = 100       // pages of one files.list
	maxTransfer     = 512 << 20 // one download or upload
	metadataTimeout = 60 * time.Second
	transferTimeout = 10 * time.Minute
)

// ErrNotDownloadable is PyDrive's FileNotDownloadableError: the file has no
// downloadUrl and no export link for the MIME type asked.
var ErrNotDownloadable = errors.New("no downloadUrl, and no export link for the MIME type asked")

// Config says how to reach a Drive.
type Config struct {
	// Settings is the PyDrive settings file (OSWorld's settings.yml); Root is
	// where it and the paths in it are relative to (OSWorld's repository).
	Settings, Root string
	// API is the base URL of the APIs; "" is DefaultAPI.
	API string
	// HTTP is the client requests go through; nil is http.DefaultTransport
	// with no redirect of an authorised request to another host.
	HTTP *http.Client
	// Now is the clock token expiry is read with; nil is time.Now.
	Now func() time.Time
}

// Client is one Drive, authorised. It is safe for concurrent use.
type Client struct {
	settings *Settings
	client   *clientConfig
	creds    *credentials
	http     *http.Client
	api      *url.URL
	custom   bool // API is not DefaultAPI: only its host gets the token
	now      func() time.Time

	mu sync.Mutex // the credentials

	smu     sync.Mutex
	secrets []string // strings no message may hold
}

// Open reads the settings, the OAuth client and the saved credentials. It
// makes no request; a missing file is a *MissingError.
func Open(cfg Config) (*Client, error) {
	s, err := LoadSettings(cfg.Settings, cfg.Root)
	if err != nil {
		return nil, err
	}
	cc, err := s.loadClient()
	if err != nil {
		return nil, err
	}
	creds, err := loadCredentials(s.CredentialsFile)
	if err != nil {
		return nil, err
	}
	base := cfg.API
	if base == "" {
		base = DefaultAPI
	}
	api, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (api.Scheme != "https" && api.Scheme != "http") || api.Host == "" {
		return nil, fmt.Errorf("drive API URL %q: want http(s)://host", base)
	}
	cl := &Client{settings: s, client: cc, creds: creds, api: api, custom: base != DefaultAPI, now: cfg.Now}
	if cl.now == nil {
		cl.now = time.Now
	}
	cl.http = cfg.HTTP
	if cl.http == nil {
		cl.http = &http.Client{}
	}
	// A redirect keeps the request's Authorization only to the same host
	// (net/http's rule); bound the chain.
	if cl.http.CheckRedirect == nil {
		hc := *cl.http
		hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			return nil
		}
		cl.http = &hc
	}
	cl.addSecrets(cc.Secret, creds.access, creds.refresh, creds.clientSecret)
	return cl, nil
}

// File is a Drive file as files.list gives it (the fields used here).
type File struct {
	ID          string            `json:"id"`
	Title       any               `json:"title"`
	MimeType    string            `json:"mimeType"`
	DownloadURL string            `json:"downloadUrl"`
	ExportLinks map[string]string `json:"exportLinks"`
}

// List is files.list with the query q, every page, as PyDrive's
// ListFile({'q': q}).GetList() (with its Team Drive parameters).
func (cl *Client) List(ctx context.Context, q string) ([]File, error) {
	var out []File
	token := ""
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("drive: files.list %q: more than %d pages", q, maxPages)
		}
		v := url.Values{"q": {q}, "corpus": {"DEFAULT"}, "supportsTeamDrives": {"true"}, "includeTeamDriveItems": {"true"}}
		if token != "" {
			v.Set("pageToken", token)
		}
		var ans struct {
			Items         []File `json:"items"`
			NextPageToken string `json:"nextPageToken"`
		}
		if err := cl.call(ctx, "files.list", http.MethodGet, cl.endpoint("/drive/v2/files", v), nil, "", &ans); err != nil {
			return nil, err
		}
		out = append(out, ans.Items...)
		if ans.NextPageToken == "" {
			return out, nil
		}
		token = ans.NextPageToken
	}
}

// CreateFolder is files.insert of a folder titled title in the folder
// parent ("" or "root": the Drive's root, with no parents sent, as
// OSWorld's mkdir_in_googledrive does).
func (cl *Client) CreateFolder(ctx context.Context, title, parent string) (File, error) {
	meta := map[string]any{"title": title, "mimeType": FolderType}
	if parent != "" && parent != "root" {
		meta["parents"] = []map[string]string{{"id": parent}}
	}
	body, err := json.Marshal(meta)
	if err != nil {
		return File{}, err
	}
	var f File
	err = cl.call(ctx, "files.insert", http.MethodPost, cl.endpoint("/drive/v2/files", url.Values{"supportsTeamDrives": {"true"}}),
		func() io.Reader { return bytes.NewReader(body) }, "application/json", &f)
	return f, err
}

// Upload is files.insert with content (a multipart upload): metadata is
// the file's JSON resource as the caller gives it, the content local's.
func (cl *Client) Upload(ctx context.Context, metadata json.RawMessage, local string) (File, error) {
	fi, err := os.Stat(local)
	if err != nil {
		return File{}, err
	}
	if fi.Size() > maxTransfer {
		return File{}, fmt.Errorf("drive: upload: %s is larger than %d bytes", filepath.Base(local), maxTransfer)
	}
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	boundary := "deskpilot" + hex.EncodeToString(rnd[:])
	head := "--" + boundary + "\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" + string(metadata) +
		"\r\n--" + boundary + "\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: binary\r\n\r\n"
	tail := "\r\n--" + boundary + "--\r\n"
	var open []*os.File
	defer func() {
		for _, f := range open {
			f.Close()
		}
	}()
	body := func() io.Reader {
		f, err := os.Open(local)
		if err != nil {
			return errReader{err}
		}
		open = append(open, f)
		return io.MultiReader(strings.NewReader(head), io.LimitReader(f, maxTransfer), strings.NewReader(tail))
	}
	var out File
	err = cl.call(ctx, "files.insert (upload)", http.MethodPost,
		cl.endpoint("/upload/drive/v2/files", url.Values{"uploadType": {"multipart"}, "supportsTeamDrives": {"true"}}),
		body, "multipart/related; boundary="+boundary, &out)
	return out, err
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Delete is files.delete: the file is gone, not in the trash.
func (cl *Client) Delete(ctx context.Context, id string) error {
	return cl.call(ctx, "files.delete", http.MethodDelete,
		cl.endpoint("/drive/v2/files/"+url.PathEscape(id), url.Values{"supportsTeamDrives": {"true"}}), nil, "", nil)
}

// Trash is files.trash.
func (cl *Client) Trash(ctx context.Context, id string) error {
	return cl.call(ctx, "files.trash", http.MethodPost,
		cl.endpoint("/drive/v2/files/"+url.PathEscape(id)+"/trash", url.Values{"supportsTeamDrives": {"true"}}), nil, "", &struct{}{})
}

// Download saves f's content as dst, as PyDrive's GetContentFile(dst,
// mimetype): from its downloadUrl, else from its export link for mimetype,
// else ErrNotDownloadable.
func (cl *Client) Download(ctx context.Context, f File, mimetype, dst string) error {
	link := f.DownloadURL
	if link == "" {
		link = f.ExportLinks[mimetype]
	}
	if link == "" {
		return ErrNotDownloadable
	}
	u, err := url.Parse(link)
	if err != nil || !cl.trusted(u) {
		return fmt.Errorf("drive: download: %s is not a host of the Drive API; the credentials are not sent there", cl.hostOf(link))
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if err := cl.call(ctx, "download", http.MethodGet, link, nil, "", tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// endpoint is the API URL of path with query v.
func (cl *Client) endpoint(path string, v url.Values) string {
	u := *cl.api
	u.Path = strings.TrimRight(u.Path, "/") + path
	u.RawQuery = v.Encode()
	return u.String()
}

// trusted says whether the access token may be sent to u: the API's own
// host, or with Google's API, a Google host over https.
func (cl *Client) trusted(u *url.URL) bool {
	if u.Host == cl.api.Host && u.Scheme == cl.api.Scheme {
		return true
	}
	if cl.custom || u.Scheme != "https" {
		return false
	}
	h := strings.ToLower(u.Hostname())
	for _, d := range []string{".googleapis.com", ".google.com", ".googleusercontent.com"} {
		if strings.HasSuffix(h, d) {
			return true
		}
	}
	return false
}

// call does one authorised request. body, when not nil, makes a fresh body
// for each try. out is a JSON destination, an *os.File for content, or nil
// (no content wanted). An expired token is refreshed first, and a 401
// answer refreshes it and tries once more, as oauth2client does.
func (cl *Client) call(ctx context.Context, what, method, link string, body func() io.Reader, ctype string, out any) error {
	timeout := metadataTimeout
	if _, ok := out.(*os.File); ok || strings.HasPrefix(ctype, "multipart/") {
		timeout = transferTimeout
	}
	for try := 0; ; try++ {
		token, err := cl.token(ctx, try > 0)
		if err != nil {
			return fmt.Errorf("drive: %s: %w", what, err)
		}
		status, err := cl.once(ctx, timeout, method, link, token, body, ctype, out)
		if status == http.StatusUnauthorized && try == 0 {
			continue
		}
		if err != nil {
			return fmt.Errorf("drive: %s: %s", what, cl.redact(err.Error()))
		}
		return nil
	}
}

// token is the access token, refreshed first when expired or when force.
func (cl *Client) token(ctx context.Context, force bool) (string, error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if force || cl.creds.expired(cl.now()) {
		if err := cl.refreshToken(ctx); err != nil {
			return "", err
		}
	}
	return cl.creds.access, nil
}

// once does one request and reads its answer into out.
func (cl *Client) once(ctx context.Context, timeout time.Duration, method, link, token string, body func() io.Reader, ctype string, out any) (int, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = body()
	}
	req, err := http.NewRequestWithContext(rctx, method, link, rd)
	if err != nil {
		return 0, errors.New("bad request URL")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // not the URL again: the message names the host below
		}
		return 0, fmt.Errorf("%s %s: %v", method, cl.hostOf(link), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxJSON))
		return resp.StatusCode, fmt.Errorf("HTTP %s%s", resp.Status, apiMessage(data))
	}
	switch o := out.(type) {
	case nil:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxJSON))
		return resp.StatusCode, nil
	case *os.File:
		n, err := io.Copy(o, io.LimitReader(resp.Body, maxTransfer+1))
		if err != nil {
			return resp.StatusCode, fmt.Errorf("reading the content: %v", err)
		}
		if n > maxTransfer {
			return resp.StatusCode, fmt.Errorf("the content is larger than %d bytes", maxTransfer)
		}
		return resp.StatusCode, nil
	default:
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxJSON+1))
		if err != nil {
			return resp.StatusCode, fmt.Errorf("reading the answer: %v", err)
		}
		if len(data) > maxJSON {
			return resp.StatusCode, fmt.Errorf("the answer is larger than %d bytes", maxJSON)
		}
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("the answer is not the JSON expected: %v", err)
		}
		return resp.StatusCode, nil
	}
}

// apiMessage is ": message" of Google's JSON error answer, cut short.
func apiMessage(data []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		return ": " + cut(e.Error.Message, 200)
	}
	return ""
}

// hostOf is the scheme and host of a URL, for messages (never its query).
func (cl *Client) hostOf(link string) string {
	u, err := url.Parse(link)
	if err != nil || u.Host == "" {
		return "(a URL)"
	}
	return u.Scheme + "://" + u.Host
}

// redact replaces every secret in s.
func (cl *Client) redact(s string) string {
	cl.smu.Lock()
	defer cl.smu.Unlock()
	for _, sec := range cl.secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

func (cl *Client) addSecrets(ss ...string) {
	cl.smu.Lock()
	defer cl.smu.Unlock()
	cl.secrets = append(cl.secrets, ss...)
}

// cut shortens s to about n bytes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
