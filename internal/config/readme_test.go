package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's configuration table names every setting: its file key, its
// environment variables and its flag.
func TestReadmeListsEverySetting(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, f := range fields() {
		if !strings.Contains(readme, "`"+f.key+"`") {
			t.Errorf("README does not list the setting %s", f.key)
		}
		for _, e := range f.envs {
			if !strings.Contains(readme, "`"+e) {
				t.Errorf("README does not list %s (setting %s)", e, f.key)
			}
		}
		if f.flag != "" && !strings.Contains(readme, "`--"+f.flag+"`") {
			t.Errorf("README does not list --%s (setting %s)", f.flag, f.key)
		}
	}
}
