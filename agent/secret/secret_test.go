package secret

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

const canary = "I_AM_SECRET_VALUE_42xyz"

func TestTextHidesEveryFragment(t *testing.T) {
	r := New(map[string]string{"github": canary}, "sk-proj-AbCdEf0123456789")
	rev := reverse(canary)
	for _, c := range []struct{ in, want string }{
		{"token " + canary + " end", "token [secret:github] end"},
		{"mid-typing: " + canary[:9], "mid-typing: [secret:github]"},
		{"ocr: " + canary[3:21], "ocr: [secret:github]"},
		{"glued" + canary + "glued", "glued[secret:github]glued"}, // inside a word: "glued" is no fragment
		{"reversed " + rev, "reversed [secret:github]"},
		{"joined " + canary[:10] + "-" + canary[10:], "joined [secret:github]-[secret:github]"},
		{"twice " + canary + canary, "twice [secret:github]"},
		{"key sk-proj-AbCdEf0123456789.", "key [redacted]."},
		{"five I_AM_ is not six", "five I_AM_ is not six"},
		{"", ""},
	} {
		if got := r.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for i := 0; i+FragmentLen <= len(canary); i++ {
		for _, v := range []string{canary, rev} {
			frag := v[i : i+FragmentLen]
			if got := r.Text("x " + frag + " y"); strings.Contains(got, frag) {
				t.Errorf("fragment %q survives: %q", frag, got)
			}
		}
	}
}

func TestShortValuesAreWholeWords(t *testing.T) {
	r := New(map[string]string{"pin": "4711"}, "x", "EMPTY")
	for _, c := range []struct{ in, want string }{
		{"the pin is 4711.", "the pin is [secret:pin]."},
		{"reversed 1174 too", "reversed [secret:pin] too"},
		{"47112 is another number", "47112 is another number"},
		{"the x axis, EMPTY", "the x axis, EMPTY"},
	} {
		if got := r.Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTextKeepsUTF8Whole(t *testing.T) {
	const v = "Grüße東京✓secret"
	r := New(map[string]string{"u": v})
	for i := range len(v) - FragmentLen {
		s := "«" + v[i:] + "»"
		got := r.Text(s)
		if !strings.Contains(got, "[secret:u]") && len(v[i:]) >= FragmentLen {
			t.Errorf("Text(%q) = %q", s, got)
		}
		if !utf8Valid(got) {
			t.Errorf("Text(%q) = %q: not UTF-8", s, got)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestReadBack(t *testing.T) {
	r := New(map[string]string{"pw": "hunter2-Secret-9"})
	r.AddReadBack("pw", "••••••••")
	r.AddReadBack("pw", "prefix-hunter2-Secret-9")
	if got := r.Text("bullets •••••••• stay; prefix-hun shows"); got != "bullets •••••••• stay; [secret:pw] shows" {
		t.Errorf("got %q", got)
	}
	if !Masked("●●●●") || Masked("") || Masked("ab•") {
		t.Error("Masked")
	}
}

func TestFindAndSendChecks(t *testing.T) {
	r := New(map[string]string{"github": canary}, "sk-live-0123456789abcdef")
	for _, c := range []struct {
		in   string
		want string
	}{
		{"http://x/?d=" + canary, "github"},
		{"http://x/?d=" + url.QueryEscape(canary[2:12]), "github"},
		{"http://x/?d=" + url.QueryEscape(url.QueryEscape(canary)), "github"},
		{"http://x/?d=" + url.QueryEscape(Placeholder("github")), "github"},
		{"http://x/?d=" + reverse(canary), "github"},
		{"Bearer sk-live-0123456789abcdef", ""},
		{"http://x/?q=weather", ""},
	} {
		got, ok := r.Find(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Find(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	var seen atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		seen.Add(1)
		b, _ := io.ReadAll(req.Body)
		fmt.Fprintf(w, "got %d bytes", len(b))
	}))
	defer srv.Close()
	c := &http.Client{Transport: Transport{Redactor: r}}
	send := func(req *http.Request) error {
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	post := func(body string) *http.Request {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		return req
	}
	hdr, _ := http.NewRequest("GET", srv.URL, nil)
	hdr.Header.Set("X-Data", "v="+canary[4:14])
	for what, req := range map[string]*http.Request{"header": hdr, "body": post("a=1&d=" + url.QueryEscape(canary))} {
		err := send(req)
		if !IsSend(err) || !strings.Contains(err.Error(), `the secret "github"`) || strings.Contains(err.Error(), canary) {
			t.Errorf("%s: %v", what, err)
		}
	}
	if seen.Load() != 0 {
		t.Errorf("the server saw %d requests carrying the secret", seen.Load())
	}
	if err := send(post("harmless")); err != nil || seen.Load() != 1 {
		t.Errorf("a harmless POST: %v (server saw %d)", err, seen.Load())
	}
}

func TestStreamEqualsText(t *testing.T) {
	r := New(map[string]string{"github": canary, "pin": "4711"})
	whole := "a " + canary + " b 4711 c " + reverse(canary)[3:15] + " 4711"
	want := r.Text(whole)
	for size := 1; size <= 9; size++ {
		s := NewStream(r)
		var got strings.Builder
		for i := 0; i < len(whole); i += size {
			out := s.Push(whole[i:min(i+size, len(whole))])
			for _, frag := range []string{canary[:FragmentLen], "4711"} {
				if strings.Contains(out, frag) {
					t.Errorf("piece size %d: %q leaked in %q", size, frag, out)
				}
			}
			got.WriteString(out)
		}
		got.WriteString(s.Flush())
		if got.String() != want {
			t.Errorf("piece size %d: %q, want %q", size, got.String(), want)
		}
	}
}

func BenchmarkText(b *testing.B) {
	r := New(map[string]string{"a": canary, "b": "another-secret-value", "c": "4711"}, "sk-proj-AbCdEf0123456789")
	page := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20000) // ~900 KB
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		_ = r.Text(page)
	}
}
