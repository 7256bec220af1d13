package k8s

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// builder finds a program that can build the image here: docker with a daemon it
// reaches, podman or buildah. It returns the command's words before "build", or
// why there is none.
func builder() ([]string, string) {
	var why []string
	if p, err := exec.LookPath("docker"); err == nil {
		out, err := exec.Command(p, "info").CombinedOutput()
		if err == nil {
			return []string{p}, ""
		}
		why = append(why, "docker cannot reach its daemon ("+firstLine(string(out))+")")
	} else {
		why = append(why, "no docker")
	}
	for _, name := range []string{"podman", "buildah"} {
		if p, err := exec.LookPath(name); err == nil {
			if name == "buildah" {
				return []string{p, "bud"}, ""
			}
			return []string{p}, ""
		}
		why = append(why, "no "+name)
	}
	return nil, strings.Join(why, ", ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// TestImageBuilds builds deploy/k8s/Dockerfile from the repository root and checks
// the image: deskpilot runs in it, and its runtime has no compiler. It takes long
// (the build stage compiles everything); set DESKPILOT_SKIP_IMAGE=1 to skip it.
func TestImageBuilds(t *testing.T) {
	if os.Getenv("DESKPILOT_SKIP_IMAGE") != "" {
		t.Skip("DESKPILOT_SKIP_IMAGE is set")
	}
	cmd, why := builder()
	if cmd == nil {
		t.Skipf("no image builder here: %s", why)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tag := "deskpilot-eval-test:" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-"))
	build := exec.CommandContext(t.Context(), cmd[0], append(cmd[1:], "build", "-f", "deploy/k8s/Dockerfile", "-t", tag, ".")...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s build: %v\n%s", cmd[0], err, out)
	}
	run := cmd[0]
	if strings.HasSuffix(run, "buildah") {
		t.Skip("built with buildah; it does not run images (podman or docker does)")
	}
	out, err := exec.CommandContext(t.Context(), run, "run", "--rm", tag, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "deskpilot") {
		t.Errorf("deskpilot --version in the image: %v\n%s", err, out)
	}
	out, _ = exec.CommandContext(t.Context(), run, "run", "--rm", "--entrypoint", "sh", tag, "-c",
		"command -v gcc cc go make; dpkg-query -W -f='${Package}\\n' | grep -- '-dev$'").CombinedOutput()
	if s := strings.TrimSpace(string(out)); s != "" {
		t.Errorf("the runtime image has build tools or -dev packages:\n%s", s)
	}
}
