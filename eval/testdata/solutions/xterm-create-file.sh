. "$(dirname "$0")/lib.sh"
focus '^Terminal$'
typed "echo '$(pick 'hello from deskpilot' 'hello from deskpilot!')' > ~/hello.txt"
xdotool key Return
until_true test -s ~/hello.txt
