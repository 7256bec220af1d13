//go:build unix

package inspect_test

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"deskpilot/actions/inspect"
)

// TestSpecialFilesAreRefused: a named pipe (read directly, through a link,
// or as the "archive" of a member path) is refused before it is opened, so
// inspect_file cannot block on it (issue 12, item 4).
func TestSpecialFilesAreRefused(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "pipe.txt")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink(fifo, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	in := inspect.New(inspect.Options{Roots: []string{root}, Home: t.TempDir(), PDF: pdfEngine})
	for _, p := range []string{"pipe.txt", "link.txt", "pipe.txt/member.txt"} {
		t.Run(p, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := in.Inspect(t.Context(), filepath.Join(root, p), "")
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, inspect.ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
					t.Errorf("error = %v, want ErrNotRegular naming a named pipe", err)
				}
			case <-time.After(10 * time.Second):
				// Unblock the reader so the test can end, then fail.
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatal("inspect_file blocked on a named pipe")
			}
		})
	}
	t.Run("device", func(t *testing.T) {
		in := inspect.New(inspect.Options{Roots: []string{"/dev"}, Home: t.TempDir()})
		if _, err := in.Inspect(t.Context(), "/dev/zero", ""); !errors.Is(err, inspect.ErrNotRegular) {
			t.Errorf("/dev/zero: error = %v, want ErrNotRegular", err)
		}
	})
}

// TestReadStopsOnCancel: a read that hangs (a stuck network mount) ends
// within a second of the caller's cancel, and MaxTime bounds it too.
func TestReadStopsOnCancel(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "slow.txt"), []byte("text"), 0o644)
	in := inspect.New(inspect.Options{Roots: []string{root}, Home: t.TempDir()})
	release := make(chan struct{})
	defer close(release)
	inspect.SetOpenForTest(in, func(p string, max int64) ([]byte, error) {
		<-release // never answers while the test runs, whatever ctx says
		return nil, errors.New("released")
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err := in.Inspect(ctx, filepath.Join(root, "slow.txt"), "")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("the read ended %s after the cancel", waited)
	}
	short := inspect.New(inspect.Options{Roots: []string{root}, Home: t.TempDir(), MaxTime: 200 * time.Millisecond})
	inspect.SetOpenForTest(short, func(p string, max int64) ([]byte, error) {
		<-release
		return nil, errors.New("released")
	})
	_, err = short.Inspect(t.Context(), filepath.Join(root, "slow.txt"), "")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "longer than the 200ms allowed") {
		t.Errorf("error = %v, want the time limit", err)
	}
}

// TestCredentialFiles: credential stores, keys, histories and .env files
// are refused by default, a private key is refused by its content wherever
// it lies (also inside a zip), and Allow lets the person share one
// (issue 12, item 6).
func TestCredentialFiles(t *testing.T) {
	h := t.TempDir()
	files := map[string]string{
		".git-credentials":              "https://user:ghp_token@github.com",
		".config/gh/hosts.yml":          "github.com:\n  oauth_token: gho_secret",
		".config/gcloud/credentials.db": "token",
		".npmrc":                        "//registry.npmjs.org/:_authToken=npm_secret",
		".netrc":                        "machine x login u password p",
		".pypirc":                       "[pypi]\npassword = pypi-secret",
		".bash_history":                 "export TOKEN=secret",
		".zsh_history":                  ": 1:0;export TOKEN=secret",
		".mozilla/firefox/logins.json":  "{}",
		".config/google-chrome/Default/Login Data": "db",
		".docker/config.json":                      `{"auths":{}}`,
		".kube/config":                             "token: x",
		".aws/credentials":                         "aws_secret_access_key=x",
		".azure/accessTokens.json":                 "[]",
		"project/.env":                             "API_KEY=secret",
		"project/.env.production":                  "API_KEY=secret",
		"project/.env.example":                     "API_KEY=",
		"work/deploy/id_ed25519":                   "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n",
		"work/server.key":                          "\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n",
		"work/cert.pem":                            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
		"Documents/notes.txt":                      "shopping list",
	}
	for name, body := range files {
		p := filepath.Join(h, name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	in := inspect.New(inspect.Options{Home: h, ConfigDir: filepath.Join(h, ".config")})
	for name, body := range files {
		t.Run(name, func(t *testing.T) {
			res, err := in.Read(t.Context(), inspect.Request{Path: "~/" + name})
			shared := name == "project/.env.example" || name == "work/cert.pem" || name == "Documents/notes.txt"
			if shared {
				if err != nil || !strings.Contains(res.Text, strings.TrimSpace(strings.Split(body, "\n")[0])) {
					t.Errorf("Read = %q, %v; want the text", res.Text, err)
				}
				if !res.UnderHome {
					t.Error("UnderHome = false for a file in the home folder")
				}
				return
			}
			if !errors.Is(err, inspect.ErrDenied) {
				t.Fatalf("error = %v, want ErrDenied", err)
			}
			if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "PRIVATE KEY-----\n") {
				t.Errorf("error leaks content: %v", err)
			}
		})
	}
	t.Run("allowed by the person", func(t *testing.T) {
		in := inspect.New(inspect.Options{Home: h, ConfigDir: filepath.Join(h, ".config"), Allow: []string{"~/.aws"}})
		if got, err := in.Inspect(t.Context(), "~/.aws/credentials", ""); err != nil || !strings.Contains(got, "aws_secret_access_key") {
			t.Errorf("allowed file: %q, %v", got, err)
		}
		if _, err := in.Inspect(t.Context(), "~/.ssh/../.git-credentials", ""); !errors.Is(err, inspect.ErrDenied) {
			t.Errorf("Allow of ~/.aws opened ~/.git-credentials: %v", err)
		}
	})
	t.Run("private key in a zip", func(t *testing.T) {
		zipPath := filepath.Join(h, "Documents", "keys.zip")
		writeZip(t, zipPath, map[string]string{"readme.txt": "deploy keys", "deploy.key": files["work/server.key"], ".env": "API_KEY=secret"})
		got, err := in.Inspect(t.Context(), zipPath, "")
		if err != nil || !strings.Contains(got, "deploy keys") || strings.Contains(got, "PRIVATE KEY") || strings.Contains(got, "API_KEY") {
			t.Errorf("archive shows a key or .env inline:\n%s\n%v", got, err)
		}
		if _, err := in.Inspect(t.Context(), zipPath+"/deploy.key", ""); !errors.Is(err, inspect.ErrDenied) {
			t.Errorf("key member: error = %v, want ErrDenied", err)
		}
	})
	t.Run("outside home", func(t *testing.T) {
		other := t.TempDir()
		os.WriteFile(filepath.Join(other, "a.txt"), []byte("a"), 0o644)
		in := inspect.New(inspect.Options{Home: h, Roots: []string{other, h}})
		res, err := in.Read(t.Context(), inspect.Request{Path: filepath.Join(other, "a.txt")})
		if err != nil || res.UnderHome {
			t.Errorf("Read outside home: UnderHome = %v, %v", res.UnderHome, err)
		}
	})
}

// writeZip writes an archive of the given members.
func writeZip(t *testing.T, p string, members map[string]string) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range members {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}
