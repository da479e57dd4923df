package schema

import "strings"

// enumRule is a fixed set of values the API server accepts for a field. The
// OpenAPI documents Kubernetes publishes declare none (the +enum markers of
// the Go types are not carried into them), so the sets come from the API
// server's own validation, each row naming the function it mirrors
// (k8s.io/kubernetes v1.37.2, pkg/apis/<group>/validation). Only sets the
// validation enforces on create are listed: a value outside one makes
// `kubectl apply` fail. The empty string is always accepted, since
// defaulting replaces it before validation runs.
type enumRule struct {
	values []string
	// items: the rule applies to each item of a list of strings.
	items bool
	// source names the API validation the set mirrors.
	source string
}

func enum(source string, values ...string) *enumRule {
	return &enumRule{values: values, source: source}
}

func enumItems(source string, values ...string) *enumRule {
	return &enumRule{values: values, items: true, source: source}
}

// allows reports whether v is accepted.
func (r *enumRule) allows(v string) bool {
	if v == "" {
		return true
	}
	for _, a := range r.values {
		if a == v {
			return true
		}
	}
	return false
}

// caseMatch returns the accepted value v differs from only in case.
func (r *enumRule) caseMatch(v string) string {
	for _, a := range r.values {
		if strings.EqualFold(a, v) {
			return a
		}
	}
	return ""
}

const (
	core       = "core/validation."
	coreV1     = "io.k8s.api.core.v1."
	apps       = "apps/validation."
	batch      = "batch/validation."
	networking = "networking/validation."
)

// Fields that share a Go type (ports, probes, selectors) share a row set.
var (
	protocol          = enum(core+"validateContainerPorts, validateServicePort (supportedPortProtocols)", "TCP", "UDP", "SCTP")
	pullPolicy        = enum(core+"validatePullPolicy (supportedPullPolicies)", "Always", "IfNotPresent", "Never")
	terminationPolicy = enum(core+"validateContainerCommon (terminationMessagePolicy)", "File", "FallbackToLogsOnError")
	containerRestart  = enum(core+"validateContainerRestartPolicy (supportedContainerRestartPolicies)", "Always", "Never", "OnFailure")
	accessModes       = enumItems(core+"ValidatePersistentVolumeSpec, ValidatePersistentVolumeClaimSpec (supportedAccessModes)", "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
	volumeMode        = enum(core+"ValidatePersistentVolumeSpec, ValidatePersistentVolumeClaimSpec (supportedVolumeModes)", "Block", "Filesystem")
	mountPropagation  = enum(core+"validateMountPropagation (supportedMountPropagations)", "Bidirectional", "HostToContainer", "None")
	uriScheme         = enum(core+"validateHTTPGetAction (supportedHTTPSchemes)", "HTTP", "HTTPS")
	seccompType       = enum(core+"validateSeccompProfileType", "Localhost", "RuntimeDefault", "Unconfined")
	appArmorType      = enum(core+"ValidateAppArmorProfileField", "Localhost", "RuntimeDefault", "Unconfined")
	selectorOperator  = enum("apimachinery pkg/apis/meta/v1/validation.ValidateLabelSelectorRequirement", "In", "NotIn", "Exists", "DoesNotExist")
	nodeOperator      = enum(core+"ValidateNodeSelectorRequirement", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
	taintEffect       = enum(core+"validateTaintEffect", "NoSchedule", "PreferNoSchedule", "NoExecute")
	restartPolicy     = enum(core+"validateRestartPolicy", "Always", "OnFailure", "Never")
	containerFields   = map[string]*enumRule{
		"imagePullPolicy":          pullPolicy,
		"terminationMessagePolicy": terminationPolicy,
		"restartPolicy":            containerRestart,
	}
)

// enumTable maps OpenAPI definition → property → accepted values.
var enumTable = map[string]map[string]*enumRule{
	coreV1 + "Container":          containerFields,
	coreV1 + "EphemeralContainer": {"imagePullPolicy": pullPolicy, "terminationMessagePolicy": terminationPolicy},
	coreV1 + "ContainerPort":      {"protocol": protocol},
	coreV1 + "ServicePort":        {"protocol": protocol},
	coreV1 + "EndpointPort":       {"protocol": protocol},
	coreV1 + "PodSpec": {
		"restartPolicy":    restartPolicy,
		"dnsPolicy":        enum(core+"validateDNSPolicy", "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"),
		"preemptionPolicy": enum(core+"ValidatePreemptionPolicy", "PreemptLowerPriority", "Never"),
	},
	coreV1 + "PodOS": {"name": enum(core+"validateOS (validOS)", "linux", "windows")},
	coreV1 + "PodSecurityContext": {
		"fsGroupChangePolicy": enum(core+"validateFSGroupChangePolicy (validFSGroupChangePolicies)", "OnRootMismatch", "Always"),
		"seLinuxChangePolicy": enum(core+"validateSELinuxChangePolicy (validSELinuxChangePolicies)", "Recursive", "MountOption"),
	},
	coreV1 + "SeccompProfile":  {"type": seccompType},
	coreV1 + "AppArmorProfile": {"type": appArmorType},
	coreV1 + "VolumeMount":     {"mountPropagation": mountPropagation},
	coreV1 + "HTTPGetAction":   {"scheme": uriScheme},
	coreV1 + "HostPathVolumeSource": {"type": enum(core+"validateHostPathType (supportedHostPathTypes)",
		"DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice")},
	coreV1 + "PersistentVolumeClaimSpec": {"accessModes": accessModes, "volumeMode": volumeMode},
	coreV1 + "PersistentVolumeSpec": {
		"accessModes":                   accessModes,
		"volumeMode":                    volumeMode,
		"persistentVolumeReclaimPolicy": enum(core+"ValidatePersistentVolumeSpec (supportedReclaimPolicy)", "Delete", "Recycle", "Retain"),
	},
	coreV1 + "ServiceSpec": {
		"type":                  enum(core+"ValidateService (supportedServiceType)", "ClusterIP", "NodePort", "LoadBalancer", "ExternalName"),
		"sessionAffinity":       enum(core+"ValidateService (supportedSessionAffinityType)", "ClientIP", "None"),
		"externalTrafficPolicy": enum(core+"validateServiceExternalTrafficPolicy (validExternalTrafficPolicies)", "Cluster", "Local"),
		"internalTrafficPolicy": enum(core+"validateServiceInternalTrafficPolicy (supportedServiceInternalTrafficPolicy)", "Cluster", "Local"),
		"ipFamilyPolicy":        enum(core+"ValidateService (supportedServiceIPFamilyPolicy)", "SingleStack", "PreferDualStack", "RequireDualStack"),
		"ipFamilies":            enumItems(core+"ValidateService (supportedServiceIPFamily)", "IPv4", "IPv6"),
	},
	coreV1 + "Toleration": {
		"operator": enum(core+"ValidateTolerations (Lt and Gt behind a feature gate)", "Exists", "Equal", "Lt", "Gt"),
		"effect":   taintEffect,
	},
	coreV1 + "Taint":                   {"effect": taintEffect},
	coreV1 + "NodeSelectorRequirement": {"operator": nodeOperator},
	"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement": {"operator": selectorOperator},
	coreV1 + "TopologySpreadConstraint": {
		"whenUnsatisfiable":  enum(core+"ValidateWhenUnsatisfiable (supportedScheduleActions)", "DoNotSchedule", "ScheduleAnyway"),
		"nodeAffinityPolicy": enum(core+"validateNodeInclusionPolicy (supportedPodTopologySpreadNodePolicies)", "Honor", "Ignore"),
		"nodeTaintsPolicy":   enum(core+"validateNodeInclusionPolicy (supportedPodTopologySpreadNodePolicies)", "Honor", "Ignore"),
	},
	coreV1 + "ContainerResizePolicy": {
		"resourceName":  enum(core+"validateResizePolicy (supportedResizeResources)", "cpu", "memory"),
		"restartPolicy": enum(core+"validateResizePolicy (supportedResizePolicies)", "NotRequired", "RestartContainer"),
	},
	"io.k8s.api.apps.v1.DeploymentStrategy":        {"type": enum(apps+"ValidateDeploymentStrategy", "Recreate", "RollingUpdate")},
	"io.k8s.api.apps.v1.DaemonSetUpdateStrategy":   {"type": enum(apps+"ValidateDaemonSetUpdateStrategy", "RollingUpdate", "OnDelete")},
	"io.k8s.api.apps.v1.StatefulSetUpdateStrategy": {"type": enum(apps+"ValidateStatefulSetSpec (Recreate behind a feature gate)", "RollingUpdate", "OnDelete", "Recreate")},
	"io.k8s.api.apps.v1.StatefulSetSpec":           {"podManagementPolicy": enum(apps+"ValidateStatefulSetSpec", "OrderedReady", "Parallel")},
	"io.k8s.api.apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy": {
		"whenDeleted": enum(apps+"ValidatePersistentVolumeClaimRetentionPolicyType", "Retain", "Delete"),
		"whenScaled":  enum(apps+"ValidatePersistentVolumeClaimRetentionPolicyType", "Retain", "Delete"),
	},
	"io.k8s.api.batch.v1.JobSpec": {
		"completionMode":       enum(batch+"validateJobSpec", "NonIndexed", "Indexed"),
		"podReplacementPolicy": enum(batch+"validatePodReplacementPolicy (supportedPodReplacementPolicy)", "TerminatingOrFailed", "Failed"),
	},
	"io.k8s.api.batch.v1.CronJobSpec":            {"concurrencyPolicy": enum(batch+"validateConcurrencyPolicy", "Allow", "Forbid", "Replace")},
	"io.k8s.api.networking.v1.HTTPIngressPath":   {"pathType": enum(networking+"validateHTTPIngressPath (supportedPathTypes)", "Exact", "Prefix", "ImplementationSpecific")},
	"io.k8s.api.networking.v1.NetworkPolicySpec": {"policyTypes": enumItems(networking+"ValidateNetworkPolicySpec", "Ingress", "Egress")},
	"io.k8s.api.networking.v1.NetworkPolicyPort": {"protocol": protocol},
	"io.k8s.api.discovery.v1.EndpointPort":       {"protocol": protocol},
	"io.k8s.api.rbac.v1.Subject":                 {"kind": enum("rbac/validation.ValidateRoleBindingSubject", "ServiceAccount", "User", "Group")},
	"io.k8s.api.storage.v1.StorageClass": {
		"reclaimPolicy":     enum("storage/validation.validateReclaimPolicy (supportedReclaimPolicy)", "Delete", "Retain"),
		"volumeBindingMode": enum("storage/validation.validateVolumeBindingMode", "Immediate", "WaitForFirstConsumer"),
	},
	"io.k8s.api.policy.v1.PodDisruptionBudgetSpec": {"unhealthyPodEvictionPolicy": enum("policy/validation.ValidatePodDisruptionBudgetSpec (supportedUnhealthyPodEvictionPolicies)", "IfHealthyBudget", "AlwaysAllow")},
	"io.k8s.api.autoscaling.v2.MetricSpec":         {"type": enum("autoscaling/validation.validateMetricSpec (validMetricSourceTypes)", "Object", "Pods", "Resource", "ContainerResource", "External")},
	"io.k8s.api.autoscaling.v2.MetricTarget":       {"type": enum("autoscaling/validation.validateMetricTarget", "Utilization", "Value", "AverageValue")},
	"io.k8s.api.autoscaling.v2.HPAScalingPolicy":   {"type": enum("autoscaling/validation.validateScalingPolicy (validPolicyTypes)", "Pods", "Percent")},
	"io.k8s.api.autoscaling.v2.HPAScalingRules":    {"selectPolicy": enum("autoscaling/validation.validateScalingRules (validSelectPolicyTypes)", "Max", "Min", "Disabled")},
}
