package cli

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionPrintsBuild(t *testing.T) {
	root := newBuildRoot(Build{Version: "0.1.0~git7.abc", Commit: "abc123", Date: "2025-05-20"})
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"--version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	want := "deskpilot 0.1.0~git7.abc (commit abc123, built 2025-05-20, " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
	if out.String() != want {
		t.Errorf("--version printed %q, want %q", out.String(), want)
	}
}

func TestBuildDefaults(t *testing.T) {
	info := func(settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Settings: settings}, true }
	}
	for _, tc := range []struct {
		name string
		in   Build
		info func() (*debug.BuildInfo, bool)
		want Build
	}{
		{"stamped", Build{Version: "1.0", Commit: "abc", Date: "2025-01-02"}, info(debug.BuildSetting{Key: "vcs.revision", Value: "zzz"}),
			Build{Version: "1.0", Commit: "abc", Date: "2025-01-02"}},
		{"vcs stamp", Build{}, info(debug.BuildSetting{Key: "vcs.revision", Value: "def"}, debug.BuildSetting{Key: "vcs.modified", Value: "false"}),
			Build{Version: "dev", Commit: "def", Date: "unknown"}},
		{"modified checkout", Build{Version: "1.0"}, info(debug.BuildSetting{Key: "vcs.revision", Value: "def"}, debug.BuildSetting{Key: "vcs.modified", Value: "true"}),
			Build{Version: "1.0", Commit: "def-dirty", Date: "unknown"}},
		{"nothing known", Build{}, func() (*debug.BuildInfo, bool) { return nil, false },
			Build{Version: "dev", Commit: "unknown", Date: "unknown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.withDefaults(tc.info); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if s := (Build{Version: "v", Commit: "c", Date: "d"}).String(); !strings.HasPrefix(s, "deskpilot v (commit c, built d, go") {
		t.Errorf("String() = %q", s)
	}
}
