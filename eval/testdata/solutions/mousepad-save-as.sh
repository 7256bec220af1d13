. "$(dirname "$0")/lib.sh"
focus 'Mousepad$'
typed "$(pick 'draft v2' 'draft v3')"
xdotool key ctrl+shift+s
focus '^Save As$'
xdotool key ctrl+a
typed "$HOME/draft.txt"
xdotool key Return
until_true test -s ~/draft.txt
