//go:build unix

package proc

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time this process has used, all threads, user and
// system.
func CPUTime() time.Duration { return usage(syscall.RUSAGE_SELF) }

// ChildCPUTime is the CPU time this process's children have used, those it
// waited for.
func ChildCPUTime() time.Duration { return usage(syscall.RUSAGE_CHILDREN) }

func usage(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
