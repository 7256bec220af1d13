// Package packaging makes deskpilot installable without building it: `make
// package` runs package.sh here, which turns the release binaries of `make
// dist` into a .deb, a tarball with install.sh and a Windows zip under dist/,
// with SHA256SUMS. The .deb's Depends come from dpkg-shlibdeps, the man pages
// and completions from the commands (gendocs/), the third-party notices from
// the module graph (notices/), the version from git and FyneApp.toml
// (version.sh).
//
// The package holds no Go code of its own but its tests: they build the
// packages and check them as a user would get them (lintian, the desktop entry
// on a private Xvfb, install.sh in a temporary home, and the .deb installed
// with apt into a clean Debian root, run there, then removed). Those run with
// `make test-package`; `go test` alone runs only the checks of the sources.
package packaging
