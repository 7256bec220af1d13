package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// module is one module linked into the binary, with the folders of the packages
// taken from it and, once found, its licence files.
type module struct {
	Path, Version, Dir string
	pkgDirs            []string
	files              []licenceFile
	compiled           []payload // compiled code its packages embed (//go:embed)
}

type licenceFile struct {
	name, text string // name is relative to the module's folder
}

// listed is what `go list -json` says of one package.
type listed struct {
	ImportPath string
	Dir        string
	Standard   bool
	EmbedFiles []string
	Module     *struct {
		Path, Version, Dir string
		Main               bool
		Replace            *struct{ Path, Version, Dir string }
	}
}

// modules lists the modules the packages of pkg and its dependencies come from,
// in `go list` order, without the main module and the standard library.
func modules(pkg string) ([]*module, error) {
	cmd := exec.Command(goCmd(), "list", "-deps", "-json=ImportPath,Dir,Standard,Module,EmbedFiles", pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %w: %s", pkg, err, strings.TrimSpace(stderr.String()))
	}
	byPath := map[string]*module{}
	var mods []*module
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		if p.Standard || p.Module == nil || p.Module.Main {
			continue
		}
		path, version, dir := p.Module.Path, p.Module.Version, p.Module.Dir
		if r := p.Module.Replace; r != nil { // the code is the replacement's
			dir = r.Dir
			if r.Version != "" {
				path, version = r.Path, r.Version
			}
		}
		if dir == "" {
			return nil, fmt.Errorf("module %s@%s is not downloaded (run go mod download)", path, version)
		}
		m := byPath[path]
		if m == nil {
			m = &module{Path: path, Version: version, Dir: dir}
			byPath[path] = m
			mods = append(mods, m)
		}
		m.pkgDirs = append(m.pkgDirs, p.Dir)
		for _, f := range p.EmbedFiles {
			c, err := readPayload(m.Dir, filepath.Join(p.Dir, f))
			if err != nil {
				return nil, err
			}
			if c != nil {
				m.compiled = append(m.compiled, *c)
			}
		}
	}
	slices.SortFunc(mods, func(a, b *module) int { return strings.Compare(a.Path, b.Path) })
	return mods, nil
}

// licenceName matches the names licence files go by: LICENSE, LICENCE.md,
// COPYING, NOTICE, PATENTS, LICENSE-MIT, UNLICENSE...
var licenceName = regexp.MustCompile(`(?i)^(un)?licen[cs]e([-_.].*)?$|^(copying|notice|patents)([-_.].*)?$`)

// sourceExt are extensions of files that only look like licence files by name.
var sourceExt = []string{".go", ".c", ".h", ".s", ".py", ".js", ".json", ".yaml", ".yml", ".html", ".tmpl", ".sh"}

func isLicenceFile(name string) bool {
	return licenceName.MatchString(name) && !slices.Contains(sourceExt, strings.ToLower(filepath.Ext(name)))
}

// findLicences reads m's licence files: those in the module's folder, in the
// folders of the packages taken from it and the folders between, and in the
// folders below a package that hold no Go package of their own (C code that
// cgo compiles in, such as GLFW in go-gl/glfw). The standard library's are
// GOROOT's LICENSE and PATENTS.
func (m *module) findLicences() error {
	seen := map[string]bool{}
	add := func(dir string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() || !isLicenceFile(e.Name()) || seen[p] {
				continue
			}
			seen[p] = true
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(m.Dir, p)
			m.files = append(m.files, licenceFile{name: filepath.ToSlash(rel), text: string(b)})
		}
		return nil
	}
	if err := add(m.Dir); err != nil {
		return fmt.Errorf("%s: %w", m.Path, err)
	}
	for _, d := range m.pkgDirs {
		for up := d; up != m.Dir && strings.HasPrefix(up, m.Dir+string(filepath.Separator)); up = filepath.Dir(up) {
			if err := add(up); err != nil {
				return fmt.Errorf("%s: %w", m.Path, err)
			}
		}
		if err := m.addBelow(d, add); err != nil {
			return fmt.Errorf("%s: %w", m.Path, err)
		}
	}
	slices.SortStableFunc(m.files, func(a, b licenceFile) int {
		return strings.Count(a.name, "/") - strings.Count(b.name, "/")
	})
	return nil
}

// addBelow adds the licence files of the folders under pkgDir that are not Go
// packages (and not testdata), without entering the Go packages below it.
func (m *module) addBelow(pkgDir string, add func(string) error) error {
	return filepath.WalkDir(pkgDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() || p == pkgDir {
			return nil
		}
		if e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".") || hasGo(p) {
			return filepath.SkipDir
		}
		return add(p)
	})
}

func hasGo(dir string) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			return true
		}
	}
	return false
}

// kinds recognise the common licences by phrases of their text.
var kinds = []struct {
	id  string
	all []string
	not []string
}{
	{"OFL-1.1", []string{"sil open font license", "version 1.1"}, nil}, // before MIT: it shares its opening
	{"Bitstream-Vera", []string{"bitstream vera"}, nil},
	{"Apache-2.0", []string{"apache license", "version 2.0"}, nil},
	{"MPL-2.0", []string{"mozilla public license", "2.0"}, nil},
	{"MIT", []string{"permission is hereby granted, free of charge"}, nil},
	{"BSD-3-Clause", []string{"redistribution and use in source and binary forms", "neither the name"}, nil},
	{"BSD-3-Clause", []string{"redistribution and use in source and binary forms", "names of its contributors"}, nil},
	{"BSD-2-Clause", []string{"redistribution and use in source and binary forms"}, []string{"neither the name", "names of its contributors"}},
	{"ISC", []string{"permission to use, copy, modify, and/or distribute this software"}, nil},
	{"ISC", []string{"permission to use, copy, modify, and distribute this software for any purpose with or without fee"}, nil},

	{"Zlib", []string{"provided 'as-is', without any express or implied"}, nil},
	{"Unlicense", []string{"this is free and unencumbered software released into the public domain"}, nil},
}

// classify names the licence text's kind, "" when none is recognised.
func classify(text string) string {
	t := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	for _, k := range kinds {
		ok := true
		for _, s := range k.all {
			ok = ok && strings.Contains(t, s)
		}
		for _, s := range k.not {
			ok = ok && !strings.Contains(t, s)
		}
		if ok {
			return k.id
		}
	}
	return ""
}

// licence names the licences of m's files, "see its text" when none is
// recognised.
func (m *module) licence() string {
	var ids []string
	for _, f := range m.files {
		if id := classify(f.text); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	l := strings.Join(ids, ", ")
	if len(ids) == 0 {
		l = "see its text"
	}
	if len(m.compiled) > 0 {
		l += "; embeds compiled code, see its notices"
	}
	return l
}
