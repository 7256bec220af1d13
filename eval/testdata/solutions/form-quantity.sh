. "$(dirname "$0")/lib.sh"
before=$(stamp ~/order.json)
form_focus '^Order form$'
xdotool key Tab Tab
typed "$(pick 7 8)"
xdotool key ctrl+s
saved ~/order.json "$before"
