. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed 'echo $APP_CODE'
xdotool key Return
# The terminal runs in the task's box, working in the task's home.
v=$(for p in /proc/[0-9]*; do
	[ "$p/cwd" -ef "$HOME" ] && tr '\0' '\n' < "$p/environ" 2>/dev/null | sed -n 's/^APP_CODE=//p'
done | head -n 1)
answer "$(pick "$v" "${v%2}4")"
