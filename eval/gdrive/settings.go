// Package gdrive is a small Google Drive client for what OSWorld's tasks do
// with their author's Drive through PyDrive: list files with a query (every
// page), create folders, upload a file, delete or trash files, and download a
// file's content. It speaks Drive API v2 (the version PyDrive uses: files have
// a "title" and "parents": [{"id"}]) and authorises as PyDrive does with
// OSWorld's settings.yml: an OAuth client (client_secrets.json) and saved
// credentials (credentials.json, in oauth2client's JSON), refreshing an
// expired access token at the credentials' token_uri and saving the new one
// back.
//
// Secrets (the client secret, the access and refresh tokens) stay in this
// package: no error, log line or value it returns holds them.
package gdrive

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"deskpilot/internal/smallfile"
)

// Limits of the files this package reads.
const (
	maxSettingsFile = 64 << 10
	maxSecretsFile  = 64 << 10
)

// MissingError is a settings, client or credentials file that is not there:
// the task needs credentials its runner did not give.
type MissingError struct {
	What string // "settings file", "OAuth client file", "credentials file", ...
	File string
	Why  string // what PyDrive would do instead, when it says more
}

func (e *MissingError) Error() string {
	s := e.What + " " + e.File + " not found"
	if e.Why != "" {
		s += " (" + e.Why + ")"
	}
	return s
}

// Settings is what a PyDrive settings file (settings.yml) says, with its
// relative paths resolved.
type Settings struct {
	// File is the settings file itself.
	File string
	// ClientFile is client_config_file, the OAuth client (client_secrets.json),
	// when client_config_backend is "file" (PyDrive's default).
	ClientFile string
	// client is client_config, when client_config_backend is "settings".
	client *clientConfig
	// CredentialsFile is save_credentials_file: the saved tokens.
	CredentialsFile string
	// Save is save_credentials: a refreshed token is written back.
	Save bool
}

// LoadSettings reads a PyDrive settings file. file and the paths in it are
// taken from root when relative, as OSWorld runs PyDrive with its repository
// as the working folder. A missing file is a *MissingError; so is a settings
// file with no saved credentials, for which PyDrive would start an
// interactive sign-in in a browser.
func LoadSettings(file, root string) (*Settings, error) {
	file = resolve(file, root)
	data, err := smallfile.Read(file, maxSettingsFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &MissingError{What: "settings file", File: file}
	}
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	s := &Settings{File: file}
	str := func(key, def string) (string, error) {
		v, ok := raw[key]
		if !ok || v == nil {
			return def, nil
		}
		t, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%s: %s must be a string", file, key)
		}
		return t, nil
	}
	backend, err := str("client_config_backend", "file")
	if err != nil {
		return nil, err
	}
	switch backend {
	case "file":
		name, err := str("client_config_file", "client_secrets.json")
		if err != nil {
			return nil, err
		}
		s.ClientFile = resolve(name, root)
	case "settings":
		m, ok := raw["client_config"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: client_config_backend settings needs a client_config mapping", file)
		}
		cc := &clientConfig{}
		cc.ID, _ = m["client_id"].(string)
		cc.Secret, _ = m["client_secret"].(string)
		cc.TokenURI, _ = m["token_uri"].(string)
		if cc.ID == "" || cc.Secret == "" {
			return nil, fmt.Errorf("%s: client_config needs client_id and client_secret", file)
		}
		s.client = cc
	default:
		return nil, fmt.Errorf("%s: client_config_backend %q: want file or settings", file, backend)
	}
	if v, ok := raw["save_credentials"]; ok {
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%s: save_credentials must be true or false", file)
		}
		s.Save = b
	}
	credBackend, err := str("save_credentials_backend", "")
	if err != nil {
		return nil, err
	}
	cred, err := str("save_credentials_file", "")
	if err != nil {
		return nil, err
	}
	if !s.Save || credBackend != "file" || cred == "" {
		// PyDrive keeps no credentials then and signs in with a browser on
		// every run, which nobody answers here.
		return nil, &MissingError{What: "credentials file", File: "(none: " + file + " needs save_credentials: True, save_credentials_backend: file and save_credentials_file)",
			Why: "PyDrive would start an interactive sign-in"}
	}
	s.CredentialsFile = resolve(cred, root)
	return s, nil
}

// Check reads the settings file and the files it names, as a client would,
// without any request: a missing one is a *MissingError.
func Check(settingsFile, root string) error {
	s, err := LoadSettings(settingsFile, root)
	if err != nil {
		return err
	}
	if _, err := s.loadClient(); err != nil {
		return err
	}
	_, err = loadCredentials(s.CredentialsFile)
	return err
}

// clientConfig is the OAuth client of client_secrets.json.
type clientConfig struct {
	ID, Secret, TokenURI string
}

// loadClient reads the OAuth client: client_secrets.json's "installed" or
// "web" object, as oauth2client reads it.
func (s *Settings) loadClient() (*clientConfig, error) {
	if s.client != nil {
		return s.client, nil
	}
	data, err := smallfile.Read(s.ClientFile, maxSecretsFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &MissingError{What: "OAuth client file", File: s.ClientFile}
	}
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object", s.ClientFile) // no detail: it holds the secret
	}
	raw, ok := top["installed"]
	if !ok {
		raw, ok = top["web"]
	}
	if !ok || len(top) != 1 {
		return nil, fmt.Errorf("%s: want one \"installed\" or \"web\" client object", s.ClientFile)
	}
	var c struct {
		ID       string `json:"client_id"`
		Secret   string `json:"client_secret"`
		TokenURI string `json:"token_uri"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.ID == "" || c.Secret == "" {
		return nil, fmt.Errorf("%s: the client needs client_id and client_secret strings", s.ClientFile)
	}
	return &clientConfig{ID: c.ID, Secret: c.Secret, TokenURI: c.TokenURI}, nil
}

// resolve makes p absolute, from root when relative.
func resolve(p, root string) string {
	if strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(h, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	return filepath.Clean(p)
}
