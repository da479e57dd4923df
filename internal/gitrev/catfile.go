package gitrev

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// catFile is one long-running `git cat-file --batch` process: blob contents
// are requested by id on its standard input and read back from its output,
// so reading a thousand files costs one process, not a thousand.
type catFile struct {
	ctx context.Context
	dir string

	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	err    error // sticky: once the process broke, every read fails
}

func newCatFile(ctx context.Context, dir string) *catFile {
	return &catFile{ctx: ctx, dir: dir}
}

// start launches the process on first use.
func (c *catFile) start() error {
	cmd := exec.CommandContext(c.ctx, "git", "cat-file", "--batch")
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), gitEnv...)
	cmd.Stderr = &c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting git cat-file: %w", err)
	}
	c.cmd, c.in, c.out = cmd, in, bufio.NewReaderSize(out, 64<<10)
	return nil
}

// blob returns the content of the blob with id oid, which must be at most
// limit bytes (ls-tree told the caller its size).
func (c *catFile) blob(oid string, limit int64) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	data, err := c.read(oid, limit)
	if err != nil && !errors.Is(err, errMissing) {
		// The stream is out of step or the process died: stop using it.
		c.err = err
		if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
			c.err = fmt.Errorf("%w (git: %s)", err, msg)
		}
		return nil, c.err
	}
	return data, err
}

var errMissing = errors.New("the object is missing from the repository (a partial or shallow clone?)")

func (c *catFile) read(oid string, limit int64) ([]byte, error) {
	if c.cmd == nil {
		if err := c.start(); err != nil {
			return nil, err
		}
	}
	if _, err := io.WriteString(c.in, oid+"\n"); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	fields := strings.Fields(header)
	if len(fields) == 2 && fields[1] == "missing" {
		return nil, errMissing
	}
	if len(fields) != 3 || fields[0] != oid {
		return nil, fmt.Errorf("git cat-file: unexpected reply %q", strings.TrimSpace(header))
	}
	size, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("git cat-file: unexpected reply %q", strings.TrimSpace(header))
	}
	if size > limit {
		// The tree listing said otherwise; skip the content to stay in step.
		if _, err := io.CopyN(io.Discard, c.out, size+1); err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		return nil, fmt.Errorf("blob %s is %d bytes, over the %d-byte limit", oid, size, limit)
	}
	data := make([]byte, size+1) // content and the trailing newline
	if _, err := io.ReadFull(c.out, data); err != nil {
		return nil, fmt.Errorf("git cat-file: %w", err)
	}
	return data[:size], nil
}

// close ends the process.
func (c *catFile) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd == nil {
		return nil
	}
	c.in.Close()
	err := c.cmd.Wait()
	c.cmd = nil
	if c.err == nil {
		c.err = errors.New("the revision's reader is closed")
	}
	return err
}
