package dataset

import (
	"path/filepath"
	"strings"

	"deskpilot/agent/secret"
	"deskpilot/agent/trace"
)

// textRedactor replaces the configured secrets in every text a dataset
// holds, as the agent's redactor does (secret.Redactor: the value, any run
// of secret.FragmentLen characters of it, and the same reversed).
type textRedactor struct {
	r     *secret.Redactor
	lower *secret.Redactor // the values lower-cased too: folder names hold a slug of the task
}

func newTextRedactor(secrets []string) textRedactor {
	t := textRedactor{r: secret.New(nil, secrets...), lower: secret.New(nil, secrets...)}
	for _, v := range secrets {
		t.lower.AddKey(strings.ToLower(v))
	}
	return t
}

func (t textRedactor) str(s string) string { return t.r.Text(s) }

// name redacts a folder name (a slug of the task: lowercase).
func (t textRedactor) name(s string) string {
	return strings.ReplaceAll(t.lower.Text(t.r.Text(s)), trace.Redacted, "redacted")
}

func baseName(dir string) string { return filepath.Base(filepath.Clean(dir)) }
