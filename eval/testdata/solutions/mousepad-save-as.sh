. "$(dirname "$0")/lib.sh"
focus 'Mousepad$'
typed "$(pick 'draft v2' 'draft v3')"
press_until 'Mousepad$' ctrl+shift+s xdotool search --onlyvisible --name '^Save As$'
focus '^Save As$'
xdotool key ctrl+a
typed "/home/user/draft.txt" # the task's home, as mousepad in the task's box has it
press_until '^Save As$' Return test -s ~/draft.txt
