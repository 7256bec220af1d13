#!/usr/bin/env bash
# package.sh: deskpilot's release artifacts, from the release binaries, under
# $DIST: deskpilot_<version>_amd64.deb, deskpilot_<version>_linux_amd64.tar.gz,
# deskpilot_<version>_windows_amd64.zip and SHA256SUMS. `make package` runs it
# after `make dist`, with these variables set:
#   VERSION BUILD_DATE COMMIT  what the binaries were stamped with
#   BIN BIN_WIN                the linux/amd64 and windows/amd64 binaries
#   DIST                       the output folder
#   MAINTAINER                 the .deb's Maintainer field
#   GO                         the go command
# The .deb's Depends are what dpkg-shlibdeps finds the binary needs; the
# third-party notices come from the module graph (packaging/notices); the man
# pages and completions from the commands (packaging/gendocs).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${VERSION:?}" "${BUILD_DATE:?}" "${BIN:?}" "${BIN_WIN:?}" "${DIST:?}" "${MAINTAINER:?}"
GO=${GO:-go}
COMMIT=${COMMIT:-unknown}
APP_ID=io.github.deskpilot
ICON_SIZES="16 22 24 32 48 64 128 256 512"
# Recommends: the optional parts (OCR data, accessibility, open_url) and what
# `deskpilot eval` runs its desktop tasks with.
RECOMMENDS="tesseract-ocr-eng, at-spi2-core, xdg-utils, xvfb, openbox, dbus-daemon, xterm, mousepad, zenity, python3-tk, fonts-dejavu-core"
# Every file gets the commit's time, so the same commit packs to the same bytes.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export TZ=UTC LC_ALL=C
umask 022

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$DIST"
DIST=$(realpath "$DIST")
rm -f "$DIST"/deskpilot_*.deb "$DIST"/deskpilot_*.tar.gz "$DIST"/deskpilot_*.zip "$DIST/SHA256SUMS"

step() { echo "package: $*"; }

gen_docs() {
	step "man pages and shell completions from the commands"
	"$GO" build -o "$work/gendocs" ./packaging/gendocs
	"$work/gendocs" -version "$VERSION" -date "$BUILD_DATE" -out "$work/docs"
	step "third-party notices from the module graph"
	"$GO" build -o "$work/notices" ./packaging/notices
	GOOS=linux GOARCH=amd64 CGO_ENABLED=1 "$work/notices" -o "$work/notices-linux.txt" -summary "$work/summary-linux.txt" .
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 "$work/notices" -o "$work/notices-windows.txt" .
}

# copyright FILE SUMMARY: deskpilot's own licence and a list of what it links in.
copyright() {
	{
		echo "deskpilot $VERSION (commit $COMMIT)"
		echo "Copyright (C) $(git log --format=%cd --date=format:%Y 2>/dev/null | sed -n '$p;1p' | sort -u | paste -sd-) the deskpilot authors"
		echo
		if [ -f LICENSE ]; then
			cat LICENSE
		else
			echo "The deskpilot source tree has no LICENSE file: its authors have not"
			echo "published a licence for deskpilot's own code yet."
		fi
		echo
		echo "Third-party software built into deskpilot, with the licence each is"
		echo "recognised as; their full licence texts are in THIRD-PARTY-NOTICES.gz"
		echo "(THIRD-PARTY-NOTICES in the tarball) next to this file:"
		echo
		sed 's/^/  /' "$2"
		for l in Apache-2.0 MPL-2.0; do
			if grep -q "$l" "$2"; then
				echo
				echo "On Debian systems the full text of the $l licence is in /usr/share/common-licenses/$l."
			fi
		done
	} >"$1"
}

# tree PREFIX: the installed files under PREFIX (usr/ in the .deb, the folder
# of the tarball).
tree() {
	local p=$1 s f
	install -D -m755 "$BIN" "$p/bin/deskpilot"
	strip --strip-unneeded --remove-section=.comment --remove-section=.note "$p/bin/deskpilot"
	install -D -m644 "packaging/$APP_ID.desktop" "$p/share/applications/$APP_ID.desktop"
	for s in $ICON_SIZES; do
		mkdir -p "$p/share/icons/hicolor/${s}x$s/apps"
		convert assets/icon.png -resize "${s}x$s" -strip -define png:exclude-chunks=date,time \
			"PNG32:$p/share/icons/hicolor/${s}x$s/apps/$APP_ID.png"
	done
	mkdir -p "$p/share/man/man1"
	for f in "$work"/docs/man/man1/*.1; do
		gzip -9n <"$f" >"$p/share/man/man1/$(basename "$f").gz"
	done
	install -D -m644 "$work/docs/completions/deskpilot.bash" "$p/share/bash-completion/completions/deskpilot"
	install -D -m644 "$work/docs/completions/_deskpilot" "$p/share/zsh/vendor-completions/_deskpilot"
	install -D -m644 "$work/docs/completions/deskpilot.fish" "$p/share/fish/vendor_completions.d/deskpilot.fish"
	mkdir -p "$p/share/doc/deskpilot"
	copyright "$p/share/doc/deskpilot/copyright" "$work/summary-linux.txt"
	chmod 644 "$p/share/doc/deskpilot/copyright"
}

# depends: the .deb's Depends, from the libraries the binary links.
depends() {
	local d=$work/shlibdeps
	mkdir -p "$d/debian"
	printf 'Source: deskpilot\n\nPackage: deskpilot\nArchitecture: amd64\n' >"$d/debian/control"
	(cd "$d" && dpkg-shlibdeps -O "$work/deb/usr/bin/deskpilot" 2>"$work/shlibdeps.err") |
		sed -n 's/^shlibs:Depends=//p'
}

deb() {
	local root=$work/deb out=$DIST/deskpilot_${VERSION}_amd64.deb deps
	step "the .deb"
	tree "$root/usr"
	gzip -9n <"$work/notices-linux.txt" >"$root/usr/share/doc/deskpilot/THIRD-PARTY-NOTICES.gz"
	changelog | gzip -9n >"$root/usr/share/doc/deskpilot/changelog.gz"
	install -D -m644 packaging/lintian-overrides "$root/usr/share/lintian/overrides/deskpilot"
	deps=$(depends)
	[ -n "$deps" ] || { cat "$work/shlibdeps.err" >&2; echo "package: dpkg-shlibdeps found no libraries" >&2; exit 1; }
	mkdir -p "$root/DEBIAN"
	sed -e "s/@VERSION@/$VERSION/" -e "s/@MAINTAINER@/$MAINTAINER/" \
		-e "s/@SIZE@/$(du -sk --exclude=DEBIAN "$root" | cut -f1)/" \
		-e "s/@DEPENDS@/$deps/" -e "s/@RECOMMENDS@/$RECOMMENDS/" packaging/control.in >"$root/DEBIAN/control"
	(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
	find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
	echo "  $out"
	echo "  Depends: $deps"
}

# changelog: the Debian changelog of a package built from one commit.
changelog() {
	printf 'deskpilot (%s) unstable; urgency=medium\n\n  * Built from commit %s.\n\n -- %s  %s\n' \
		"$VERSION" "$COMMIT" "$MAINTAINER" "$(date -R -d "@$SOURCE_DATE_EPOCH")"
}

tarball() {
	local name=deskpilot_${VERSION}_linux_amd64 out
	local root=$work/tar/$name
	out=$DIST/$name.tar.gz
	step "the tarball"
	tree "$root"
	cp "$work/notices-linux.txt" "$root/share/doc/deskpilot/THIRD-PARTY-NOTICES"
	install -m755 packaging/install.sh "$root/install.sh"
	# The Debian packages of the libraries, for install.sh's hint when one is missing.
	depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' | grep . >"$root/share/doc/deskpilot/DEBIAN-PACKAGES"
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
		-C "$work/tar" -cf - "$name" | gzip -9n >"$out"
	echo "  $out"
}

# dlls EXE: the DLLs EXE imports, recursively, that the mingw toolchain ships
# (the rest are Windows' own); prints their paths.
dlls() {
	local todo=("$1") seen=" " f n p
	local dirs=(/usr/x86_64-w64-mingw32/lib /usr/lib/gcc/x86_64-w64-mingw32/*-posix /usr/lib/gcc/x86_64-w64-mingw32/*-win32)
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for n in $(x86_64-w64-mingw32-objdump -p "$f" | sed -n 's/^\s*DLL Name: //p'); do
			case $seen in *" ${n,,} "*) continue ;; esac
			seen="$seen${n,,} "
			for p in "${dirs[@]}"; do
				if [ -f "$p/$n" ]; then
					echo "$p/$n"
					todo+=("$p/$n")
					break
				fi
			done
		done
	done
}

winzip() {
	local name=deskpilot_${VERSION}_windows_amd64 out d
	local root=$work/zip/$name
	out=$DIST/$name.zip
	step "the Windows zip"
	mkdir -p "$root"
	install -m755 "$BIN_WIN" "$root/deskpilot.exe"
	x86_64-w64-mingw32-strip --strip-unneeded "$root/deskpilot.exe"
	for d in $(dlls "$root/deskpilot.exe"); do
		install -m644 "$d" "$root/"
	done
	sed -e "s/@VERSION@/$VERSION/" -e "s/@COMMIT@/$COMMIT/" packaging/windows-README.txt | sed 's/$/\r/' >"$root/README.txt"
	sed 's/$/\r/' "$work/notices-windows.txt" >"$root/THIRD-PARTY-NOTICES.txt"
	[ -f LICENSE ] && sed 's/$/\r/' LICENSE >"$root/LICENSE.txt"
	find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	rm -f "$out"
	(cd "$work/zip" && find "$name" -print | sort | zip -X -q -9 "$out" -@)
	echo "  $out"
}

gen_docs
deb
tarball
winzip
(cd "$DIST" && sha256sum "deskpilot_${VERSION}_amd64.deb" "deskpilot_${VERSION}_linux_amd64.tar.gz" \
	"deskpilot_${VERSION}_windows_amd64.zip" >SHA256SUMS)
step "$DIST/SHA256SUMS"
