# Shared by the solution scripts: the test runner starts each with the task's
# environment (DISPLAY, XAUTHORITY and HOME of the task) and MODE=right or wrong.
set -eu
MODE=${MODE:-right}

# win TITLE-REGEX: the id of a visible window whose title matches, waiting for it.
win() { xdotool search --sync --onlyvisible --name "$1" | head -n 1; }

# focus TITLE-REGEX: raise and focus that window.
focus() { xdotool windowactivate --sync "$(win "$1")"; }

# form_focus TITLE-REGEX: focus the order form once it has given the keyboard
# focus to its first field. The form does that 200 ms after its window is up
# (Tk's after()); keys that arrive before land where the window manager put the
# focus and are then counted from the wrong field. A second is ample even on a
# loaded machine; the window is activated again after it.
form_focus() {
	win "$1" >/dev/null
	sleep 1
	focus "$1"
}

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

# press_until WIN-REGEX KEY CMD...: press KEY in the window until the command
# succeeds (at most 30 s). The key is pressed again every 3 s while the window is
# still there: under load an app can drop it (a GTK file chooser's completion
# popup takes the first Return), and waiting on the window's state, not on a
# sleep, is what holds then.
press_until() {
	pat=$1 key=$2
	shift 2
	for _ in $(seq 10); do
		if id=$(xdotool search --onlyvisible --name "$pat" | head -n 1) && [ -n "$id" ]; then
			xdotool windowactivate --sync "$id" key "$key" 2>/dev/null || true
		fi
		for _ in $(seq 30); do
			if "$@" >/dev/null 2>&1; then return 0; fi
			sleep 0.1
		done
	done
	echo "timed out pressing $key in $pat until: $*" >&2
	return 1
}

# answer TEXT: report the final answer.
answer() { echo "ANSWER=$1"; }

# pick RIGHT WRONG: the value for this MODE.
pick() { if [ "$MODE" = wrong ]; then echo "$2"; else echo "$1"; fi; }

# stamp FILE: the file's modification time ("none" when it does not exist).
stamp() { stat -c %y "$1" 2>/dev/null || echo none; }

# changed FILE STAMP: whether FILE was written after STAMP was taken.
changed() { test "$(stamp "$1")" != "$2"; }

# saved FILE STAMP: wait until FILE was written after STAMP was taken.
saved() { until_true changed "$1" "$2"; }

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
