//go:build !unix

package vision

import "time"

// cpuTime is unknown here: benchmarks then report no CPU figure.
func cpuTime() time.Duration { return 0 }
