. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed "$(pick mv cp) ~/draft.txt ~/final.txt"
xdotool key Return
until_true test -f ~/final.txt
