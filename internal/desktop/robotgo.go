//go:build cgo && (linux || windows || darwin)

package desktop

import (
	"errors"
	"sync/atomic"
)

// robotgoOpen says a robotgo desktop is open in this process. robotgo's state
// is process-wide (on X11 one Display*, not safe for use from two threads at
// once), so two robotgo desktops would drive the same thing without sharing
// a lock: Open refuses the second. The flag mirrors robotgo's own globals.
var robotgoOpen atomic.Bool

// robotgoOpener opens the robotgo backend.
func robotgoOpener() opener { return openRobotgo }

// claimRobotgo takes the process's robotgo; release gives it back.
func claimRobotgo() (release func(), err error) {
	if !robotgoOpen.CompareAndSwap(false, true) {
		return nil, errors.New("robotgo backend: a robotgo desktop is already open in this process; robotgo drives one desktop per process (close the other first)")
	}
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			robotgoOpen.Store(false)
		}
	}, nil
}
