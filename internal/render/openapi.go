package render

import (
	"sync"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// kyaml keeps the OpenAPI schema in a global that it fills on first use
// (about 40 ms), and openapi.IsNamespaceScoped reads the namespace-scope
// map of that global without the lock the filling holds (kyaml v0.21.2,
// openapi.go:423). So a build asking the scope of a custom kind while
// another build's strategic merge patch fills the schema reads the map as
// it is written: a data race, and a possible "concurrent map read and map
// write" crash. plumb fills the schema before any build starts and again
// right after a target that replaced it has built, so the lazy filling
// never runs while builds are under way.

// openapiMu serialises builds that change kyaml's global OpenAPI schema
// (a kustomization with openapi:) against all others, across renders.
var openapiMu sync.RWMutex

// fillOpenAPI fills kyaml's default schema unless it is filled already.
// Call it holding openapiMu (either way).
func fillOpenAPI() { openapi.Schema() }

// startFillingOpenAPI fills the schema in the background while the caller
// reads kustomizations; builds wait on the returned channel.
func startFillingOpenAPI() <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		openapiMu.RLock()
		defer openapiMu.RUnlock()
		fillOpenAPI()
	}()
	return done
}

// resetOpenAPI drops a custom OpenAPI schema a kustomization installed, so
// the next target gets the default one, and fills the default at once.
// Call it holding openapiMu for writing.
func resetOpenAPI() {
	openapi.ResetOpenAPI()
	fillOpenAPI()
}
