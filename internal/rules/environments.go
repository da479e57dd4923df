package rules

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/plumb-ci/plumb/internal/render"
)

// declaredEnvironment reports whether the configuration declares a render
// target to be an environment (Options.Environments). A target is named by
// its directory; plain files beside an overlay's kustomization ("overlays/
// eu-1 (plain)") are never an environment, as with the built-in naming.
func (e *Engine) declaredEnvironment(target string) bool {
	if strings.HasSuffix(target, render.LeftoverSuffix) {
		return false
	}
	for _, p := range e.opts.Environments {
		if ok, _ := doublestar.Match(p, target); ok {
			return true
		}
	}
	return false
}
