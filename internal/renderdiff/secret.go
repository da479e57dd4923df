package renderdiff

import (
	"github.com/plumb-ci/plumb/internal/manifest"
)

// RedactedChanged stands for a Secret value that the pull request changes.
// The reviewer learns that it changed, and nothing else: not its value, its
// length or a hash of it.
const RedactedChanged = manifest.Redacted + " (changed)"

// maskBase masks the values of a Secret at the base.
func maskBase(o *manifest.Object) map[string]any { return manifest.MaskSecretContent(o.Content) }

// maskHead masks the values of a Secret at the head, marking the values
// that differ from the base's so that the diff shows a changed line where a
// value changed.
func maskHead(base, head *manifest.Object) map[string]any {
	masked := manifest.MaskSecretContent(head.Content)
	if base == nil || !manifest.IsSecret(head.Content) || !manifest.IsSecret(base.Content) {
		return masked
	}
	for _, field := range []string{"data", "stringData"} {
		hv, ok := head.Content[field].(map[string]any)
		if !ok {
			continue
		}
		bv, _ := base.Content[field].(map[string]any)
		out := masked[field].(map[string]any)
		for k, v := range hv {
			if old, ok := bv[k]; ok && !equal(old, v) {
				out[k] = RedactedChanged
			}
		}
	}
	return masked
}
