#!/usr/bin/env bash
# Measures deskpilot against the peer pipelines in one run, on one busy private
# 1920x1080 desktop: the observation (capture -> 1366x768 PNG -> base64) against
# scrot + ImageMagick + base64 (Anthropic's reference tool) and Pillow, and a click
# against xdotool. Prints medians in milliseconds and the ratios.
#
# usage: scripts/bench-peers.sh [RUNS]   (PEER_BENCH_DIR defaults to ../shared/bench)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-30}
# The real ImageMagick, not a wrapper earlier on PATH.
export PATH=/usr/bin:/bin:$PATH
peers=${PEER_BENCH_DIR:-../shared/bench}
bin=bin/deskpilot
[ -x "$bin" ] || go build -o "$bin" .

num=$(( 60 + RANDOM % 30 ))
export DISPLAY=:$num DISPLAY_NUM=$num
pids=$(bash "$peers/desktop.sh" | awk '{print $2}')
trap 'kill $pids 2>/dev/null || true' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# time_cmd N CMD...: median wall milliseconds of N runs of a whole process.
time_cmd() {
  local n=$1; shift
  for _ in $(seq "$n"); do
    local t0 t1
    t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N)
    echo $(( (t1 - t0) / 1000 ))
  done | median | awk '{printf "%.2f", $1/1000}'
}

ours=$("$bin" bench --json -n "$runs" --x-display "$DISPLAY")
observe=$(echo "$ours" | python3 -c 'import json,sys; print(json.load(sys.stdin)["observe_ms"]["median"])')
click=$(echo "$ours" | python3 -c 'import json,sys; print(json.load(sys.stdin)["click_ms"]["median"])')
capture=$(echo "$ours" | python3 -c 'import json,sys; print(json.load(sys.stdin)["capture_ms"]["median"])')
scrot=$(time_cmd "$runs" bash "$peers/anthropic_pipeline.sh")
pil=$(/usr/bin/python3 "$peers/pil_pipeline.py" "$runs" | sed -n 's/.*median=\([0-9.]*\).*/\1/p')
xdo=$(time_cmd "$runs" bash "$peers/xdotool_click.sh")

printf 'deskpilot capture 1920x1080        %8.2f ms\n' "$capture"
printf 'deskpilot observe (to data URL)    %8.2f ms\n' "$observe"
printf 'scrot+ImageMagick+base64           %8.2f ms   ratio %.1fx\n' "$scrot" "$(echo "$scrot / $observe" | bc -l)"
printf 'Pillow grab+resize+PNG+base64      %8.2f ms   ratio %.1fx\n' "$pil" "$(echo "$pil / $observe" | bc -l)"
printf 'deskpilot click                    %8.2f ms\n' "$click"
printf 'xdotool mousemove --sync + click   %8.2f ms   ratio %.1fx\n' "$xdo" "$(echo "$xdo / $click" | bc -l)"
