. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed 'echo $APP_CODE'
xdotool key Return
pid=$(xdotool getwindowpid "$(win '^Terminal$')")
v=$(tr '\0' '\n' < "/proc/$pid/environ" | sed -n 's/^APP_CODE=//p')
answer "$(pick "$v" "${v%2}4")"
