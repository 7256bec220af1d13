. "$(dirname "$0")/lib.sh"
focus '^Fruit$'
xdotool key Down $(pick "" Down) Return
until_true test -f ~/exit.txt
