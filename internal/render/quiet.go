package render

import (
	"os"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

var stderrMu sync.Mutex

// silenceStderr discards what krusty prints on os.Stderr while targets
// build (deprecation warnings, which plumb reports as findings at their
// line instead). It returns the function that restores stderr.
func silenceStderr() func() {
	stderrMu.Lock()
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		stderrMu.Unlock()
		return func() {}
	}
	old := os.Stderr
	os.Stderr = devnull
	return func() {
		os.Stderr = old
		devnull.Close()
		stderrMu.Unlock()
	}
}

// resetOpenAPI drops a custom OpenAPI schema a kustomization installed in
// kyaml's global state, so the next target gets the default one.
func resetOpenAPI() { openapi.ResetOpenAPI() }
