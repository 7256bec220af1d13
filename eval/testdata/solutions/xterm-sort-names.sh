. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed "sort $(pick '' -r) ~/names.txt > ~/sorted.txt"
xdotool key Return
until_true test -s ~/sorted.txt
