. "$(dirname "$0")/lib.sh"
before=$(stamp ~/order.json)
form_focus '^Order form$'
typed 'Ada Lovelace'
xdotool key Tab
typed "$(pick ada@example.org ada@example.com)"
xdotool key ctrl+s
saved ~/order.json "$before"
