package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// An html export written outside the trace folder shows every frame: the images are
// in the file, not links into a folder it no longer sits next to.
func TestExportHTMLIsSelfContained(t *testing.T) {
	traces := isolate(t)
	dir := recordRun(t, traces, "a task", "marker")
	out := filepath.Join(t.TempDir(), "elsewhere", "report.html")
	if err := os.MkdirAll(filepath.Dir(out), 0o700); err != nil {
		t.Fatal(err)
	}
	if msg, code := cli(t, "", "traces", "export", dir, "--format", "html", "-o", out); code != 0 {
		t.Fatalf("export: exit %d\n%s", code, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	srcs := regexp.MustCompile(`<(?:img|image)[^>]*?(?:src|href)="([^"]*)"`).FindAllStringSubmatch(string(b), -1)
	if len(srcs) == 0 {
		t.Fatalf("the report shows no image:\n%.2000s", b)
	}
	for _, m := range srcs {
		if !strings.HasPrefix(m[1], "data:image/") {
			t.Errorf("image %q is a link, broken away from %s", m[1], dir)
		}
	}
	if links := regexp.MustCompile(`href="(frames/[^"]*)"`).FindAllString(string(b), -1); len(links) > 0 {
		t.Errorf("links into the trace folder: %v", links)
	}
}
