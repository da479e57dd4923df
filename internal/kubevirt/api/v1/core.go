package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The Kubernetes core types (k8s.io/api/core/v1) that the
// VirtualMachineInstance spec embeds, with their upstream names and tags.

// ResourceName is corev1.ResourceName.
type ResourceName string

// ResourceList is corev1.ResourceList.
type ResourceList map[ResourceName]resource.Quantity

// PullPolicy is corev1.PullPolicy.
type PullPolicy string

// DNSPolicy is corev1.DNSPolicy.
type DNSPolicy string

// LocalObjectReference is corev1.LocalObjectReference.
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// CorePersistentVolumeClaimVolumeSource is
// corev1.PersistentVolumeClaimVolumeSource, renamed because KubeVirt's own
// type of that name (which embeds it) lives in this package too.
type CorePersistentVolumeClaimVolumeSource struct {
	ClaimName string `json:"claimName"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// Affinity is corev1.Affinity.
type Affinity struct {
	NodeAffinity    *NodeAffinity    `json:"nodeAffinity,omitempty"`
	PodAffinity     *PodAffinity     `json:"podAffinity,omitempty"`
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty"`
}

// NodeAffinity is corev1.NodeAffinity.
type NodeAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  *NodeSelector             `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// NodeSelector is corev1.NodeSelector.
type NodeSelector struct {
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
}

// NodeSelectorTerm is corev1.NodeSelectorTerm.
type NodeSelectorTerm struct {
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty"`
	MatchFields      []NodeSelectorRequirement `json:"matchFields,omitempty"`
}

// NodeSelectorRequirement is corev1.NodeSelectorRequirement.
type NodeSelectorRequirement struct {
	Key      string               `json:"key"`
	Operator NodeSelectorOperator `json:"operator"`
	Values   []string             `json:"values,omitempty"`
}

// NodeSelectorOperator is corev1.NodeSelectorOperator.
type NodeSelectorOperator string

// PreferredSchedulingTerm is corev1.PreferredSchedulingTerm.
type PreferredSchedulingTerm struct {
	Weight     int32            `json:"weight"`
	Preference NodeSelectorTerm `json:"preference"`
}

// PodAffinity is corev1.PodAffinity.
type PodAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAntiAffinity is corev1.PodAntiAffinity.
type PodAntiAffinity struct {
	RequiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm is corev1.PodAffinityTerm.
type PodAffinityTerm struct {
	LabelSelector     *LabelSelector `json:"labelSelector,omitempty"`
	Namespaces        []string       `json:"namespaces,omitempty"`
	TopologyKey       string         `json:"topologyKey"`
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
	MatchLabelKeys    []string       `json:"matchLabelKeys,omitempty"`
	MismatchLabelKeys []string       `json:"mismatchLabelKeys,omitempty"`
}

// WeightedPodAffinityTerm is corev1.WeightedPodAffinityTerm.
type WeightedPodAffinityTerm struct {
	Weight          int32           `json:"weight"`
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}

// Toleration is corev1.Toleration.
type Toleration struct {
	Key               string             `json:"key,omitempty"`
	Operator          TolerationOperator `json:"operator,omitempty"`
	Value             string             `json:"value,omitempty"`
	Effect            TaintEffect        `json:"effect,omitempty"`
	TolerationSeconds *int64             `json:"tolerationSeconds,omitempty"`
}

// TolerationOperator is corev1.TolerationOperator.
type TolerationOperator string

// TaintEffect is corev1.TaintEffect.
type TaintEffect string

// TopologySpreadConstraint is corev1.TopologySpreadConstraint.
type TopologySpreadConstraint struct {
	MaxSkew            int32                         `json:"maxSkew"`
	TopologyKey        string                        `json:"topologyKey"`
	WhenUnsatisfiable  UnsatisfiableConstraintAction `json:"whenUnsatisfiable"`
	LabelSelector      *LabelSelector                `json:"labelSelector,omitempty"`
	MinDomains         *int32                        `json:"minDomains,omitempty"`
	NodeAffinityPolicy *NodeInclusionPolicy          `json:"nodeAffinityPolicy,omitempty"`
	NodeTaintsPolicy   *NodeInclusionPolicy          `json:"nodeTaintsPolicy,omitempty"`
	MatchLabelKeys     []string                      `json:"matchLabelKeys,omitempty"`
}

// UnsatisfiableConstraintAction is corev1.UnsatisfiableConstraintAction.
type UnsatisfiableConstraintAction string

// NodeInclusionPolicy is corev1.NodeInclusionPolicy.
type NodeInclusionPolicy string

// PodDNSConfig is corev1.PodDNSConfig.
type PodDNSConfig struct {
	Nameservers []string             `json:"nameservers,omitempty"`
	Searches    []string             `json:"searches,omitempty"`
	Options     []PodDNSConfigOption `json:"options,omitempty"`
}

// PodDNSConfigOption is corev1.PodDNSConfigOption.
type PodDNSConfigOption struct {
	Name  string  `json:"name,omitempty"`
	Value *string `json:"value,omitempty"`
}

// PodResourceClaim is corev1.PodResourceClaim.
type PodResourceClaim struct {
	Name                      string  `json:"name"`
	ResourceClaimName         *string `json:"resourceClaimName,omitempty"`
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty"`
}

// DownwardAPIVolumeFile is corev1.DownwardAPIVolumeFile.
type DownwardAPIVolumeFile struct {
	Path             string                 `json:"path"`
	FieldRef         *ObjectFieldSelector   `json:"fieldRef,omitempty"`
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	Mode             *int32                 `json:"mode,omitempty"`
}

// ObjectFieldSelector is corev1.ObjectFieldSelector.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty"`
	FieldPath  string `json:"fieldPath"`
}

// ResourceFieldSelector is corev1.ResourceFieldSelector.
type ResourceFieldSelector struct {
	ContainerName string            `json:"containerName,omitempty"`
	Resource      string            `json:"resource"`
	Divisor       resource.Quantity `json:"divisor,omitempty"`
}

// ExecAction is corev1.ExecAction.
type ExecAction struct {
	Command []string `json:"command,omitempty"`
}

// HTTPGetAction is corev1.HTTPGetAction.
type HTTPGetAction struct {
	Path        string             `json:"path,omitempty"`
	Port        intstr.IntOrString `json:"port"`
	Host        string             `json:"host,omitempty"`
	Scheme      URIScheme          `json:"scheme,omitempty"`
	HTTPHeaders []HTTPHeader       `json:"httpHeaders,omitempty"`
}

// URIScheme is corev1.URIScheme.
type URIScheme string

// HTTPHeader is corev1.HTTPHeader.
type HTTPHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// TCPSocketAction is corev1.TCPSocketAction.
type TCPSocketAction struct {
	Port intstr.IntOrString `json:"port"`
	Host string             `json:"host,omitempty"`
}
