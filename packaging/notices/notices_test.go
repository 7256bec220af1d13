package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// moduleDir is where the module cache holds a module of the build.
func moduleDir(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-json", path).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", path, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		t.Fatalf("go list -m %s: %s", path, out)
	}
	return m.Dir
}

// The licences of modules deskpilot links are recognised from their own files.
func TestClassifyRealLicences(t *testing.T) {
	for _, tc := range []struct{ module, file, want string }{
		{"github.com/spf13/cobra", "LICENSE.txt", "Apache-2.0"},
		{"golang.org/x/sys", "LICENSE", "BSD-3-Clause"},
		{"github.com/BurntSushi/toml", "COPYING", "MIT"},
		{"github.com/andybalholm/cascadia", "LICENSE", "BSD-2-Clause"},
		{"github.com/coder/websocket", "LICENSE.txt", "ISC"},
		{"github.com/nfnt/resize", "LICENSE", "ISC"},
		{"github.com/go-gl/glfw/v3.3/glfw", "glfw/LICENSE.md", "Zlib"},
		{"fyne.io/fyne/v2", "theme/font/LICENSE.txt", "OFL-1.1"},
	} {
		t.Run(tc.module, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(moduleDir(t, tc.module), tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := classify(string(b)); got != tc.want {
				t.Errorf("%s/%s is %q, want %q", tc.module, tc.file, got, tc.want)
			}
		})
	}
	if got := classify("All rights reserved. Do not copy."); got != "" {
		t.Errorf("no licence text classified as %q", got)
	}
}

// writeModule lays out a main module importing example.com/dep, replaced by a
// local folder with the files given.
func writeModule(t *testing.T, dep map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	put := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("go.mod", "module example.com/app\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n")
	put("main.go", "package main\n\nimport _ \"example.com/dep\"\n\nfunc main() {}\n")
	put("dep/go.mod", "module example.com/dep\n\ngo 1.22\n")
	for name, text := range dep {
		put("dep/"+name, text)
	}
	t.Chdir(dir)
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOWORK", "off")
	return dir
}

const mitText = "MIT License\n\nCopyright (c) 2024 Dep Authors\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software...\n"

// A module without a licence file stops the notices.
func TestMissingLicenceFails(t *testing.T) {
	writeModule(t, map[string]string{"dep.go": "package dep\n"})
	err := run(".", filepath.Join(t.TempDir(), "notices"), "")
	if err == nil || !strings.Contains(err.Error(), "no licence file in example.com/dep") {
		t.Fatalf("run: %v", err)
	}
}

// The notices hold each module's licence, and name compiled code a package
// embeds with the copyright lines inside it.
func TestNoticesWithEmbeddedCode(t *testing.T) {
	wasm := "\x00asm\x01\x00\x00\x00\x00\x10Copyright (C) 2019 The Engine Project\x00\x00"
	writeModule(t, map[string]string{
		"LICENSE":     mitText,
		"dep.go":      "package dep\n\nimport _ \"embed\"\n\n//go:embed engine.wasm\nvar engine []byte\n",
		"engine.wasm": wasm,
	})
	out := filepath.Join(t.TempDir(), "notices")
	summary := filepath.Join(t.TempDir(), "summary")
	if err := run(".", out, summary); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	for _, want := range []string{"example.com/dep", "Copyright (c) 2024 Dep Authors", "Go standard library",
		"engine.wasm: compiled code (WebAssembly", "Copyright (C) 2019 The Engine Project"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("notices lack %q:\n%s", want, tail(string(b)))
		}
	}
	s, _ := os.ReadFile(summary)
	if !strings.Contains(string(s), "example.com/dep v0.0.0: MIT; embeds compiled code") {
		t.Errorf("summary:\n%s", s)
	}
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}
