. "$(dirname "$0")/lib.sh"
before=$(stamp ~/report.txt)
focus 'report\.txt'
xdotool key ctrl+a
typed "The color scheme uses one color per team.
Pick a $(pick color colour) you like.
"
press_until 'report\.txt' ctrl+s changed ~/report.txt "$before"
