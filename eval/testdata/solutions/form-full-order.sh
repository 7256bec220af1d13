. "$(dirname "$0")/lib.sh"
before=$(stamp ~/order.json)
form_focus '^Order form$'
typed 'Grace Hopper'
xdotool key Tab
typed 'grace@example.com'
xdotool key Tab
typed 3
# Standard, Express, Overnight; then gift wrap, the country list (Brazil, Canada)
xdotool key Tab Tab Tab space Tab Tab Down
[ "$MODE" = wrong ] && xdotool key Down
xdotool key ctrl+s
saved ~/order.json "$before"
