#!/usr/bin/env bash
# Measures deskpilot against the peer pipelines in one run, on one busy private
# 1920x1080 desktop whose content changes all the time (an xterm scrolls text
# 25 lines a second, on top of scripts/peers/busy_desktop.sh's three full xterms): the
# observation (capture -> 1366x768 PNG -> base64) against scrot + ImageMagick +
# base64 (Anthropic's reference tool) and Pillow, and a click against xdotool.
# Every observation pipeline runs while the screen changes, so none of them can
# profit from an unchanged frame; deskpilot's observe_ms moreover compresses every
# PNG band again each time. The same rounds also print deskpilot's observation as
# a run makes it on this screen: the rows and PNG bands the changes did not reach
# are reused (observe_static_ms taken while the screen changes). Then the scrolling is paused and deskpilot's
# observe_static_ms (unchanged bands reused) is measured on the still screen, and
# printed on its own line: it is not comparable with the peers.
#
# The pipelines take turns in rounds of 5 runs each, so a burst of load from other
# jobs on the machine hits all of them alike. Prints the median over all rounds of
# each round's median, in milliseconds, and the ratios; the machine's load is printed
# too.
#
# With --busy, the changing part is heavier: an xterm runs `ls -la /usr/bin` in a
# loop, scrolling as fast as the terminal draws, so the X server and the terminal
# keep about a core busy and every capture differs from the one before over much of
# the screen (the "busy desktop" condition of docs/benchmarks.md). Without it, the
# calm condition: a line every 40 ms.
#
# usage: scripts/bench-peers.sh [--busy] [RUNS]   (RUNS rounded up to a multiple of 5;
#                                                  the peers' pipelines are in scripts/peers)
set -euo pipefail
cd "$(dirname "$0")/.."
busy=""
if [ "${1:-}" = "--busy" ]; then busy=1; shift; fi
runs=${1:-30}
# The real ImageMagick, not a wrapper earlier on PATH.
export PATH=/usr/bin:/bin:$PATH
peers=scripts/peers
bin=bin/deskpilot
[ -x "$bin" ] || go build -o "$bin" .

num=$(( 60 + RANDOM % 30 ))
export DISPLAY=:$num DISPLAY_NUM=$num
pids=$(bash "$peers/busy_desktop.sh" | awk '{print $2}')
trap 'kill $pids 2>/dev/null || true' EXIT

# The changing part: an xterm across the middle of the screen printing a line
# every 40 ms: nearly every capture differs from the one before, without keeping
# the X server (which serves every pipeline's captures) busier than that needs.
if [ -n "$busy" ]; then
  xterm -geometry 160x30+300+250 -e sh -c 'while :; do ls -la /usr/bin; done' >/dev/null 2>&1 &
  scroller=$!
  condition="busy 1920x1080 screen (an xterm scrolling ls -la in a loop)"
else
  xterm -geometry 160x30+300+250 -e python3 -c '
import itertools, time
words = "the quick brown fox jumps over the lazy dog 0123456789 ".split()
for i in itertools.count():
    print(i, time.time(), " ".join(words[(i + k) % len(words)] for k in range(24)), flush=True)
    time.sleep(0.04)
' >/dev/null 2>&1 &
  scroller=$!
  condition="changing 1920x1080 screen (an xterm printing a line every 40 ms)"
fi
pids="$pids $scroller"
sleep 1.5
printer=$(pgrep -P "$scroller" '^(python3|sh)$' || true)

same_twice() { # are two captures 100 ms apart identical?
  local a b
  a=$(import -window root rgb:- 2>/dev/null | md5sum); sleep 0.1
  b=$(import -window root rgb:- 2>/dev/null | md5sum)
  [ "$a" = "$b" ]
}
if same_twice; then
  echo "bench-peers: the screen does not change; the scrolling xterm did not start" >&2
  exit 1
fi

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
field() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]]["median"])' "$1"; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
per=5
rounds=$(( (runs + per - 1) / per ))
declare -A got
for _ in $(seq "$rounds"); do
  ours=$("$bin" bench --json -n "$per" --x-display "$DISPLAY")
  for k in capture_ms observe_ms observe_static_ms click_ms settle_ms; do
    got[$k]+="$(echo "$ours" | field $k) "
  done
  got[scrot]+="$(time_cmd "$per" bash "$peers/scrot_observe.sh") "
  got[pil]+="$(/usr/bin/python3 "$peers/pillow_observe.py" "$per" | sed -n 's/.*median=\([0-9.]*\).*/\1/p') "
  got[xdo]+="$(time_cmd "$per" bash "$peers/xdotool_click.sh") "
done
mid() { echo "${got[$1]}" | tr ' ' '\n' | grep . | median; }
capture=$(mid capture_ms); observe=$(mid observe_ms); click=$(mid click_ms); settle=$(mid settle_ms)
reuse=$(mid observe_static_ms) # on the changing screen: the rows and bands that did not change are reused
scrot=$(mid scrot); pil=$(mid pil); xdo=$(mid xdo)

# The still screen: pause the printer, check, measure deskpilot alone.
static=""
if [ -n "$printer" ] && kill -STOP "$printer"; then
  sleep 0.5
  if same_twice; then
    static=$("$bin" bench --json -n "$(( rounds * per ))" --x-display "$DISPLAY" | field observe_static_ms)
  fi
  kill -CONT "$printer" || true
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

ratio() { echo "$1 / $2" | bc -l; }
echo "$condition, median of $rounds rounds of $per runs; load average before: $load_before, after: $load_after"
printf 'deskpilot capture 1920x1080            %8.2f ms\n' "$capture"
printf 'deskpilot observe_ms (to data URL)     %8.2f ms   (downscale+encode+base64 %.2f ms, %.1fx the capture)\n' \
  "$observe" "$(echo "$observe - $capture" | bc -l)" "$(ratio "$(echo "$observe - $capture" | bc -l)" "$capture")"
printf 'scrot+ImageMagick+base64               %8.2f ms   ratio %.1fx\n' "$scrot" "$(ratio "$scrot" "$observe")"
printf 'Pillow grab+resize+PNG+base64          %8.2f ms   ratio %.1fx\n' "$pil" "$(ratio "$pil" "$observe")"
printf 'deskpilot observe, unchanged rows and bands reused as in a run (observe_static_ms on this screen) %8.2f ms   ratio %.1fx scrot, %.1fx Pillow\n' \
  "$reuse" "$(ratio "$scrot" "$reuse")" "$(ratio "$pil" "$reuse")"
printf 'deskpilot click                        %8.2f ms\n' "$click"
printf 'xdotool mousemove --sync + click       %8.2f ms   ratio %.1fx\n' "$xdo" "$(ratio "$xdo" "$click")"
printf 'deskpilot settle after a click         %8.2f ms   (15 ms interval, patience 1, as the agent)\n' "$settle"
if [ -n "$static" ]; then
  printf 'still screen: deskpilot observe_static_ms %8.2f ms   (unchanged PNG bands reused; not comparable)\n' "$static"
else
  echo "still screen: not measured (the screen did not stop changing)"
fi
