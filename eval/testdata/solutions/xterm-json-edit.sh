. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed "sed -i 's/\"light\"/\"$(pick dark Dark)\"/' ~/settings.json"
xdotool key Return
until_true grep -qi dark ~/settings.json
