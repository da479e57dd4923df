package render

import (
	"io"
	"log"
	"os"
	"sync"
)

// stderrState counts the renders under way: the first silences stderr, the
// last restores it, so concurrent renders (a pull request's base and head)
// do not wait for each other.
var stderrState struct {
	mu       sync.Mutex
	users    int
	saved    *os.File
	savedLog io.Writer
	devnull  *os.File
}

// silenceStderr discards what krusty prints on os.Stderr while targets
// build (deprecation warnings, which plumb reports as findings at their
// line instead), and what it logs through the standard logger, which keeps
// the stderr it started with ("well-defined vars that were never replaced:
// NAMES"). Both carry repository text: on a GitHub runner, which reads
// workflow commands on stderr too, a var name holding a line break and
// "::set-output" would be a command. It returns the function that restores
// them.
func silenceStderr() func() {
	s := &stderrState
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == 0 {
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return func() {}
		}
		s.saved, s.devnull, s.savedLog = os.Stderr, devnull, log.Writer()
		os.Stderr = devnull
		log.SetOutput(io.Discard)
	}
	s.users++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.users--
		if s.users == 0 {
			os.Stderr = s.saved
			log.SetOutput(s.savedLog)
			s.devnull.Close()
		}
	}
}
