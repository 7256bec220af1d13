#!/usr/bin/env bash
# gobuild.sh OUT [go build flags...]: go build -v -o OUT, each package it
# compiles printed as it finishes with the seconds since the start, a line
# for every 30 s without one, then the total. A build with nothing changed
# prints only the last line.
set -uo pipefail
out=$1
shift
start=$SECONDS
n=0
# go build -v names a package when it is compiled; a cgo package (the OpenGL
# bindings, GLFW, Tesseract's) can take minutes, so silence gets a line too.
while :; do
	if IFS= read -r -t 30 line; then
		n=$((n + 1))
		printf '  %4ds  %s\n' $((SECONDS - start)) "$line"
	elif [ $? -gt 128 ]; then
		printf '  %4ds  ... still compiling (C code of the cgo packages is the slow part)\n' $((SECONDS - start))
	else
		break
	fi
done < <(${GO:-go} build -v "$@" -o "$out" . 2>&1)
wait $! 2>/dev/null
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "build failed (exit $rc)" >&2
	exit "$rc"
fi
echo "built $out in $((SECONDS - start)) s ($n packages compiled)"
