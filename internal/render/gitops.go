package render

import (
	"io/fs"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// gitopsTargets finds the GitOps definitions (Flux HelmRelease, Argo CD
// Application) that render a chart of this repository.
func gitopsTargets(fsys fs.FS, targets []*Target, set *manifest.Set, problems *problemSet) []HelmTarget {
	return nil
}
