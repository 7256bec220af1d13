# Shared by the solution scripts: the test runner starts each with the task's
# environment (DISPLAY, XAUTHORITY and HOME of the task) and MODE=right or wrong.
set -eu
MODE=${MODE:-right}

# win TITLE-REGEX: the id of a visible window whose title matches, waiting for it.
win() { xdotool search --sync --onlyvisible --name "$1" | head -n 1; }

# focus TITLE-REGEX: raise and focus that window.
focus() { xdotool windowactivate --sync "$(win "$1")"; }

# typed TEXT: type into the focused window.
typed() { xdotool type --delay 8 -- "$1"; }

# until_true CMD...: wait (at most 30 s) until the command succeeds.
until_true() {
	if until_true_for 300 "$@"; then return 0; fi
	echo "timed out waiting for: $*" >&2
	return 1
}

# until_true_for N CMD...: wait (at most N tenths of a second) until the
# command succeeds, quietly.
until_true_for() {
	n=$1
	shift
	for _ in $(seq "$n"); do
		if "$@" 2>/dev/null; then return 0; fi
		sleep 0.1
	done
	return 1
}

# answer TEXT: report the final answer.
answer() { echo "ANSWER=$1"; }

# pick RIGHT WRONG: the value for this MODE.
pick() { if [ "$MODE" = wrong ]; then echo "$2"; else echo "$1"; fi; }

# stamp FILE: the file's modification time ("none" when it does not exist).
stamp() { stat -c %y "$1" 2>/dev/null || echo none; }

# saved FILE STAMP: wait until FILE was written after STAMP was taken.
saved() { until_true test "$(stamp "$1")" != "$2"; }

# keep KEYSYM...: bind each keysym to a free keycode for the rest of the task, so
# xdotool types it without remapping a key for that one character. (With the
# remap, an app that reads the new keymap only after xdotool has restored the
# old one drops the character; under load Tk does.)
keep() {
	free=$(xmodmap -pke | awk 'NF == 3 { print $2 }')
	for sym in "$@"; do
		code=$(echo "$free" | head -n 1)
		free=$(echo "$free" | tail -n +2)
		xmodmap -e "keycode $code = $sym"
	done
	sleep 0.5
}
