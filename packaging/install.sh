#!/bin/sh
# install.sh: installs deskpilot from this folder under ~/.local (or $PREFIX),
# for you alone, without root:
#   ./install.sh               copy bin/ and share/ to ~/.local, check the libraries
#   ./install.sh --uninstall   remove what an install copied
# It checks that every library the binary needs is there, and names the
# Debian packages to install when some are not.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}
list=$prefix/share/deskpilot/installed-files
app=io.github.deskpilot

uninstall() {
	[ -f "$list" ] || { echo "install.sh: nothing to remove ($list is missing)" >&2; exit 1; }
	while IFS= read -r f; do
		rm -f "$prefix/$f"
	done <"$list"
	rm -f "$list"
	rmdir "$prefix/share/deskpilot" 2>/dev/null || true
	# The menu's cache goes with the last entry it indexed.
	if ls "$prefix/share/applications/"*.desktop >/dev/null 2>&1; then
		refresh
	else
		rm -f "$prefix/share/applications/mimeinfo.cache"
	fi
	echo "removed deskpilot from $prefix"
}

# refresh tells the desktop about new or removed menu entries and icons, when
# the tools for it are there.
refresh() {
	if command -v update-desktop-database >/dev/null 2>&1; then
		update-desktop-database -q "$prefix/share/applications" 2>/dev/null || true
	fi
	if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$prefix/share/icons/hicolor/index.theme" ]; then
		gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" 2>/dev/null || true
	fi
}

# check_libraries prints what the binary needs and cannot find, with the
# Debian packages that hold it; it fails when something is missing.
check_libraries() {
	missing=$(ldd "$prefix/bin/deskpilot" 2>&1 | sed -n 's/^\s*\(\S*\) => not found.*/\1/p')
	if [ -z "$missing" ]; then
		echo "libraries: all found"
		return 0
	fi
	echo "libraries: missing $(echo "$missing" | tr '\n' ' ')" >&2
	if command -v apt-get >/dev/null 2>&1; then
		echo "install them with:" >&2
		echo "  sudo apt-get install $(tr '\n' ' ' <"$here/share/doc/deskpilot/DEBIAN-PACKAGES")" >&2
	else
		echo "on Debian they are in: $(tr '\n' ' ' <"$here/share/doc/deskpilot/DEBIAN-PACKAGES")" >&2
	fi
	return 1
}

case ${1:-} in
--uninstall) uninstall; exit 0 ;;
"") ;;
*) echo "usage: install.sh [--uninstall]" >&2; exit 2 ;;
esac

mkdir -p "$prefix/share/deskpilot"
: >"$list.new"
cd "$here"
find bin share -type f | sort | while IFS= read -r f; do
	mkdir -p "$prefix/$(dirname "$f")"
	cp "$f" "$prefix/$f"
	echo "$f" >>"$list.new"
done
mv "$list.new" "$list"
# The menu entry starts the binary by its full path: ~/.local/bin is not on
# every PATH.
sed -i "s|^Exec=deskpilot|Exec=$prefix/bin/deskpilot|" "$prefix/share/applications/$app.desktop"
refresh
echo "installed deskpilot $("$prefix/bin/deskpilot" --version 2>/dev/null | sed 's/^deskpilot //') under $prefix"
check_libraries || exit 1
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "note: $prefix/bin is not on your PATH; add it, or start $prefix/bin/deskpilot" ;;
esac
