package render

import "sigs.k8s.io/kustomize/kyaml/resid"

// fieldSpec is one of kustomize's default field specs: where a transformer
// writes, for which kinds. These mirror krusty's built-in defaults
// (api/internal/konfig/builtinpluginconsts, not importable).
type fieldSpec struct {
	path                 string
	group, version, kind string
}

// applies reports whether the spec selects a resource's group, version and
// kind (empty parts select anything), as resid.Gvk.IsSelected does.
func (f fieldSpec) applies(g resid.Gvk) bool {
	return (f.group == "" || f.group == g.Group) && (f.version == "" || f.version == g.Version) && (f.kind == "" || f.kind == g.Kind)
}

// metadataLabelSpecs are where labels go with includeTemplates.
var metadataLabelSpecs = []fieldSpec{
	{path: "metadata/labels"},
	{path: "spec/template/metadata/labels", version: "v1", kind: "ReplicationController"},
	{path: "spec/template/metadata/labels", kind: "Deployment"},
	{path: "spec/template/metadata/labels", kind: "ReplicaSet"},
	{path: "spec/template/metadata/labels", kind: "DaemonSet"},
	{path: "spec/template/metadata/labels", group: "apps", kind: "StatefulSet"},
	{path: "spec/template/metadata/labels", group: "batch", kind: "Job"},
	{path: "spec/jobTemplate/metadata/labels", group: "batch", kind: "CronJob"},
	{path: "spec/jobTemplate/spec/template/metadata/labels", group: "batch", kind: "CronJob"},
}

var templateLabelSpecs = metadataLabelSpecs

// commonLabelSpecs are where commonLabels (and labels with
// includeSelectors) go: metadata, pod templates and selectors.
var commonLabelSpecs = append(append([]fieldSpec{
	{path: "spec/selector", version: "v1", kind: "Service"},
	{path: "spec/selector", version: "v1", kind: "ReplicationController"},
	{path: "spec/selector/matchLabels", kind: "Deployment"},
	{path: "spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", group: "apps", kind: "Deployment"},
	{path: "spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", group: "apps", kind: "Deployment"},
	{path: "spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", group: "apps", kind: "Deployment"},
	{path: "spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", group: "apps", kind: "Deployment"},
	{path: "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels", group: "apps", kind: "Deployment"},
	{path: "spec/selector/matchLabels", kind: "ReplicaSet"},
	{path: "spec/selector/matchLabels", kind: "DaemonSet"},
	{path: "spec/selector/matchLabels", group: "apps", kind: "StatefulSet"},
	{path: "spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", group: "apps", kind: "StatefulSet"},
	{path: "spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", group: "apps", kind: "StatefulSet"},
	{path: "spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels", group: "apps", kind: "StatefulSet"},
	{path: "spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels", group: "apps", kind: "StatefulSet"},
	{path: "spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels", group: "apps", kind: "StatefulSet"},
	{path: "spec/selector/matchLabels", group: "batch", kind: "Job"},
	{path: "spec/jobTemplate/spec/selector/matchLabels", group: "batch", kind: "CronJob"},
	{path: "spec/selector/matchLabels", group: "policy", kind: "PodDisruptionBudget"},
	{path: "spec/podSelector/matchLabels", group: "networking.k8s.io", kind: "NetworkPolicy"},
	{path: "spec/ingress/from/podSelector/matchLabels", group: "networking.k8s.io", kind: "NetworkPolicy"},
	{path: "spec/egress/to/podSelector/matchLabels", group: "networking.k8s.io", kind: "NetworkPolicy"},
}, metadataLabelSpecs...), fieldSpec{path: "spec/volumeClaimTemplates[]/metadata/labels", group: "apps", kind: "StatefulSet"})

// commonAnnotationSpecs are where commonAnnotations go.
var commonAnnotationSpecs = []fieldSpec{
	{path: "metadata/annotations"},
	{path: "spec/template/metadata/annotations", version: "v1", kind: "ReplicationController"},
	{path: "spec/template/metadata/annotations", kind: "Deployment"},
	{path: "spec/template/metadata/annotations", kind: "ReplicaSet"},
	{path: "spec/template/metadata/annotations", kind: "DaemonSet"},
	{path: "spec/template/metadata/annotations", kind: "StatefulSet"},
	{path: "spec/template/metadata/annotations", group: "batch", kind: "Job"},
	{path: "spec/jobTemplate/metadata/annotations", group: "batch", kind: "CronJob"},
	{path: "spec/jobTemplate/spec/template/metadata/annotations", group: "batch", kind: "CronJob"},
}
