. "$(dirname "$0")/lib.sh"
focus 'notes\.txt'
typed "$(pick 'Meeting at 10:00 in room B' 'Meeting at 11:00 in room B')"
press_until 'notes\.txt' ctrl+s test -s ~/notes.txt
