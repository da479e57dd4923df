package renderdiff

import (
	"github.com/plumb-ci/plumb/internal/manifest"
)

// RedactedChanged stands for a Secret value that the pull request changes.
// The reviewer learns that it changed, and nothing else: not its value, its
// length or a hash of it.
const RedactedChanged = manifest.Redacted + " (changed)"

// lastApplied is the annotation `kubectl apply` writes and `kubectl get -o
// yaml` prints: on a Secret it holds the whole Secret as JSON, values
// included, so it is masked like data and stringData.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// maskBase masks the values of a Secret at the base.
func maskBase(o *manifest.Object) map[string]any {
	masked := manifest.MaskSecretContent(o.Content)
	maskAnnotation(masked, o.Content, nil)
	return masked
}

// maskHead masks the values of a Secret at the head, marking the values
// that differ from the base's so that the diff shows a changed line where a
// value changed.
func maskHead(base, head *manifest.Object) map[string]any {
	masked := manifest.MaskSecretContent(head.Content)
	var baseContent map[string]any
	if base != nil && manifest.IsSecret(base.Content) {
		baseContent = base.Content
	}
	maskAnnotation(masked, head.Content, baseContent)
	if baseContent == nil || !manifest.IsSecret(head.Content) {
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

// maskAnnotation masks a Secret's last-applied annotation in masked (a
// shallow copy of content: metadata and its annotations are copied before
// the change, the object itself is not touched). With base, a value that
// differs from the base's reads RedactedChanged.
func maskAnnotation(masked, content, base map[string]any) {
	if !manifest.IsSecret(content) {
		return
	}
	value, ok := annotation(content, lastApplied)
	if !ok {
		return
	}
	meta, _ := content["metadata"].(map[string]any)
	metaCopy := make(map[string]any, len(meta))
	for k, v := range meta {
		metaCopy[k] = v
	}
	anns, _ := meta["annotations"].(map[string]any)
	annsCopy := make(map[string]any, len(anns))
	for k, v := range anns {
		annsCopy[k] = v
	}
	annsCopy[lastApplied] = manifest.Redacted
	if base != nil {
		if old, ok := annotation(base, lastApplied); ok && !equal(old, value) {
			annsCopy[lastApplied] = RedactedChanged
		}
	}
	metaCopy["annotations"] = annsCopy
	masked["metadata"] = metaCopy
}

// annotation reads metadata.annotations[key].
func annotation(content map[string]any, key string) (any, bool) {
	meta, _ := content["metadata"].(map[string]any)
	anns, _ := meta["annotations"].(map[string]any)
	v, ok := anns[key]
	return v, ok
}
