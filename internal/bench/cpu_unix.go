//go:build unix

package bench

import (
	"syscall"
	"time"
)

// CPUTime is the user and system CPU time the process has used so far.
// Benchmarks report it per operation beside wall time: on a machine shared
// with other jobs it varies much less.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
