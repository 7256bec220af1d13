#!/bin/sh
# version.sh: deskpilot's version, from FyneApp.toml's Version and git.
#   a commit tagged v<Version>:  <Version>                      0.1.0
#   any other commit:            <Version>~git<commits>.<hash>  0.1.0~git412.19e423e5f0a1
# "+dirty" follows when tracked files have changes. "~" sorts before the
# release in Debian's order, so a development build upgrades to the release.
set -eu
cd "$(dirname "$0")/.."
base=$(sed -n 's/^Version *= *"\([^"]*\)".*/\1/p' FyneApp.toml)
[ -n "$base" ] || { echo "version.sh: no Version in FyneApp.toml" >&2; exit 1; }
if ! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
	echo "$base~dev"
	exit 0
fi
if git describe --tags --exact-match --match "v$base" >/dev/null 2>&1; then
	v=$base
else
	v="$base~git$(git rev-list --count HEAD).$(git rev-parse --short=12 HEAD)"
fi
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	v="$v+dirty"
fi
echo "$v"
