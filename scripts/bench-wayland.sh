#!/usr/bin/env bash
# Measures deskpilot's wlroots backend against the Wayland peers in one run, on
# a private headless sway (1920x1080, pixman renderer, run as uid 65534 as sway
# requires) whose screen changes all the time (foot prints a line every 40 ms):
# capture against grim writing an uncompressed PPM, the observation (capture ->
# 1366x768 PNG -> base64) against grim's PNG piped through base64, and typing
# 100 characters against wtype. The tools take turns in rounds of 5 runs, so a
# burst of load from other jobs hits all alike; each figure is the median over
# the rounds of each round's median, in milliseconds.
#
# usage: scripts/bench-wayland.sh [RUNS]   (RUNS rounded up to a multiple of 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
bin=bin/deskpilot
[ -x "$bin" ] || go build -o "$bin" .
for p in sway grim wtype foot setpriv; do
  command -v "$p" >/dev/null || { echo "bench-wayland: $p is not installed (make deps installs it)" >&2; exit 1; }
done

rt=$(mktemp -d /tmp/bench-wl-rt.XXXXXX)
home=$(mktemp -d /tmp/bench-wl-home.XXXXXX)
uid=65534
[ "$(id -u)" = 0 ] || uid=$(id -u)
[ "$(id -u)" = 0 ] && chown "$uid:$uid" "$rt" "$home"
chmod 700 "$rt"
# foot floats where bench-peers.sh puts its xterm (160x30 cells at 300,250), so
# both benchmarks see a screen of the same kind.
printf 'output HEADLESS-1 resolution 1920x1080 position 0,0\ndefault_border none\nfocus_follows_mouse no\nxwayland disable\nfor_window [app_id="foot"] floating enable, move position 300 250\n' >"$home/config"
chmod 644 "$home/config"
run_sway=(env -i PATH=/usr/bin:/bin HOME="$home" XDG_RUNTIME_DIR="$rt" WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman sway -c "$home/config")
if [ "$(id -u)" = 0 ]; then
  setpriv --reuid="$uid" --regid="$uid" --clear-groups "${run_sway[@]}" >"$home/log" 2>&1 &
else
  "${run_sway[@]}" >"$home/log" 2>&1 &
fi
sway_pid=$!
cleanup() {
  kill "$sway_pid" 2>/dev/null || true
  wait "$sway_pid" 2>/dev/null || true
  rm -rf "$rt" "$home"
}
trap cleanup EXIT
for _ in $(seq 200); do [ -S "$rt/wayland-1" ] && break; sleep 0.05; done
[ -S "$rt/wayland-1" ] || { echo "bench-wayland: sway did not start:" >&2; cat "$home/log" >&2; exit 1; }
export XDG_RUNTIME_DIR=$rt WAYLAND_DISPLAY=$rt/wayland-1 XDG_CURRENT_DESKTOP=sway XDG_SESSION_TYPE=wayland
unset DISPLAY XAUTHORITY

# The changing part: foot printing a line every 40 ms.
foot -o font=monospace:size=11 -W 160x30 python3 -c '
import itertools, time
words = "the quick brown fox jumps over the lazy dog 0123456789 ".split()
for i in itertools.count():
    print(i, time.time(), " ".join(words[(i + k) % len(words)] for k in range(24)), flush=True)
    time.sleep(0.04)
' >/dev/null 2>&1 &
foot_pid=$!
trap 'kill $foot_pid 2>/dev/null || true; cleanup' EXIT
sleep 1.5

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_cmd() { # time_cmd N CMD...: median wall milliseconds of N runs of a whole process
  local n=$1; shift
  for _ in $(seq "$n"); do
    local t0 t1
    t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 ))
  done | median | awk '{printf "%.2f", $1/1000}'
}
field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]]["median"])' "$1"; }
grim_png_b64() { grim - | base64 -w0 >/dev/null; }
text100=$(python3 -c 'print(("The quick brown fox jumps over the lazy dog. " * 3)[:100])')

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
per=5
rounds=$(( (runs + per - 1) / per ))
declare -A got
for _ in $(seq "$rounds"); do
  ours=$("$bin" bench --json -n "$per" --backend wlroots)
  for k in capture_ms observe_ms type100_ms click_ms; do
    got[$k]+="$(echo "$ours" | field $k) "
  done
  got[grim_ppm]+="$(time_cmd "$per" grim -t ppm -) "
  got[grim_png]+="$(time_cmd "$per" grim_png_b64) "
  got[wtype]+="$(time_cmd "$per" wtype "$text100") "
done
mid() { echo "${got[$1]}" | tr ' ' '\n' | grep . | median; }
capture=$(mid capture_ms); observe=$(mid observe_ms); typed=$(mid type100_ms); click=$(mid click_ms)
ppm=$(mid grim_ppm); png=$(mid grim_png); wt=$(mid wtype)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
ratio() { echo "$1 / $2" | bc -l; }
echo "headless sway, changing 1920x1080 screen, median of $rounds rounds of $per runs; load average before: $load_before, after: $load_after"
printf 'deskpilot capture 1920x1080 (wlroots)  %8.2f ms\n' "$capture"
printf 'grim -t ppm (capture, no compression)  %8.2f ms   ratio %.1fx\n' "$ppm" "$(ratio "$ppm" "$capture")"
printf 'deskpilot observe_ms (to data URL)     %8.2f ms\n' "$observe"
printf 'grim PNG + base64                      %8.2f ms   ratio %.1fx\n' "$png" "$(ratio "$png" "$observe")"
printf 'deskpilot type 100 characters          %8.2f ms\n' "$typed"
printf 'wtype 100 characters                   %8.2f ms   ratio %.1fx\n' "$wt" "$(ratio "$wt" "$typed")"
printf 'deskpilot click                        %8.2f ms\n' "$click"
