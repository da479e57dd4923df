package checks

import (
	"github.com/plumb-ci/plumb/internal/manifest"
)

// autoscalerGatherer finds the HorizontalPodAutoscaler that scales the
// target workload, so that replica checks judge (and point at) its
// minReplicas rather than the spec.replicas it overrides.
var autoscalerGatherer = &gathererDef{
	name: "autoscaler", version: 1,
	Summary: "The HorizontalPodAutoscaler of the same render target and namespace whose spec.scaleTargetRef names " +
		"the object (kind and name): {name, minReplicas, maxReplicas} (minReplicas defaults to 1), located at its " +
		"minReplicas line; null when none scales it.",
	Argument: "none",
	prepare: func(_ string, _ TargetType) (gatherFunc, error) {
		return func(s *subject) gathered {
			hpa := scalerOf(s.target, s.obj)
			if hpa == nil {
				return gathered{}
			}
			content := s.target.content(hpa)
			spec, _ := content["spec"].(map[string]any)
			minReplicas, hasMin := spec["minReplicas"]
			if !hasMin || minReplicas == nil {
				minReplicas = int64(1)
			}
			at := origin{obj: hpa, path: manifest.Path{manifest.Key("spec"), manifest.Key("minReplicas")}}
			if !hasMin {
				at.path = manifest.Path{manifest.Key("spec"), manifest.Key("scaleTargetRef")}
			}
			return gathered{value: map[string]any{
				"name":        hpa.ID.Name,
				"minReplicas": minReplicas,
				"maxReplicas": spec["maxReplicas"],
			}, at: &at, objects: []*manifest.Object{hpa}}
		}, nil
	},
}

// scalerOf returns the first HorizontalPodAutoscaler (in the target's
// order) of o's namespace whose scaleTargetRef names o.
func scalerOf(t *targetIndex, o *manifest.Object) *manifest.Object {
	if o == nil {
		return nil
	}
	for _, hpa := range t.byKind["HorizontalPodAutoscaler"] {
		if t.namespaceOf(hpa) != t.namespaceOf(o) {
			continue
		}
		spec, _ := t.content(hpa)["spec"].(map[string]any)
		ref, _ := spec["scaleTargetRef"].(map[string]any)
		if kind, _ := ref["kind"].(string); kind != o.ID.Kind {
			continue
		}
		if name, _ := ref["name"].(string); name == o.ID.Name {
			return hpa
		}
	}
	return nil
}
