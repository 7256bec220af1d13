// Package archtest checks the layering of docs/architecture.md: which packages
// may depend on which, which may import which themselves, and that the page's
// table of imports is the real one. It runs `go list` over the module, so it
// sees what the compiler sees, test files excluded.
package archtest

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
		{`^deskpilot/internal/config$`, []string{`^deskpilot/agent$`, `^deskpilot/agent/(dialect|llm|script|trace)$`, `^deskpilot/internal/(cli|wiring|desktop)$`, `^deskpilot/app(/|$)`,
			`^go\.starlark\.net/`, `^fyne\.io/`, `^github\.com/godbus/`, `^github\.com/jezek/xgb`},
			"settings are plain values: they depend on nothing that runs"},
		{`^deskpilot/agent/(dialect/registry|convo)$`, []string{`^deskpilot/`},
			"the dialect registry and the conversation's data are plain data"},
		{`^deskpilot/internal/(editdist|wait|proc|xconn)$`, []string{`^deskpilot/`},
			"the leaves every layer may use import no deskpilot package"},
		{`^deskpilot/eval(/|$)`, []string{`^deskpilot/agent$`, `^deskpilot/internal/(cli|wiring|desktop)$`, `^deskpilot/app(/|$)`, `^fyne\.io/`},
			"the eval harness runs the Runner it is given: no agent, wiring, CLI, desktop or UI"},
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

// goList returns, by package of the module, the list field (Deps: every
// package it depends on; Imports: the ones it imports itself).
func goList(t *testing.T, field string) map[string][]string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "list", "-f", "{{.ImportPath}}:{{join ."+field+" \" \"}}", "deskpilot/...").Output()
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
	return deps
}

// only says that, of deskpilot's packages, the packages matching pkg depend
// (even indirectly) only on those matching allowed.
type only struct {
	pkg, allowed string
	why          string
}

func onlies() []only {
	return []only{
		{`^deskpilot/internal/config$`, `^deskpilot/(agent/dialect/registry|agent/convo|vision)$`,
			"settings reach only the dialect registry, the provider names and vision's value types"},
	}
}

func TestImportDirections(t *testing.T) {
	deps := goList(t, "Deps")
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
	for _, o := range onlies() {
		pkgRe, allowed := regexp.MustCompile(o.pkg), regexp.MustCompile(o.allowed)
		for pkg, ds := range deps {
			if !pkgRe.MatchString(pkg) {
				continue
			}
			for _, d := range ds {
				if strings.HasPrefix(d, "deskpilot/") && !allowed.MatchString(d) {
					t.Errorf("%s imports %s: %s", pkg, d, o.why)
				}
			}
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

// edge says that only packages matching by may import a package matching pkg
// themselves (others reach it through them).
type edge struct {
	pkg, by string
	why     string
}

func edges() []edge {
	return []edge{
		{`^deskpilot/(vision/screen|actions/robot)$`, `^deskpilot/internal/desktop$`,
			"the X11 edges are the desktop backend's"},
		{`^deskpilot/internal/(wlroots|mutter|portal|pipewire)$`, `^deskpilot/internal/desktop$`,
			"the Wayland edges are the desktop backend's"},
		{`^deskpilot/internal/wl$`, `^deskpilot/(internal/desktop|internal/wlroots|vision/wldisplay)$`,
			"the Wayland wire client is the Wayland backends' (and the test compositors')"},
		{`^deskpilot/vision/ocr$`, `^deskpilot/internal/wiring$`,
			"the engines with native parts are wired in one place"},
		{`^deskpilot/a11y/atspi$`, `^deskpilot/(internal/wiring|eval)$`,
			"the accessibility engine is wired in one place; eval's checks read a task display's tree themselves"},
		{`^deskpilot/actions/inspect$`, `^deskpilot/(agent|agent/script|internal/wiring|scripts/inspectfile)$`,
			"the file inspector (and its shared PDF engine) is built by the wiring, not the CLI or the app"},
	}
}

func TestDirectImports(t *testing.T) {
	imports := goList(t, "Imports")
	for _, e := range edges() {
		pkgRe, byRe := regexp.MustCompile(e.pkg), regexp.MustCompile(e.by)
		for pkg, is := range imports {
			for _, d := range is {
				if pkgRe.MatchString(d) && !byRe.MatchString(pkg) {
					t.Errorf("%s imports %s: %s", pkg, d, e.why)
				}
			}
		}
	}
}

// TestImportTable checks docs/architecture.md's table of imports ("###
// Imports") against what each package imports: every package has a row, and
// each row lists exactly the deskpilot packages it imports.
func TestImportTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "\n### Imports\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "### Imports" section`)
	}
	rowRe := regexp.MustCompile("(?m)^\\| `([^`]+)`[^|]*\\| ([^|]*) \\|$")
	rows := map[string][]string{}
	for _, m := range rowRe.FindAllStringSubmatch(table, -1) {
		var listed []string
		for _, p := range strings.Split(m[2], ",") {
			if p = strings.TrimSpace(p); p != "" && p != "—" {
				listed = append(listed, p)
			}
		}
		rows[m[1]] = listed
	}
	if len(rows) < 10 {
		t.Fatalf("the table has %d rows", len(rows))
	}
	imports := goList(t, "Imports")
	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		is := imports[pkg]
		name := strings.TrimPrefix(strings.TrimPrefix(pkg, "deskpilot"), "/")
		if name == "" {
			name = "deskpilot"
		}
		listed, ok := rows[name]
		if !ok {
			t.Errorf("docs/architecture.md's import table has no row for %s", name)
			continue
		}
		delete(rows, name)
		var real []string
		for _, d := range is {
			if strings.HasPrefix(d, "deskpilot/") {
				real = append(real, strings.TrimPrefix(d, "deskpilot/"))
			}
		}
		slices.Sort(real)
		slices.Sort(listed)
		if !slices.Equal(real, listed) {
			t.Errorf("%s imports %v; docs/architecture.md lists %v", name, real, listed)
		}
	}
	for name := range rows {
		t.Errorf("docs/architecture.md's import table lists %s, which is no package", name)
	}
}
