#!/usr/bin/env bash
# The desktop the observation benchmarks run on: a private 1920x1080 Xvfb on
# $DISPLAY_NUM (default 99) unless one answers there already, openbox, and
# three xterms full of text. Prints "name pid" for each process it started.
set -euo pipefail
num=${DISPLAY_NUM:-99}
export DISPLAY=:$num
if ! xdpyinfo >/dev/null 2>&1; then
  Xvfb ":$num" -screen 0 1920x1080x24 +extension RANDR -nolisten tcp >/dev/null 2>&1 &
  echo "xvfb $!"
  for _ in $(seq 100); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.05; done
fi
openbox >/dev/null 2>&1 &
echo "openbox $!"
for geometry in 100x40+0+0 100x40+700+0 120x30+200+500; do
  xterm -geometry "$geometry" -e sh -c 'ls -la /usr/bin | head -300; cat /etc/services; exec sleep infinity' >/dev/null 2>&1 &
  echo "xterm $!"
done
sleep 2
