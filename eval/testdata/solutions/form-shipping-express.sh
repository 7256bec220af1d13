. "$(dirname "$0")/lib.sh"
before=$(stamp ~/order.json)
form_focus '^Order form$'
# name, email, quantity, Standard, Express
xdotool key Tab Tab Tab $(pick Tab '') space ctrl+s
saved ~/order.json "$before"
