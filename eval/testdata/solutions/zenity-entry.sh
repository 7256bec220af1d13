. "$(dirname "$0")/lib.sh"
focus '^New project$'
typed "$(pick Apollo Apolo)"
xdotool key Return
until_true test -f ~/exit.txt
