. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed "mkdir -p ~/projects/alpha/src ~/projects/$(pick beta gamma)/docs"
xdotool key Return
until_true test -d ~/projects/alpha/src
