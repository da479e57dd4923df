package renderdiff

import (
	"github.com/plumb-ci/plumb/internal/manifest"
)

// RedactedChanged stands for a secret value that the pull request changes.
// The reviewer learns that it changed, and nothing else: not its value, its
// length or a hash of it.
const RedactedChanged = manifest.Redacted + " (changed)"

// secretPaths are the fields masked on both sides of an object's diff: the
// secret values of either side (manifest.SecretPaths), so a value that
// becomes a secret at the head (an environment variable renamed to
// DB_PASSWORD) is not shown at the base either.
func secretPaths(base, head *manifest.Object) []manifest.Path {
	var paths []manifest.Path
	for _, o := range []*manifest.Object{base, head} {
		if o != nil {
			paths = append(paths, manifest.ObjectSecretPaths(o)...)
		}
	}
	return paths
}

// maskBase masks the secret values of an object at the base.
func maskBase(base, head *manifest.Object) map[string]any {
	return manifest.MaskPaths(base.Content, secretPaths(base, head), manifest.Redacted)
}

// maskHead masks the secret values of an object at the head, marking those
// that differ from the base's so that the diff shows a changed line where a
// value changed. The object itself is not touched.
func maskHead(base, head *manifest.Object) map[string]any {
	paths := secretPaths(base, head)
	masked := manifest.MaskPaths(head.Content, paths, manifest.Redacted)
	if base == nil {
		return masked
	}
	var changed []manifest.Path
	for _, p := range paths {
		hv, inHead := manifest.Lookup(head.Content, p)
		bv, inBase := manifest.Lookup(base.Content, p)
		if inHead && inBase && !equal(hv, bv) {
			changed = append(changed, p)
		}
	}
	return manifest.MaskPaths(masked, changed, RedactedChanged)
}
