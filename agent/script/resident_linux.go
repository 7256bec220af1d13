package script

import (
	"os"
	"strconv"
	"strings"
)

// residentBytes is the memory process pid allocated and holds in RAM: its
// resident set less the pages it shares with files (/proc/PID/statm:
// resident - shared), that is its anonymous memory (heap, stacks). The pages
// of the program and its libraries, which the child maps like any process
// (60 MB of deskpilot's) and shares with the agent, do not count: a cap on
// them would leave the code nothing.
func residentBytes(pid int) (int64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return 0, false
	}
	resident, err1 := strconv.ParseInt(f[1], 10, 64)
	shared, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return (resident - shared) * int64(os.Getpagesize()), true
}
