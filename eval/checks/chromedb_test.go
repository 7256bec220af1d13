package checks

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sqliteRows is what Python's sqlite3 module (the real SQLite) returns for
// query on the database at p, as JSON with blobs in hex.
func sqliteRows(t *testing.T, p, query string) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	out, err := exec.Command(py, "-c", `import sqlite3, sys, json
rows = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True).execute(sys.argv[2]).fetchall()
print(json.dumps([[v.hex() if isinstance(v, bytes) else v for v in r] for r in rows], ensure_ascii=False))`, p, query).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 sqlite3: %v: %s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// rowsJSON is rows as sqliteRows prints them.
func rowsJSON(t *testing.T, rows any) string {
	t.Helper()
	var conv func(v any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case []byte:
			return hex.EncodeToString(x)
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = conv(e)
			}
			return out
		}
		return v
	}
	b, err := json.Marshal(conv(rows))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), ",", ", ")
}

// TestChromeDatabases browses a local site with a real Chromium (pages
// visited, a cookie set), stops it, and reads its History and Cookies
// databases: the history getter's rows, and the reader's rows of every table
// the getters read, equal to what SQLite itself (Python's sqlite3) returns.
func TestChromeDatabases(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/shop" {
			http.SetCookie(w, &http.Cookie{Name: "cart", Value: "3 items", Path: "/", MaxAge: 3600})
		}
		fmt.Fprintf(w, "<!DOCTYPE html><title>Page %s</title><p>%s", r.URL.Path, strings.Repeat("x", 5000))
	}))
	defer site.Close()
	home := t.TempDir()
	profile := filepath.Join(home, ".config", "chromium")
	c := startChromiumIn(t, profile, site.URL+"/news")
	c.waitURL(t, "", site.URL+"/news")
	c.open(t, site.URL+"/shop")
	c.open(t, site.URL+"/news?page=2")
	c.closeBrowser(t)
	hist := filepath.Join(profile, "Default", "History")
	cookies := filepath.Join(profile, "Default", "Cookies")
	for _, p := range []string{hist, cookies} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("chromium wrote no %s: %v", p, err)
		}
	}
	env := dirEnv{home: home, cache: t.TempDir()}
	v, err := Get(t.Context(), env, map[string]any{"type": "history", "dest": "History"})
	if err != nil {
		t.Fatal(err)
	}
	got, want := rowsJSON(t, v), sqliteRows(t, hist, "SELECT url, title, last_visit_time FROM urls")
	if got != want {
		t.Errorf("history =\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(got, site.URL+"/shop") || !strings.Contains(got, "Page /news") {
		t.Errorf("history lacks the visited pages: %s", got)
	}
	for _, q := range []struct{ file, table string }{{cookies, "cookies"}, {hist, "visits"}, {hist, "keyword_search_terms"}, {hist, "meta"}} {
		db, err := openSQLite(q.file)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.rows(q.table, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rowsJSON(t, rows), sqliteRows(t, q.file, "SELECT * FROM "+q.table); got != want {
			t.Errorf("%s rows =\n%s\nwant\n%s", q.table, got, want)
		}
	}
	v, err = Get(t.Context(), env, map[string]any{"type": "cookie_data", "dest": "Cookies"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsJSON(t, v); !strings.Contains(got, `"cart"`) {
		t.Errorf("cookie_data lacks the cart cookie: %s", got)
	}
	m, _ := Lookup("is_cookie_deleted")
	s, err := m.Fn(t.Context(), Call{Result: v, Expected: map[string]any{"type": "domains", "domains": []any{"127.0.0.1"}}})
	if err != nil || s.Value != 0 {
		t.Errorf("is_cookie_deleted(127.0.0.1) = %v (%s), %v; want 0: the cookie is there", s.Value, s.Note, err)
	}
	// No profile: None, as OSWorld's getters give when the copy fails.
	empty := dirEnv{home: t.TempDir(), cache: t.TempDir()}
	for _, typ := range []string{"cookie_data", "history"} {
		if v, err := Get(t.Context(), empty, map[string]any{"type": typ, "dest": "db"}); v != nil || err != nil {
			t.Errorf("%s without a profile = %v, %v; want None", typ, v, err)
		}
	}
}

// closeBrowser closes Chromium as its menu's Exit does (DevTools'
// Browser.close), so it saves its databases, and waits for it to exit.
func (c *chromium) closeBrowser(t *testing.T) {
	t.Helper()
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	if err := json.Unmarshal(c.do(t, "GET", "/json/version"), &v); err != nil {
		t.Fatal(err)
	}
	s, err := dialCDP(t.Context(), c.env(t), v.WS)
	if err != nil {
		t.Fatal(err)
	}
	s.call(t.Context(), "Browser.close", map[string]any{}) //nolint:errcheck // the browser may close before answering
	s.close()
	for deadline := time.Now().Add(60 * time.Second); !c.app.Exited(); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("chromium did not exit after Browser.close")
		}
	}
}

// TestSQLiteReader reads every table of a database SQLite wrote (make.sh:
// overflow pages, a rowid alias, columns added after rows were written,
// blobs, floats) and compares with SQLite's own rows.
func TestSQLiteReader(t *testing.T) {
	db, err := openSQLite(td("sqlite-sample.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		table string
		cols  []string
		sql   string
	}{
		{"urls", nil, "SELECT * FROM urls"},
		{"urls", []string{"title", "id", "note"}, "SELECT title, id, note FROM urls"},
		{"blobs", nil, "SELECT * FROM blobs"},
	} {
		rows, err := db.rows(q.table, q.cols)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rowsJSON(t, rows), sqliteRows(t, td("sqlite-sample.db"), q.sql); got != want {
			t.Errorf("%s: rows differ from SQLite's (%d and %d bytes of JSON)", q.sql, len(got), len(want))
		}
	}
	if _, err := db.rows("nope", nil); err == nil {
		t.Error("a missing table gave no error")
	}
	if _, err := db.rows("urls", []string{"nope"}); err == nil {
		t.Error("a missing column gave no error")
	}
}

// FuzzSQLite: a damaged database file gives an error or rows, never a panic
// or a hang.
func FuzzSQLite(f *testing.F) {
	data, err := os.ReadFile(td("sqlite-sample.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:4096], 200, byte(0))
	f.Add(data, 5000, byte(0xff))
	f.Add(data, 30, byte(0x05))
	f.Fuzz(func(t *testing.T, db []byte, at int, b byte) {
		db = append([]byte(nil), db...)
		if len(db) > 0 {
			db[(at%len(db)+len(db))%len(db)] = b
		}
		p := filepath.Join(t.TempDir(), "x.db")
		if err := os.WriteFile(p, db, 0o600); err != nil {
			t.Fatal(err)
		}
		d, err := openSQLite(p)
		if err != nil {
			return
		}
		d.rows("urls", nil)  //nolint:errcheck // any error is fine
		d.rows("blobs", nil) //nolint:errcheck
	})
}
