package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Some tests run plumb as a real process, not in-process through run: what
// a library prints on the process's own stderr (which a GitHub runner reads
// for workflow commands too), GOMAXPROCS fixed per run, and the action's
// environment as the runner sets it. (Not peak memory: a child started
// with vfork inherits the test process's high-water mark in ru_maxrss.)

// builtBinary is the plumb binary, built once per test run.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
	out  []byte
}

func TestMain(m *testing.M) {
	// The persistent cache is on by default; the tests' runs keep theirs
	// in a directory of their own, not the user's cache, and leave none.
	cacheHome, err := os.MkdirTemp("", "plumb-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cacheHome)
	code := m.Run()
	os.RemoveAll(cacheHome)
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}

// plumbBinary returns the path of a plumb binary built from this package.
func plumbBinary(t *testing.T) string {
	t.Helper()
	b := &builtBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "plumb-test-bin-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "plumb")
		cmd := exec.Command("go", "build", "-o", b.path, ".")
		cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build: %v\n%s", b.err, b.out)
	}
	return b.path
}

// proc is one run of the binary.
type proc struct {
	code           int
	stdout, stderr string
	// combined is stdout and stderr as one stream, in the order they were
	// written (with procOptions.combined).
	combined string
	elapsed  time.Duration
}

// procOptions configure a run.
type procOptions struct {
	dir string
	// env is the whole environment besides PATH and HOME: the test's own
	// (a CI runner's GITHUB_* variables) is not passed on.
	env []string
	// deadline bounds the run; past it the process is killed and the test
	// fails (default 2 minutes: a generous bound on a loaded machine, not a
	// measure of speed).
	deadline time.Duration
	// combined sends stdout and stderr down one pipe, as a runner's step
	// log gets them, so proc.combined has them in the order they were
	// written; proc.stdout and proc.stderr are then empty.
	combined bool
	// binary runs this file instead of plumbBinary (a link to it under
	// another name, say).
	binary string
}

// runBinary runs plumb with args and returns what it printed.
func runBinary(t *testing.T, o procOptions, args ...string) proc {
	t.Helper()
	bin := o.binary
	if bin == "" {
		bin = plumbBinary(t)
	}
	if o.deadline == 0 {
		o.deadline = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = o.dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, o.env...)
	var stdout, stderr, combined bytes.Buffer
	if o.combined {
		// The same writer for both: exec gives the process one pipe.
		cmd.Stdout, cmd.Stderr = &combined, &combined
	} else {
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
	}
	start := time.Now()
	err := cmd.Run()
	p := proc{stdout: stdout.String(), stderr: stderr.String(), combined: combined.String(), elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("plumb %s: still running after %v\n%s", strings.Join(args, " "), o.deadline, p.combined)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		p.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("plumb %s: %v", strings.Join(args, " "), err)
	}
	return p
}
