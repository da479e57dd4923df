//go:build unix

package compare

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time (user + system) the test process has used:
// benchmarks report it per operation because wall time depends on what
// else runs on a shared machine.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
