. "$(dirname "$0")/lib.sh"
w=$(win '^Pizza toppings$')
xdotool windowactivate --sync "$w"
# the check boxes of Olives and Basil (or Ham), in window coordinates
xdotool mousemove --window "$w" 35 95 click 1
xdotool mousemove --window "$w" 35 $(pick 141 118) click 1
# OK
xdotool mousemove --window "$w" 268 335 click 1
until_true test -f ~/exit.txt
