//go:build !unix

package proc

import "time"

// CPUTime is 0: this platform's CPU time is not read.
func CPUTime() time.Duration { return 0 }

// ChildCPUTime is 0: this platform's CPU time is not read.
func ChildCPUTime() time.Duration { return 0 }
