. "$(dirname "$0")/lib.sh"
before=$(stamp ~/order.json)
form_focus '^Order form$'
# to the country list, then down from Brazil to Japan (or Kenya)
xdotool key Tab Tab Tab Tab Tab Tab Tab Down Down Down Down $(pick '' Down) ctrl+s
saved ~/order.json "$before"
