. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed 'ls -l ~/a ~/b ~/c'
xdotool key Return
dir=$(find ~/a ~/b ~/c -type f -printf '%s %h\n' | sort -n | tail -n 1 | cut -d' ' -f2)
answer "$(pick "$(basename "$dir")" "the folder $(basename "$dir")")"
