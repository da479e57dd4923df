package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The binary's peak memory, measured from outside. A child's rusage
// maxrss is no use here: a child started with vfork (as os/exec starts
// it) inherits the test process's high-water mark. The kernel's VmHWM of
// the child's own address space is the child's alone; it is read while the
// child runs, so growth in its last milliseconds can be missed, which does
// not hide a regression of gigabytes built over seconds. The child also
// runs under an address-space limit (ulimit -v), so that a regression
// fails the test instead of taking the shared machine's memory.

// boundedMaxRSS is the default bound of a bounded run's peak memory: the
// hostile inputs below took 3 to 18 GiB before they were bounded; a run
// of plumb over a small repository stays near 100 MiB.
const boundedMaxRSS = 768 << 20

// boundedAddressSpace caps the child's virtual memory (KiB for ulimit -v).
const boundedAddressSpace = 3 << 20

// boundedDeadline bounds one run: the slow inputs took minutes.
const boundedDeadline = 90 * time.Second

// boundedRun is one run of the binary and its peak memory.
type boundedRun struct {
	proc
	peak uint64        // bytes, the highest VmHWM read
	cpu  time.Duration // user and system time (the machine may be loaded: wall time says less)
}

// runBounded runs plumb in dir with args under the address-space cap and
// fails the test when the run is over maxRSS (0: boundedMaxRSS) or
// boundedDeadline.
func runBounded(t *testing.T, dir string, maxRSS uint64, args ...string) boundedRun {
	t.Helper()
	return runBoundedEnv(t, dir, nil, maxRSS, args...)
}

func runBoundedEnv(t *testing.T, dir string, env []string, maxRSS uint64, args ...string) boundedRun {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("peak memory is read from /proc")
	}
	if maxRSS == 0 {
		maxRSS = boundedMaxRSS
	}
	bin := plumbBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), boundedDeadline)
	defer cancel()
	// The shell drops variables whose names are not identifiers (the
	// runner's INPUT_BASE-REF): env(1) sets the environment after it.
	script := fmt.Sprintf(`ulimit -v %d 2>/dev/null; exec env "$@"`, boundedAddressSpace)
	shArgs := append(append([]string{"-c", script, "sh"}, env...), append([]string{bin}, args...)...)
	cmd := exec.CommandContext(ctx, "/bin/sh", shArgs...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var peak uint64
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if hwm, ok := readVmHWM(status); ok && hwm > peak {
				peak = hwm
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	wg.Wait()
	r := boundedRun{proc: proc{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}, peak: peak}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	if ctx.Err() != nil {
		t.Fatalf("plumb %s: still running after %v\nstderr:\n%s", strings.Join(args, " "), boundedDeadline, r.stderr)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("plumb %s: %v", strings.Join(args, " "), err)
	}
	if r.peak > maxRSS {
		t.Errorf("plumb %s: peak memory %d MiB, over %d MiB", strings.Join(args, " "), r.peak>>20, maxRSS>>20)
	}
	if strings.Contains(r.stderr, "fatal error: out of memory") || strings.Contains(r.stderr, "runtime: out of memory") {
		t.Errorf("plumb %s: ran out of its %d GiB address space:\n%.2000s", strings.Join(args, " "), boundedAddressSpace>>20, r.stderr)
	}
	t.Logf("plumb %s: %v (CPU %v), peak %.0f MiB", strings.Join(args, " "), r.elapsed.Round(time.Millisecond), r.cpu.Round(time.Millisecond), float64(r.peak)/(1<<20))
	return r
}

// readVmHWM reads the peak resident set size (bytes) from a status file.
func readVmHWM(status string) (uint64, bool) {
	f, err := os.Open(status)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
