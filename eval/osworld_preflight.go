//go:build linux

package eval

import (
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"deskpilot/eval/checks"
)

// defaultInputs is the cache used without Options.Inputs: the user's cache
// folder, downloading what is missing.
func defaultInputs() (*Inputs, error) {
	dir, err := DefaultInputsDir()
	if err != nil {
		return nil, err
	}
	return &Inputs{Dir: dir}, nil
}

// preflight says why t cannot run here, before a display is started for it:
// a step that cannot be done here (*UnsupportedError), an input the offline
// cache lacks (*NotCachedError, the first one), or a program the task starts
// that is not installed (*NotInstalledError), or a web page its setup opens
// that its offline box cannot reach (*NeedsNetworkError), or Google
// credentials it uses that are not there (*NeedsCredentialsError). nil
// means go.
func (h *harness) preflight(t *Task) error {
	if t.os == nil {
		return nil
	}
	steps := append(append([]step{}, t.os.config...), t.os.eval.post...)
	for _, s := range steps {
		if s.cannot != "" {
			return &UnsupportedError{What: "config step", Name: s.kind + ": " + s.cannot}
		}
	}
	for _, s := range steps {
		if s.kind != "launch" && s.kind != "execute" && s.kind != "command" || s.cmd.shell {
			continue
		}
		if app := s.cmd.args[0]; !appInstalled(app) {
			return &NotInstalledError{App: filepath.Base(app)}
		}
	}
	if h.inputs.Offline {
		for _, u := range t.URLs() {
			if !h.inputs.Cached(u) {
				return &NotCachedError{URL: u}
			}
		}
	}
	if h.o.TaskNetwork != "host" {
		for _, g := range append(append([]*getter{}, t.os.eval.result...), t.os.eval.expected...) {
			if g == nil {
				continue
			}
			if spec, ok := checks.LookupGetter(g.kind); ok && spec.Web != "" {
				return &NeedsNetworkError{URL: spec.Web, Getter: g.kind}
			}
		}
		for _, s := range steps {
			if u := internetURL(s); u != "" {
				return &NeedsNetworkError{URL: u}
			}
		}
	}
	return credentialsProblem(t)
}

// driveAPI is Options.DriveAPI, else $DESKPILOT_GDRIVE_API.
func (o Options) driveAPI() string {
	if o.DriveAPI != "" {
		return o.DriveAPI
	}
	return os.Getenv("DESKPILOT_GDRIVE_API")
}

// NeedsNetworkError is a task whose setup opens a page on the internet
// (chrome_open_tabs), or whose check reads a live site (a getter with
// checks.Getter.Web), while its box has only a loopback of its own: the page
// would be Chromium's error page, not the state the task starts from or is
// checked against, so the task is not run. --task-network host
// (Options.TaskNetwork) runs it.
type NeedsNetworkError struct {
	URL    string
	Getter string // the check's getter that reads URL; "" for a setup step
}

func (e *NeedsNetworkError) Error() string {
	why := ""
	if e.Getter != "" {
		why = "the check's getter " + e.Getter + " reads the live site; "
	}
	return "needs network: " + e.URL + " (" + why + "the task's box has only a loopback; --task-network host shares this machine's network)"
}

// internetURL is the first page a step opens that is not on the box's own
// loopback, or "".
func internetURL(s step) string {
	if s.kind == "login" {
		return googleDriveURL // the sign-in page, in the box's Chrome
	}
	if s.kind != "chrome_open_tabs" {
		return ""
	}
	for _, raw := range s.urls {
		if !onLoopback(raw) {
			return raw
		}
	}
	return ""
}

// onLoopback reports whether a URL a task opens stays in its box: a local
// file or page of the browser, or a host on the loopback.
func onLoopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "file", "about", "chrome", "data":
		return true
	case "http", "https", "ws", "wss":
	default:
		return u.Host == "" && u.Scheme == "" // a bare path
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// appInstalled reports whether a task's program is in the task's box: on the
// box's PATH (this machine's system folders), or one of the names
// prepareApps provides (google-chrome for Chromium, python for python3).
func appInstalled(name string) bool {
	if filepath.IsAbs(name) {
		fi, err := os.Stat(name)
		return err == nil && !fi.IsDir()
	}
	if boxHas(name) || name == "sudo" { // the box's own (box_sudo.py)
		return true
	}
	if alias, ok := appAliases[name]; ok {
		return boxHas(alias)
	}
	return false
}
