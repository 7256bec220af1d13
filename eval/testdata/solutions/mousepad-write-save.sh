. "$(dirname "$0")/lib.sh"
focus 'notes\.txt'
typed "$(pick 'Meeting at 10:00 in room B' 'Meeting at 11:00 in room B')"
xdotool key ctrl+s
until_true test -s ~/notes.txt
