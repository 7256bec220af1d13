#!/usr/bin/env bash
# A peer's click: xdotool moving the pointer with --sync (it waits for the
# motion to arrive) and clicking, as the reference tools do. Each call aims
# somewhere new, so --sync always has a motion to wait for.
set -euo pipefail
xdotool mousemove --sync $((400 + RANDOM % 900)) $((250 + RANDOM % 500)) click 1
