package redact

import (
	"bytes"
	"io"
	"sync"
)

// Writer redacts what it writes to an underlying writer. A token may
// arrive split across Write calls, so the end of what it was given is
// held back until the next Write or Flush: the text after the last line
// break (no form of a token holds one), at most the longest form less a
// byte. Whole lines go through at once, so a log stays live.
type Writer struct {
	mu      sync.Mutex
	set     *Set
	w       io.Writer
	pending []byte
}

// Writer returns a Writer that writes w's text redacted; call Flush when
// done.
func (s *Set) Writer(w io.Writer) *Writer { return &Writer{set: s, w: w} }

// Write writes p, redacted, but for the held-back end.
func (w *Writer) Write(p []byte) (int, error) {
	if w.set.Empty() {
		return w.w.Write(p)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p...)
	out := w.set.Bytes(w.pending)
	hold := len(out) - (bytes.LastIndexByte(out, '\n') + 1)
	hold = min(hold, w.set.maxLen-1)
	if _, err := w.w.Write(out[:len(out)-hold]); err != nil {
		w.pending = w.pending[:0]
		return 0, err
	}
	// out may be pending itself: append moves the tail to the front.
	w.pending = append(w.pending[:0], out[len(out)-hold:]...)
	return len(p), nil
}

// Flush writes what is held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flush()
}

func (w *Writer) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	out := w.set.Bytes(w.pending)
	w.pending = w.pending[:0]
	_, err := w.w.Write(out)
	return err
}

// Unwrap is the underlying writer, for what it is (a terminal wants
// colour): write through the Writer.
func (w *Writer) Unwrap() io.Writer { return w.w }

// Unredacted returns a writer to the underlying one that writes after
// what is held back. It is for the one line that must carry a token: the
// runner's ::add-mask:: command, which makes the runner mask it in the
// job's log.
func (w *Writer) Unredacted() io.Writer { return unredacted{w} }

type unredacted struct{ w *Writer }

func (u unredacted) Write(p []byte) (int, error) {
	u.w.mu.Lock()
	defer u.w.mu.Unlock()
	if err := u.w.flush(); err != nil {
		return 0, err
	}
	return u.w.w.Write(p)
}
