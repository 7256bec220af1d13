#!/usr/bin/env bash
# parent-memory.sh [DESKPILOT]: the issue's oversized inputs, each typed into
# `deskpilot console` on a private Xvfb display (real typing), with the console's
# peak resident memory (VmHWM) and how long the block took. Each case stops at
# 150 s. DESKPILOT defaults to a fresh build of this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
xvfb=
trap '[ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null; rm -rf "$work"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/deskpilot
	go build -o "$bin" .
fi
# A display of its own: Xvfb picks a free number and says which.
Xvfb -displayfd 4 -noreset -screen 0 1280x800x24 4>"$work/display" >/dev/null 2>&1 &
xvfb=$!
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
display=:$(head -1 "$work/display")
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data XDG_CACHE_HOME=$work/cache
for code in 'print(1)' 'type_text("a" * (4 << 20))' 'type_text("a" * (60 << 20))' 'final_answer("A" * (70 << 20))'; do
	out=$work/out.txt
	mkfifo "$work/in"
	"$bin" console --x-display "$display" <"$work/in" >"$out" 2>&1 &
	pid=$!
	exec 3>"$work/in"
	printf '%s\n' "$code" >&3
	start=$(date +%s.%N)
	# The console prompts once when it opens and once after the block.
	while kill -0 "$pid" 2>/dev/null && [ "$(grep -o '>>>' "$out" | wc -l)" -lt 2 ] &&
		[ "$(echo "$(date +%s.%N) - $start < 150" | bc)" = 1 ]; do
		sleep 0.1
	done
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
	exec 3>&-
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -f "$work/in"
	[ "$peak" = 0 ] && sed -n 1,5p "$out"
	printf '%-34s peak %4d MiB, %6.1f s: %s\n' "$code" $((peak / 1024)) "$secs" \
		"$(grep -o 'Error: [^|]*' "$out" | head -1 | cut -c1-110)"
done
