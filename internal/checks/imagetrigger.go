package checks

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
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

// triggerIndexPath reads a container by index out of a trigger's
// fieldPath: spec.template.spec.initContainers[0].image.
var triggerIndexPath = regexp.MustCompile(`^((?:[A-Za-z]+\.)*)((?:init)?[cC]ontainers)\[(\d+)\]\.image$`)

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
				} else if m := triggerIndexPath.FindStringSubmatch(strings.TrimSpace(e.FieldPath)); m != nil {
					add(containerAt(content, m[1], m[2], m[3]))
				}
			}
		}
	}
	return names
}

// containerAt returns the name of the container a fieldPath names by index
// (prefix "spec.template.spec.", list "containers", index "0"), "" when
// there is none.
func containerAt(content map[string]any, prefix, list, index string) string {
	var v any = content
	for _, key := range strings.Split(strings.TrimSuffix(prefix, "."), ".") {
		if key == "" {
			continue
		}
		m, _ := v.(map[string]any)
		v = m[key]
	}
	m, _ := v.(map[string]any)
	items, _ := m[list].([]any)
	i, err := strconv.Atoi(index)
	if err != nil || i >= len(items) {
		return ""
	}
	c, _ := items[i].(map[string]any)
	name, _ := c["name"].(string)
	return name
}
