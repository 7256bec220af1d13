package cli

import (
	"fmt"
	"image"
	"image/color"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"deskpilot/a11y"
	"deskpilot/agent/llm/llmtest"
	"deskpilot/internal/testapps"
	"deskpilot/vision/ocr"
	"deskpilot/vision/xdisplay"
)

// A secret typed into a GTK field with the a11y and ocr layers and marks on
// never reaches the model, the trace or the terminal: not the layers (which
// once showed the field's text mid-typing), not find_elements (which handed
// the value to the code: it reads [secret:NAME] now, and reversed or joined
// copies of it are no secret either), not find_text, not the pixels (the
// field is painted over on every frame from the first key on). The app got
// the secret: zenity prints what was typed.
func TestSecretTypedIntoAFieldNeverShows(t *testing.T) {
	traces := isolate(t)
	d, tree := accessibleDisplay(t)
	reader := newReader(t)
	t.Setenv("DESKPILOT_SECRET_GITHUB", canary)
	app := startApp(t, d, "zenity", "--entry", "--title", "Sign in", "--text", "Your token")
	field := waitElement(t, tree, app, a11y.Query{Role: "textbox"})
	srv := llmtest.New(t,
		reply(`click_element("your token", role="textbox")`+"\n"+`type_secret("github")`),
		reply(`t = find_elements(role="textbox")[0].text
print("read back:", t, t[::-1], "+".join([t[:9], t[9:]]))
print("found:", [m.text for m in find_text("Zq8HVm")], [e.text for e in find_elements()])`),
		reply(`press("enter")`+"\n"+`final_answer(t)`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--x-display", d.Name, "--trace-dir", traces,
		"--observe", "a11y,ocr", "--marks", "--json", "type the github token into the dialog")
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, printed := exitedApp(t, app); code != 0 || printed != canary {
		t.Errorf("zenity exited %d printing %q: the secret was not typed", code, printed)
	}
	reqs := srv.Requests()
	if got := reqs[2].Last("user").Text(); !strings.Contains(got, "read back: [secret:github] ]buhtig:terces[ [secret:g+ithub]") {
		t.Errorf("the value read back is not its placeholder:\n%s", got)
	}
	noLeak(t, "the output", out)
	checkRequests(t, reader, srv)
	tr := onlyTrace(t, traces)
	if n := checkFiles(t, reader, tr.Dir); n < 3 {
		t.Errorf("the trace holds %d images", n)
	}
	// The field is painted over on the frame the model saw after typing.
	step1 := tr.Steps[1].Observation
	if step1 == nil || step1.ModelFrame == "" {
		t.Fatalf("step 1 recorded no model frame: %+v", tr.Steps[1])
	}
	img := pngFrame(t, filepath.Join(tr.Dir, step1.ModelFrame))
	c := field.Center().Add(image.Pt(-field.Bounds.Dx()/3, 0)) // off the pointer drawn at the centre
	if got := color.RGBAModel.Convert(img.At(c.X, c.Y)).(color.RGBA); got != (color.RGBA{0x30, 0x30, 0x38, 0xff}) {
		t.Errorf("the field at %v shows %v on the model's frame %s, not the mask", c, got, step1.ModelFrame)
	}
}

// exitedApp waits for app to exit and returns its exit code and its first
// line of output that is not a toolkit warning.
func exitedApp(t *testing.T, app *xdisplay.App) (int, string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !app.Exited() {
		if time.Now().After(deadline) {
			t.Fatalf("the app is still running: %s", app.Output())
		}
		time.Sleep(50 * time.Millisecond)
	}
	code := app.Cmd.ProcessState.ExitCode()
	for _, l := range strings.Split(app.Output(), "\n") {
		if l != "" && !strings.Contains(l, "Gtk-") && !strings.Contains(l, "GLib") && !strings.HasPrefix(l, "(zenity:") &&
			!strings.Contains(l, "WARNING") && !strings.Contains(l, "dbind-") && !strings.Contains(l, "Warning:") {
			return code, l
		}
	}
	return code, ""
}

// clickReply clicks the centre of the form's widget name, read from the app
// when the model is asked, then runs more code.
func clickReply(t *testing.T, form *testapps.Form, name, more string) llmtest.Reply {
	return llmtest.Reply{Func: func(llmtest.Request) string {
		at, err := form.Click(name, image.Pt(1280, 800), image.Pt(1280, 800), "pixels")
		if err != nil {
			t.Error(err)
			return "Thought: no widget.\n```python\nfinal_answer(\"no widget\")\n```"
		}
		return "Thought: go.\n```python\nclick(" + at + ")\n" + more + "\n```"
	}}
}

// In an app without an accessibility tree (Tk), the words OCR reads that show
// a secret just typed are masked from then on: no frame the model gets or the
// trace keeps shows it, while the app got it (the form saved it).
func TestSecretTypedWithoutATreeIsMasked(t *testing.T) {
	traces := isolate(t)
	d, form := privateDisplay(t, image.Pt(1280, 800))
	reader := newReader(t)
	t.Setenv("DESKPILOT_SECRET_PW", canary)
	srv := llmtest.New(t,
		clickReply(t, form, "name", `type_secret("pw")`),
		reply(`screenshot()`+"\n"+`zoom(0, 0, 640, 400)`),
		clickReply(t, form, "save", `final_answer("saved")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--x-display", d.Name, "--trace-dir", traces, "type the password and save")
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if name, _, err := form.Saved(); err != nil || name != canary {
		t.Errorf("the form saved %q (%v): the secret was not typed", name, err)
	}
	if len(leaked(screenText(t, d, reader))) == 0 {
		t.Fatal("OCR does not read the secret on the real screen: the test shows nothing")
	}
	noLeak(t, "the output", out)
	checkRequests(t, reader, srv)
	if n := checkFiles(t, reader, onlyTrace(t, traces).Dir); n < 4 {
		t.Errorf("the trace holds %d images", n)
	}
}

// A request that would carry a secret never leaves: visit_page with it in
// the address (whole, a part, encoded, or the placeholder a value read back
// is), a web search for it, open_url and a program started with it. The
// builtins the catalogue says send their arguments refuse them before
// running; the browser refuses any request that still carries one. The local
// server sees only the one harmless visit, and the model is told why each
// was refused.
func TestRequestsCarryingASecretAreRefused(t *testing.T) {
	traces := isolate(t)
	var mu sync.Mutex
	var seen []string
	srvWeb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.String())
		mu.Unlock()
		if r.URL.Path == "/go" { // a harmless address that redirects to one with the secret
			http.Redirect(w, r, "/next?d="+canary, http.StatusFound)
			return
		}
		fmt.Fprint(w, "<html><head><title>ok</title></head><body><p>a page</p></body></html>")
	}))
	defer srvWeb.Close()
	t.Setenv("DESKPILOT_SECRET_PW", canary)
	t.Setenv("DESKPILOT_BROWSER_ALLOW_PRIVATE", "1")
	t.Setenv("DESKPILOT_SEARCH_BACKEND", "searxng")
	t.Setenv("DESKPILOT_SEARCH_URL", srvWeb.URL)
	u := srvWeb.URL
	calls := []string{
		`visit_page("` + u + `/?d=` + canary + `")`,
		`visit_page("` + u + `/?d=" + "` + url.QueryEscape(canary[3:12]) + `")`,
		`visit_page("` + u + `/p?d=" + "[secret:pw]")`,
		`visit_page("` + u + `/" + "` + canary + `"[::-1])`,
		`web_search("token ` + canary[:10] + `")`,
		`open_url("` + u + `/?t=` + canary + `")`,
		`launch("curl ` + u + `/` + canary[4:] + `")`,
		`visit_page("` + u + `/go")`,
	}
	var replies []llmtest.Reply
	for _, c := range calls {
		replies = append(replies, reply(c))
	}
	replies = append(replies, reply(`print(visit_page("`+u+`/fine"))`), reply(`final_answer("done")`))
	model := llmtest.New(t, replies...)
	out, code := cli(t, "", "run", "--base-url", model.URL, "--model", "m", "--trace-dir", traces, "--yes", "-q", "send it")
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	reqs := model.Requests()
	for i, c := range calls {
		got := reqs[i+1].Last("user").Text()
		if !strings.Contains(got, `would send the secret "pw"`) || !strings.Contains(got, "refused: ") {
			t.Errorf("%s: the model was told:\n%s", c, got)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "/go" || seen[1] != "/fine" {
		t.Errorf("the server saw %q; want only the harmless visits (not the redirect's target)", seen)
	}
	noLeak(t, "the output", out)
	for i, r := range reqs {
		noLeak(t, "model request "+itoa(i), string(r.Body)) // the code the model wrote too
	}
}

// Programs started by launch and open_url get an environment without the
// credentials: neither the model's key (under any variable name the config
// gives), nor DESKPILOT_SECRET_*, nor a variable named like a token, nor one
// whose value is a secret; pass_env lets one through. Each program writes
// its environment to a file.
func TestLaunchedProgramsGetNoCredentials(t *testing.T) {
	traces := isolate(t)
	dir := t.TempDir()
	dump := "#!/bin/sh\nenv > \"$1\"\n"
	if err := os.WriteFile(filepath.Join(dir, "dumpenv"), []byte(dump), 0o700); err != nil {
		t.Fatal(err)
	}
	// open_url starts xdg-open: this one writes its environment.
	opener := "#!/bin/sh\nenv > " + filepath.Join(dir, "opened.txt") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "xdg-open"), []byte(opener), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	const key = "sk-live-launchtest-0123456789"
	t.Setenv("CUSTOM_LLM", key)
	t.Setenv("OPENAI_API_KEY", "sk-other-0123456789abcdef")
	t.Setenv("DESKPILOT_SECRET_PW", canary)
	t.Setenv("GITHUB_TOKEN", "ghp_0123456789abcdefghij")
	t.Setenv("INNOCENT_NAME", canary)
	t.Setenv("DEPLOY_TOKEN", "passed-on-purpose")
	t.Setenv("DESKPILOT_PASS_ENV", "DEPLOY_TOKEN")
	t.Setenv("DESKPILOT_TEST_KEEP", "kept")
	launched := filepath.Join(dir, "launched.txt")
	srv := llmtest.New(t,
		reply(`launch("`+filepath.Join(dir, "dumpenv")+` `+launched+`")`),
		reply(`open_url("https://93.184.215.14/page")`),
		reply(`final_answer("done")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--api-key-env", "CUSTOM_LLM", "--trace-dir", traces,
		"--yes", "-q", "start the programs")
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, f := range []string{launched, filepath.Join(dir, "opened.txt")} {
		env := waitFile(t, f)
		for _, bad := range []string{key, "sk-other-", "DESKPILOT_SECRET_", "GITHUB_TOKEN", canary, "INNOCENT_NAME"} {
			if strings.Contains(env, bad) {
				t.Errorf("%s: the program's environment holds %q", filepath.Base(f), bad)
			}
		}
		for _, want := range []string{"DEPLOY_TOKEN=passed-on-purpose", "DESKPILOT_TEST_KEEP=kept", "DISPLAY="} {
			if !strings.Contains(env, want) {
				t.Errorf("%s: the program's environment lacks %q", filepath.Base(f), want)
			}
		}
	}
}

// waitFile waits until a program has written path and returns its content.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), "PATH=") {
			return string(data)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not written: %v", path, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A password field the tree shows is masked whatever is typed into it,
// type_text too: the frames the model gets paint it over.
func TestPasswordFieldsAreMasked(t *testing.T) {
	traces := isolate(t)
	d, tree := accessibleDisplay(t)
	app := startApp(t, d, "zenity", "--password", "--title", "Unlock")
	field := waitElement(t, tree, app, a11y.Query{Role: "password"})
	srv := llmtest.New(t,
		reply(fmt.Sprintf("click(%d, %d)\ntype_text(\"typed-by-the-model\")", field.Center().X, field.Center().Y)),
		reply(`press("enter")`+"\n"+`final_answer("unlocked")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--x-display", d.Name, "--trace-dir", traces, "-q", "unlock")
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, printed := exitedApp(t, app); printed != "typed-by-the-model" {
		t.Errorf("zenity got %q", printed)
	}
	tr := onlyTrace(t, traces)
	step1 := tr.Steps[1].Observation
	if step1 == nil || step1.ModelFrame == "" {
		t.Fatalf("step 1 recorded no model frame")
	}
	img := pngFrame(t, filepath.Join(tr.Dir, step1.ModelFrame))
	c := field.Center().Add(image.Pt(-field.Bounds.Dx()/3, 0))
	if got := color.RGBAModel.Convert(img.At(c.X, c.Y)).(color.RGBA); got != (color.RGBA{0x30, 0x30, 0x38, 0xff}) {
		t.Errorf("the password field at %v shows %v on the model's frame, not the mask", c, got)
	}
}

// screenText is what OCR reads on d's real screen now (ImageMagick's import),
// to show that what the frames hide is there to hide.
func screenText(t *testing.T, d *xdisplay.Display, r *ocr.Reader) string {
	t.Helper()
	out, err := d.Command(t.Context(), "import", "-window", "root", "png:-").Output()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return ocrText(t, r, out)
}

// In a terminal (no tree) the secret echoed at the prompt is masked on every
// frame, by the words OCR reads, while the real screen shows it.
func TestSecretTypedIntoATerminalIsMasked(t *testing.T) {
	traces := isolate(t)
	d, err := xdisplay.Start(t.Context(), xdisplay.Options{Width: 1280, Height: 800})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	t.Setenv("XAUTHORITY", d.XAuthority)
	reader := newReader(t)
	t.Setenv("DESKPILOT_SECRET_PW", canary)
	startApp(t, d, "xterm", "-geometry", "60x10+100+100", "-fa", "DejaVu Sans Mono", "-fs", "16", "-title", "term", "-e", "cat")
	waitWindow(t, d, "term")
	srv := llmtest.New(t,
		reply(`click(400, 200)`+"\n"+`type_secret("pw")`),
		reply(`screenshot()`),
		reply(`final_answer("typed")`))
	out, code := cli(t, "", "run", "--base-url", srv.URL, "--model", "m", "--x-display", d.Name, "--trace-dir", traces, "-q", "type it")
	if code != exitAnswered {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if len(leaked(screenText(t, d, reader))) == 0 {
		t.Fatal("OCR does not read the secret on the real screen: the test shows nothing")
	}
	checkRequests(t, reader, srv)
	checkFiles(t, reader, onlyTrace(t, traces).Dir)
}
