// Package archtest checks the layering of docs/architecture.md: which packages
// may import which. It runs `go list` over the module, so it sees what the
// compiler sees, test files excluded.
package archtest

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// rule says that the packages matching pkg must not depend, even indirectly, on
// any package matching one of forbidden.
type rule struct {
	pkg       string
	forbidden []string
	why       string
}

// waylandEdges are the Wayland edges: the wire client and the compositor
// APIs, which only internal/desktop (and its tools) uses.
const waylandEdges = `^deskpilot/internal/(wl|wlroots|mutter|portal|pipewire)$`

func rules() []rule {
	upper := []string{`^deskpilot/internal/(cli|wiring|config|desktop)$`, `^deskpilot/app(/|$)`}
	return []rule{
		{`^deskpilot/vision(/|$)`, append([]string{`^deskpilot/(agent|actions)(/|$)`, `^fyne\.io/`}, upper...),
			"vision sees the screen: no agent, no input, no UI"},
		{`^deskpilot/actions(/|$)`, append([]string{`^deskpilot/(agent|vision)(/|$)`, `^fyne\.io/`}, upper...),
			"actions act: no agent, no screen, no UI"},
		{`^deskpilot/agent(/|$)`, append([]string{`^fyne\.io/`, `^deskpilot/vision/(screen|xdisplay|wldisplay)$`, `^deskpilot/actions/robot$`, waylandEdges}, upper...),
			"the agent reaches the desktop only through the interfaces it declares; it never imports the UI, the CLI, the wiring or the settings"},
		{`^deskpilot/agent/(dialect|llm|trace|script|secret)$`, []string{`^deskpilot/agent$`},
			"the agent's sub-packages sit below it"},
		{`^deskpilot/agent/secret$`, []string{`^deskpilot/`},
			"the redactor is plain Go: every channel (model transports, traces, the CLI, the app, MCP) can call it"},
		{`^deskpilot/app(/|$)`, []string{`^deskpilot/internal/(cli|wiring|desktop)$`, `^deskpilot/vision/screen$`, `^deskpilot/actions/robot$`, waylandEdges},
			"the app gets its runs from the wiring through app.Deps"},
		{`^deskpilot/internal/config$`, []string{`^deskpilot/agent$`, `^deskpilot/agent/(llm|script|trace)$`, `^deskpilot/internal/(cli|wiring|desktop)$`, `^deskpilot/app(/|$)`, `^fyne\.io/`},
			"settings are plain values: they depend on nothing that runs"},
		{`^deskpilot/internal/desktop$`, []string{`^deskpilot/(agent|app)(/|$)`, `^deskpilot/internal/(cli|wiring|config)$`, `^fyne\.io/`},
			"a desktop backend knows nothing of the agent"},
		{`^deskpilot/internal/wiring$`, []string{`^deskpilot/internal/cli$`, `^deskpilot/app(/|$)`, `^fyne\.io/`},
			"the wiring builds agents, not the UI"},
		{`^deskpilot/a11y$`, []string{`^github\.com/godbus/`, `^deskpilot/a11y/atspi$`, `^deskpilot/(agent|app|actions)(/|$)`, `^github\.com/jezek/xgb`},
			"the element model is plain Go: the agent may use it without D-Bus or X"},
		{`^deskpilot/(agent|app)(/|$)`, []string{`^deskpilot/a11y/atspi$`},
			"the AT-SPI engine is wired in, not imported by the agent or the UI"},
		{`^deskpilot/(agent|app)(/|$)`, []string{`^deskpilot/vision/ocr$`, `^github\.com/otiai10/gosseract`},
			"the OCR engine (cgo) is wired in, not imported by the agent or the UI"},
	}
}

func TestImportDirections(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", "{{.ImportPath}}:{{join .Deps \" \"}}", "deskpilot/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, ds, _ := strings.Cut(line, ":")
		deps[pkg] = strings.Fields(ds)
	}
	if len(deps) < 10 {
		t.Fatalf("go list found only %d packages", len(deps))
	}
	for _, r := range rules() {
		pkgRe := regexp.MustCompile(r.pkg)
		matched := 0
		for pkg, ds := range deps {
			if !pkgRe.MatchString(pkg) {
				continue
			}
			matched++
			for _, f := range r.forbidden {
				fr := regexp.MustCompile(f)
				for _, d := range ds {
					if fr.MatchString(d) {
						t.Errorf("%s imports %s: %s", pkg, d, r.why)
					}
				}
			}
		}
		if matched == 0 {
			t.Errorf("rule %s matches no package", r.pkg)
		}
	}
}

// The repo root holds only the entry point.
func TestRootHoldsOnlyTheEntryPoint(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", "{{join .GoFiles \" \"}}", "deskpilot").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if files := strings.Fields(string(out)); len(files) > 2 {
		t.Errorf("package main has %d files %v; the commands live in internal/cli", len(files), files)
	}
}
