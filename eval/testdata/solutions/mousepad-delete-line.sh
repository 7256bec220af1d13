. "$(dirname "$0")/lib.sh"
before=$(stamp ~/todo.txt)
focus 'todo\.txt'
# line 2 (or 3), selected with its newline, deleted
xdotool key ctrl+Home Down $(pick '' Down) Home shift+Down Delete ctrl+s
saved ~/todo.txt "$before"
