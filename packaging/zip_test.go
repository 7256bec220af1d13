package packaging

import (
	"archive/zip"
	"debug/pe"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The Windows zip holds deskpilot.exe (a windows/amd64 program), every DLL it
// imports that Windows does not ship (none is missing: each import is either
// in the zip or a DLL no mingw-w64 folder holds), a README naming what does
// not work on Windows, and the notices of the Windows build.
func TestWindowsZip(t *testing.T) {
	p := needPackages(t)
	zr, err := zip.OpenReader(p.zip)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dir := t.TempDir()
	var names []string
	top := "deskpilot_" + p.version + "_windows_amd64/"
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, top) {
			t.Errorf("%s is outside %s", f.Name, top)
			continue
		}
		if f.FileInfo().IsDir() {
			continue
		}
		name := strings.TrimPrefix(f.Name, top)
		names = append(names, name)
		extract(t, f, filepath.Join(dir, path.Base(name)))
	}
	for _, want := range []string{"deskpilot.exe", "README.txt", "THIRD-PARTY-NOTICES.txt"} {
		if !slices.Contains(names, want) {
			t.Errorf("the zip lacks %s: %v", want, names)
		}
	}

	exe, err := pe.Open(filepath.Join(dir, "deskpilot.exe"))
	if err != nil {
		t.Fatalf("deskpilot.exe: %v", err)
	}
	defer exe.Close()
	if exe.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("deskpilot.exe is for machine %#x", exe.Machine)
	}
	// debug/pe lists imports as symbol:DLL (its ImportedLibraries is empty).
	syms, err := exe.ImportedSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var imports []string
	for _, s := range syms {
		if _, dll, ok := strings.Cut(s, ":"); ok && !slices.Contains(imports, dll) {
			imports = append(imports, dll)
		}
	}
	if !slices.ContainsFunc(imports, func(d string) bool { return strings.EqualFold(d, "kernel32.dll") }) {
		t.Errorf("deskpilot.exe imports %v: no kernel32.dll, not a Windows program?", imports)
	}
	mingw, _ := filepath.Glob("/usr/x86_64-w64-mingw32/lib/*.dll")
	gcc, _ := filepath.Glob("/usr/lib/gcc/x86_64-w64-mingw32/*/*.dll")
	for _, dll := range imports {
		if slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, dll) }) {
			continue
		}
		for _, m := range append(mingw, gcc...) {
			if strings.EqualFold(filepath.Base(m), dll) {
				t.Errorf("deskpilot.exe imports %s, which mingw-w64 ships and the zip lacks", dll)
			}
		}
	}
	t.Logf("deskpilot.exe imports %v", imports)

	readme, _ := os.ReadFile(filepath.Join(dir, "README.txt"))
	for _, want := range []string{p.version, "What does not work on Windows", "OCR", "accessibility", "deskpilot eval", "x11"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.txt does not mention %q", want)
		}
	}
	notices, _ := os.ReadFile(filepath.Join(dir, "THIRD-PARTY-NOTICES.txt"))
	if !strings.Contains(string(notices), "windows/amd64") || !strings.Contains(string(notices), "golang.org/x/sys") {
		t.Errorf("THIRD-PARTY-NOTICES.txt is not the Windows build's")
	}
}

func extract(t *testing.T, f *zip.File, to string) {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := io.Copy(w, r); err != nil {
		t.Fatal(err)
	}
}
