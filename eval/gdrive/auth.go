package gdrive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"deskpilot/internal/smallfile"
)

// expiryFormat is how oauth2client writes token_expiry.
const expiryFormat = "2006-01-02T15:04:05Z"

// defaultTokenURI is Google's token endpoint, oauth2client's default.
const defaultTokenURI = "https://oauth2.googleapis.com/token"

// ErrCredentials is wrapped by the errors the saved credentials cause: no
// refresh token to renew an expired access token with, or a refresh the
// token endpoint refuses as revoked or unknown (invalid_grant,
// invalid_client, unauthorized_client). Signing in again makes new ones.
var ErrCredentials = errors.New("the saved credentials do not sign in")

// credError is an error of the credentials (ErrCredentials).
type credError struct{ msg string }

func (e credError) Error() string        { return e.msg }
func (e credError) Is(target error) bool { return target == ErrCredentials }

// credentials are the saved tokens of credentials.json (oauth2client's
// OAuth2Credentials.to_json). raw keeps every field, so that writing them
// back changes only what a refresh changes.
type credentials struct {
	file         string
	raw          map[string]json.RawMessage
	access       string
	refresh      string
	expiry       time.Time // zero: no expiry known (oauth2client: not expired)
	tokenURI     string
	clientID     string
	clientSecret string
	invalid      bool
}

// loadCredentials reads credentials.json; a missing file is a *MissingError
// (PyDrive would start an interactive sign-in).
func loadCredentials(file string) (*credentials, error) {
	data, err := smallfile.Read(file, maxSecretsFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &MissingError{What: "credentials file", File: file, Why: "PyDrive would start an interactive sign-in; sign in once with OSWorld's settings to make it"}
	}
	if err != nil {
		return nil, err
	}
	c := &credentials{file: file}
	if err := json.Unmarshal(data, &c.raw); err != nil || c.raw == nil {
		return nil, fmt.Errorf("%s: not a JSON object", file) // no detail: it holds the tokens
	}
	str := func(k string) string {
		var s string
		if v, ok := c.raw[k]; ok {
			_ = json.Unmarshal(v, &s) // null or another type: ""
		}
		return s
	}
	c.access, c.refresh = str("access_token"), str("refresh_token")
	c.tokenURI, c.clientID, c.clientSecret = str("token_uri"), str("client_id"), str("client_secret")
	if v, ok := c.raw["invalid"]; ok {
		_ = json.Unmarshal(v, &c.invalid)
	}
	if e := str("token_expiry"); e != "" {
		t, err := time.Parse(expiryFormat, e)
		if err != nil {
			t, err = time.Parse(time.RFC3339Nano, e)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: token_expiry %q is not a time", file, e)
		}
		c.expiry = t
	}
	if c.access == "" && c.refresh == "" {
		return nil, fmt.Errorf("%s: no access_token and no refresh_token", file)
	}
	return c, nil
}

// expired is oauth2client's access_token_expired: invalid, or at or past
// the expiry (no expiry: never).
func (c *credentials) expired(now time.Time) bool {
	return c.invalid || c.access == "" || !c.expiry.IsZero() && !now.Before(c.expiry)
}

// tokenAnswer is the token endpoint's JSON answer.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	ExpiresIn    *int64 `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

// refreshToken gets a new access token with the refresh token at the
// credentials' token_uri (oauth2client's _do_refresh_request: a form POST of
// grant_type, client_id, client_secret, refresh_token) and, with save, writes
// the credentials back.
func (cl *Client) refreshToken(ctx context.Context) error {
	c := cl.creds
	if c.refresh == "" {
		return credError{fmt.Sprintf("the access token of %s expired and it has no refresh_token (PyDrive would start an interactive sign-in)", c.file)}
	}
	id, secret := c.clientID, c.clientSecret
	if id == "" || secret == "" {
		id, secret = cl.client.ID, cl.client.Secret
	}
	uri := c.tokenURI
	if uri == "" {
		uri = cl.client.TokenURI
	}
	if uri == "" {
		uri = defaultTokenURI
	}
	if _, err := url.Parse(uri); err != nil || !strings.HasPrefix(uri, "https://") && !strings.HasPrefix(uri, "http://") {
		return fmt.Errorf("%s: token_uri is not an http(s) URL", c.file)
	}
	form := url.Values{"grant_type": {"refresh_token"}, "client_id": {id}, "client_secret": {secret}, "refresh_token": {c.refresh}}
	rctx, cancel := context.WithTimeout(ctx, metadataTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, uri, strings.NewReader(form.Encode()))
	if err != nil {
		return errors.New("token refresh: bad request") // the URL is the user's, the body secret
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := cl.http.Do(req)
	if err != nil {
		return fmt.Errorf("token refresh at %s: %s", cl.hostOf(uri), cl.redact(err.Error()))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJSON+1))
	if err != nil {
		return fmt.Errorf("token refresh: %s", cl.redact(err.Error()))
	}
	if len(body) > maxJSON {
		return fmt.Errorf("token refresh: answer larger than %d bytes", maxJSON)
	}
	var a tokenAnswer
	jsonErr := json.Unmarshal(body, &a)
	if resp.StatusCode != http.StatusOK {
		why := resp.Status
		if jsonErr == nil && a.Error != "" {
			why += ": " + a.Error
			if a.Description != "" {
				why += ": " + cut(a.Description, 200)
			}
		}
		msg := "token refresh failed: " + cl.redact(why)
		switch a.Error {
		case "invalid_grant", "invalid_client", "unauthorized_client":
			return credError{msg + " (sign in again to renew " + filepath.Base(c.file) + ")"}
		}
		return errors.New(msg)
	}
	if jsonErr != nil || a.AccessToken == "" {
		return errors.New("token refresh: the answer is not JSON with an access_token")
	}
	now := cl.now()
	c.access, c.invalid = a.AccessToken, false
	c.expiry = time.Time{}
	if a.ExpiresIn != nil {
		c.expiry = now.Add(time.Duration(*a.ExpiresIn) * time.Second).UTC().Truncate(time.Second)
	}
	if a.RefreshToken != "" {
		c.refresh = a.RefreshToken
	}
	cl.addSecrets(a.AccessToken, a.RefreshToken)
	c.set("access_token", c.access)
	c.set("refresh_token", c.refresh)
	if c.expiry.IsZero() {
		c.raw["token_expiry"] = json.RawMessage("null")
	} else {
		c.set("token_expiry", c.expiry.Format(expiryFormat))
	}
	c.raw["invalid"] = json.RawMessage("false")
	if json.Valid(body) {
		c.raw["token_response"] = json.RawMessage(body)
	}
	if cl.settings.Save {
		if err := c.save(); err != nil {
			return err
		}
	}
	return nil
}

func (c *credentials) set(k, v string) {
	b, _ := json.Marshal(v)
	c.raw[k] = b
}

// save writes the credentials back atomically (a new file renamed over the
// old one), readable by its owner only.
func (c *credentials) save() error {
	data, err := json.Marshal(c.raw)
	if err != nil {
		return err
	}
	dir := filepath.Dir(c.file)
	f, err := os.CreateTemp(dir, ".credentials-*.json")
	if err != nil {
		return fmt.Errorf("save credentials: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone after the rename
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, c.file)
	}
	if err != nil {
		return fmt.Errorf("save credentials %s: %w", c.file, err)
	}
	return nil
}
