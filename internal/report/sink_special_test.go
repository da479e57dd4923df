package report

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWritingToAPipeKeepsThePipe: an output such as --format json=/dev/null
// or a FIFO is written to, never replaced by a renamed regular file.
func TestWritingToAPipeKeepsThePipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := WriteAll([]Output{{Format: "json", File: fifo}}, &Report{Version: "x"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if out := <-got; !strings.Contains(out, `"version": "x"`) {
		t.Errorf("read from the pipe: %q", out)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st.Mode(), err)
	}
}
