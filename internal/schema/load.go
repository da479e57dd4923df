package schema

import "github.com/plumb-ci/plumb/internal/manifest"

// LoadCRDs reads the CustomResourceDefinitions of files and directories
// (directories are walked for .yaml, .yml and .json files; other objects
// are ignored). A path that cannot be read, or a file that does not parse,
// is a problem with plumb's own input (exit 2); the CRDs that did load
// come back with them.
func LoadCRDs(sources []manifest.Source, limits manifest.Limits) ([]*manifest.Object, []manifest.Problem) {
	return manifest.LoadSources("--crds", sources, limits, isCRD)
}
