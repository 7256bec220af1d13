. "$(dirname "$0")/lib.sh"
before=$(stamp ~/order.json)
form_focus '^Order form$'
keep udiaeresis ssharp odiaeresis
xdotool key Tab Tab Tab Tab Tab Tab Tab Tab
typed "$(pick 'Grüße aus Köln' 'Grusse aus Koln')"
xdotool key ctrl+s
saved ~/order.json "$before"
