. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed 'wc -l ~/data/log.txt'
xdotool key Return
n=$(wc -l < ~/data/log.txt)
answer "$(pick "$n" "$((n + 1))")"
