//go:build !unix

package bench

import "time"

// CPUTime is not measured on this platform (benchmarks report 0).
func CPUTime() time.Duration { return 0 }
