. "$(dirname "$0")/lib.sh"
before=$(stamp ~/order.json)
form_focus '^Order form$'
xdotool key Tab Tab Tab Tab Tab Tab
[ "$MODE" = wrong ] || xdotool key space
xdotool key ctrl+s
saved ~/order.json "$before"
