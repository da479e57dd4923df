package checks

import (
	"encoding/json"
	"regexp"
)

// OpenShift fills in a container's image from an image stream when an
// image-change trigger names the container: a DeploymentConfig's
// spec.triggers of type ImageChange (imageChangeParams.containerNames), or
// the image.openshift.io/triggers annotation of any workload, whose
// fieldPath selects the container by name. Such a container's image is
// often left empty or blank in the manifest, and that is not a mistake.

// triggerAnnotation is the annotation of image-change triggers on
// Kubernetes workloads.
const triggerAnnotation = "image.openshift.io/triggers"

// triggerFieldPath reads the container name out of a trigger's fieldPath:
// spec.template.spec.containers[?(@.name=="web")].image.
var triggerFieldPath = regexp.MustCompile(`[cC]ontainers\[\?\(@\.name==\s*["']?([^"'\)\]]+?)["']?\s*\)\]\.image`)

// triggeredContainers returns the names of the containers whose image an
// image-change trigger of the object sets.
func triggeredContainers(content map[string]any) map[string]bool {
	var names map[string]bool
	add := func(n string) {
		if n == "" {
			return
		}
		if names == nil {
			names = map[string]bool{}
		}
		names[n] = true
	}
	spec, _ := content["spec"].(map[string]any)
	triggers, _ := spec["triggers"].([]any)
	for _, t := range triggers {
		tm, _ := t.(map[string]any)
		if tm["type"] != "ImageChange" {
			continue
		}
		params, _ := tm["imageChangeParams"].(map[string]any)
		list, _ := params["containerNames"].([]any)
		for _, n := range list {
			s, _ := n.(string)
			add(s)
		}
	}
	md, _ := content["metadata"].(map[string]any)
	annotations, _ := md["annotations"].(map[string]any)
	if raw, ok := annotations[triggerAnnotation].(string); ok {
		var entries []struct {
			FieldPath string `json:"fieldPath"`
		}
		if json.Unmarshal([]byte(raw), &entries) == nil {
			for _, e := range entries {
				if m := triggerFieldPath.FindStringSubmatch(e.FieldPath); m != nil {
					add(m[1])
				}
			}
		}
	}
	return names
}
