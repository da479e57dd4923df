package render

import (
	"os"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// stderrState counts the renders under way: the first silences stderr, the
// last restores it, so concurrent renders (a pull request's base and head)
// do not wait for each other.
var stderrState struct {
	mu      sync.Mutex
	users   int
	saved   *os.File
	devnull *os.File
}

// silenceStderr discards what krusty prints on os.Stderr while targets
// build (deprecation warnings, which plumb reports as findings at their
// line instead). It returns the function that restores stderr.
func silenceStderr() func() {
	s := &stderrState
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == 0 {
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return func() {}
		}
		s.saved, s.devnull = os.Stderr, devnull
		os.Stderr = devnull
	}
	s.users++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.users--
		if s.users == 0 {
			os.Stderr = s.saved
			s.devnull.Close()
		}
	}
}

// resetOpenAPI drops a custom OpenAPI schema a kustomization installed in
// kyaml's global state, so the next target gets the default one.
func resetOpenAPI() { openapi.ResetOpenAPI() }
