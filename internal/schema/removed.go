package schema

// apiLifecycle is one API version of a kind that Kubernetes deprecated and
// removes (or removed): served up to the minor version before Removed,
// deprecated from Deprecated on.
type apiLifecycle struct {
	group, version, kind string
	deprecated, removed  int // Kubernetes 1.x minor versions; 0: unknown
	// replacement is the apiVersion to move to ("" when the kind was
	// removed without one).
	replacement string
	// migration lists the field changes the move needs, where known.
	migration string
	// source is where the row comes from.
	source string
}

const (
	guide = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/"
	// lifecycleSource: the prerelease-lifecycle tags of the type in
	// k8s.io/api v0.37.2 (<group>/<version>/zz_generated.prerelease-lifecycle.go).
	lifecycle = "k8s.io/api v0.37.2 zz_generated.prerelease-lifecycle.go"
)

// removedAPIs lists every API version of a kind that Kubernetes removed
// since 1.16 (and the admission-initializer kind removed in 1.14, still
// met in old repositories), and the beta and alpha versions deprecated and
// scheduled for removal. Rows of the deprecation guide cite its section;
// the others cite the type's prerelease-lifecycle tags in k8s.io/api,
// which TestRemovedAPIsMatchLifecycle checks them against.
var removedAPIs = []apiLifecycle{
	// 1.14
	{"admissionregistration.k8s.io", "v1alpha1", "InitializerConfiguration", 0, 14, "", "admission initializers were removed without a replacement: use a mutating admission webhook (MutatingWebhookConfiguration)", "https://github.com/kubernetes/kubernetes/blob/master/CHANGELOG/CHANGELOG-1.14.md (#72972)"},

	// 1.16 (guide#v1-16)
	{"extensions", "v1beta1", "NetworkPolicy", 9, 16, "networking.k8s.io/v1", "", guide + "#networkpolicy-v116"},
	{"extensions", "v1beta1", "DaemonSet", 8, 16, "apps/v1", "spec.templateGeneration is removed; spec.selector is required and must match spec.template.metadata.labels; spec.updateStrategy.type defaults to RollingUpdate", guide + "#daemonset-v116"},
	{"apps", "v1beta2", "DaemonSet", 9, 16, "apps/v1", "spec.templateGeneration is removed; spec.selector is required and must match spec.template.metadata.labels; spec.updateStrategy.type defaults to RollingUpdate", guide + "#daemonset-v116"},
	{"extensions", "v1beta1", "Deployment", 8, 16, "apps/v1", "spec.rollbackTo is removed; spec.selector is required and must match spec.template.metadata.labels; spec.progressDeadlineSeconds defaults to 600, spec.revisionHistoryLimit to 10, maxSurge and maxUnavailable to 25%", guide + "#deployment-v116"},
	{"apps", "v1beta1", "Deployment", 8, 16, "apps/v1", "spec.rollbackTo is removed; spec.selector is required and must match spec.template.metadata.labels; spec.progressDeadlineSeconds defaults to 600, spec.revisionHistoryLimit to 10, maxSurge and maxUnavailable to 25%", guide + "#deployment-v116"},
	{"apps", "v1beta2", "Deployment", 9, 16, "apps/v1", "spec.selector is required and must match spec.template.metadata.labels", guide + "#deployment-v116"},
	{"apps", "v1beta1", "StatefulSet", 8, 16, "apps/v1", "spec.selector is required and must match spec.template.metadata.labels; spec.updateStrategy.type defaults to RollingUpdate", guide + "#statefulset-v116"},
	{"apps", "v1beta2", "StatefulSet", 9, 16, "apps/v1", "spec.selector is required and must match spec.template.metadata.labels; spec.updateStrategy.type defaults to RollingUpdate", guide + "#statefulset-v116"},
	{"extensions", "v1beta1", "ReplicaSet", 8, 16, "apps/v1", "spec.selector is required and must match spec.template.metadata.labels", guide + "#replicaset-v116"},
	{"apps", "v1beta1", "ReplicaSet", 8, 16, "apps/v1", "spec.selector is required and must match spec.template.metadata.labels", guide + "#replicaset-v116"},
	{"apps", "v1beta2", "ReplicaSet", 9, 16, "apps/v1", "spec.selector is required and must match spec.template.metadata.labels", guide + "#replicaset-v116"},
	{"extensions", "v1beta1", "PodSecurityPolicy", 10, 16, "", "its successor policy/v1beta1 was removed in 1.25 too: use Pod Security Admission (namespace labels pod-security.kubernetes.io/*)", guide + "#podsecuritypolicy-v116"},
	{"apps", "v1beta1", "ControllerRevision", 8, 16, "apps/v1", "", lifecycle},
	{"apps", "v1beta2", "ControllerRevision", 9, 16, "apps/v1", "", lifecycle},

	// 1.22 (guide#v1-22)
	{"admissionregistration.k8s.io", "v1beta1", "MutatingWebhookConfiguration", 16, 22, "admissionregistration.k8s.io/v1", "webhooks[*].failurePolicy defaults to Fail (was Ignore), matchPolicy to Equivalent (was Exact), timeoutSeconds to 10 (was 30); sideEffects and admissionReviewVersions are required; sideEffects Unknown and Some are not allowed", guide + "#webhook-resources-v122"},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingWebhookConfiguration", 16, 22, "admissionregistration.k8s.io/v1", "webhooks[*].failurePolicy defaults to Fail (was Ignore), matchPolicy to Equivalent (was Exact), timeoutSeconds to 10 (was 30); sideEffects and admissionReviewVersions are required; sideEffects Unknown and Some are not allowed", guide + "#webhook-resources-v122"},
	{"apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition", 16, 22, "apiextensions.k8s.io/v1", "spec.scope is required; spec.preserveUnknownFields: true is not allowed; spec.validation becomes spec.versions[*].schema, spec.subresources and spec.additionalPrinterColumns move into each version (JSONPath → jsonPath); spec.conversion.webhookClientConfig becomes spec.conversion.webhook.clientConfig; every version needs a structural schema", guide + "#customresourcedefinition-v122"},
	{"apiregistration.k8s.io", "v1beta1", "APIService", 19, 22, "apiregistration.k8s.io/v1", "", guide + "#apiservice-v122"},
	{"authentication.k8s.io", "v1beta1", "TokenReview", 19, 22, "authentication.k8s.io/v1", "", guide + "#tokenreview-v122"},
	{"authorization.k8s.io", "v1beta1", "SubjectAccessReview", 19, 22, "authorization.k8s.io/v1", "spec.group is renamed spec.groups", guide + "#subjectaccessreview-resources-v122"},
	{"authorization.k8s.io", "v1beta1", "LocalSubjectAccessReview", 19, 22, "authorization.k8s.io/v1", "spec.group is renamed spec.groups", guide + "#subjectaccessreview-resources-v122"},
	{"authorization.k8s.io", "v1beta1", "SelfSubjectAccessReview", 19, 22, "authorization.k8s.io/v1", "spec.group is renamed spec.groups", guide + "#subjectaccessreview-resources-v122"},
	{"authorization.k8s.io", "v1beta1", "SelfSubjectRulesReview", 19, 22, "authorization.k8s.io/v1", "", lifecycle},
	{"certificates.k8s.io", "v1beta1", "CertificateSigningRequest", 19, 22, "certificates.k8s.io/v1", "spec.signerName and spec.usages are required; status.conditions may not hold duplicate types; status.certificate must be PEM-encoded", guide + "#certificatesigningrequest-v122"},
	{"coordination.k8s.io", "v1beta1", "Lease", 19, 22, "coordination.k8s.io/v1", "", guide + "#lease-v122"},
	{"extensions", "v1beta1", "Ingress", 14, 22, "networking.k8s.io/v1", "spec.backend is renamed spec.defaultBackend; a backend's serviceName becomes service.name, and servicePort becomes service.port.number (a number) or service.port.name (a name); every path needs pathType (Prefix, Exact or ImplementationSpecific)", guide + "#ingress-v122"},
	{"networking.k8s.io", "v1beta1", "Ingress", 19, 22, "networking.k8s.io/v1", "spec.backend is renamed spec.defaultBackend; a backend's serviceName becomes service.name, and servicePort becomes service.port.number (a number) or service.port.name (a name); every path needs pathType (Prefix, Exact or ImplementationSpecific)", guide + "#ingress-v122"},
	{"networking.k8s.io", "v1beta1", "IngressClass", 19, 22, "networking.k8s.io/v1", "", guide + "#ingressclass-v122"},
	{"rbac.authorization.k8s.io", "v1beta1", "ClusterRole", 17, 22, "rbac.authorization.k8s.io/v1", "", guide + "#rbac-resources-v122"},
	{"rbac.authorization.k8s.io", "v1beta1", "ClusterRoleBinding", 17, 22, "rbac.authorization.k8s.io/v1", "", guide + "#rbac-resources-v122"},
	{"rbac.authorization.k8s.io", "v1beta1", "Role", 17, 22, "rbac.authorization.k8s.io/v1", "", guide + "#rbac-resources-v122"},
	{"rbac.authorization.k8s.io", "v1beta1", "RoleBinding", 17, 22, "rbac.authorization.k8s.io/v1", "", guide + "#rbac-resources-v122"},
	{"scheduling.k8s.io", "v1beta1", "PriorityClass", 14, 22, "scheduling.k8s.io/v1", "", guide + "#priorityclass-v122"},
	{"storage.k8s.io", "v1beta1", "CSIDriver", 19, 22, "storage.k8s.io/v1", "", guide + "#storage-resources-v122"},
	{"storage.k8s.io", "v1beta1", "CSINode", 17, 22, "storage.k8s.io/v1", "", guide + "#storage-resources-v122"},
	{"storage.k8s.io", "v1beta1", "StorageClass", 19, 22, "storage.k8s.io/v1", "", guide + "#storage-resources-v122"},
	{"storage.k8s.io", "v1beta1", "VolumeAttachment", 19, 22, "storage.k8s.io/v1", "", guide + "#storage-resources-v122"},

	// 1.24
	{"storage.k8s.io", "v1alpha1", "CSIStorageCapacity", 21, 24, "storage.k8s.io/v1", "", lifecycle},
	{"storage.k8s.io", "v1alpha1", "VolumeAttachment", 21, 24, "storage.k8s.io/v1", "", lifecycle},

	// 1.25 (guide#v1-25)
	{"batch", "v1beta1", "CronJob", 21, 25, "batch/v1", "", guide + "#cronjob-v125"},
	{"discovery.k8s.io", "v1beta1", "EndpointSlice", 21, 25, "discovery.k8s.io/v1", "endpoints[*].topology is replaced by nodeName and zone (the kubernetes.io/hostname and topology.kubernetes.io/zone keys); use hints for topology-aware routing", guide + "#endpointslice-v125"},
	{"events.k8s.io", "v1beta1", "Event", 22, 25, "events.k8s.io/v1", "type is limited to Normal and Warning; involvedObject is renamed regarding; action, reason, reportingController and reportingInstance are required on create; eventTime replaces firstTimestamp, series.lastObservedTime replaces lastTimestamp", guide + "#event-v125"},
	{"autoscaling", "v2beta1", "HorizontalPodAutoscaler", 22, 25, "autoscaling/v2", "targetAverageUtilization becomes target.averageUtilization with target.type: Utilization; targetAverageValue becomes target.averageValue; metric names and selectors move under metric", guide + "#horizontalpodautoscaler-v125"},
	{"policy", "v1beta1", "PodDisruptionBudget", 21, 25, "policy/v1", "an empty spec.selector ({}) selects every pod of the namespace in policy/v1 (it selected none)", guide + "#poddisruptionbudget-v125"},
	{"policy", "v1beta1", "PodSecurityPolicy", 21, 25, "", "PodSecurityPolicy was removed without a replacement API: use Pod Security Admission (namespace labels pod-security.kubernetes.io/enforce) or a policy engine", guide + "#psp-v125"},
	{"policy", "v1beta1", "Eviction", 22, 25, "policy/v1", "", lifecycle},
	{"node.k8s.io", "v1beta1", "RuntimeClass", 22, 25, "node.k8s.io/v1", "", guide + "#runtimeclass-v125"},

	// 1.26 (guide#v1-26)
	{"flowcontrol.apiserver.k8s.io", "v1beta1", "FlowSchema", 23, 26, "flowcontrol.apiserver.k8s.io/v1", "", guide + "#flowcontrol-resources-v126"},
	{"flowcontrol.apiserver.k8s.io", "v1beta1", "PriorityLevelConfiguration", 23, 26, "flowcontrol.apiserver.k8s.io/v1", "", guide + "#flowcontrol-resources-v126"},
	{"autoscaling", "v2beta2", "HorizontalPodAutoscaler", 23, 26, "autoscaling/v2", "", guide + "#horizontalpodautoscaler-v126"},

	// 1.27 (guide#v1-27)
	{"storage.k8s.io", "v1beta1", "CSIStorageCapacity", 24, 27, "storage.k8s.io/v1", "", guide + "#csistoragecapacity-v127"},

	// 1.29 (guide#v1-29)
	{"flowcontrol.apiserver.k8s.io", "v1beta2", "FlowSchema", 26, 29, "flowcontrol.apiserver.k8s.io/v1", "", guide + "#flowcontrol-resources-v129"},
	{"flowcontrol.apiserver.k8s.io", "v1beta2", "PriorityLevelConfiguration", 26, 29, "flowcontrol.apiserver.k8s.io/v1", "", guide + "#flowcontrol-resources-v129"},

	// 1.32 (guide#v1-32)
	{"flowcontrol.apiserver.k8s.io", "v1beta3", "FlowSchema", 29, 32, "flowcontrol.apiserver.k8s.io/v1", "", guide + "#flowcontrol-resources-v132"},
	{"flowcontrol.apiserver.k8s.io", "v1beta3", "PriorityLevelConfiguration", 29, 32, "flowcontrol.apiserver.k8s.io/v1", "", guide + "#flowcontrol-resources-v132"},
	{"admissionregistration.k8s.io", "v1alpha1", "ValidatingAdmissionPolicy", 29, 32, "admissionregistration.k8s.io/v1", "", lifecycle},
	{"admissionregistration.k8s.io", "v1alpha1", "ValidatingAdmissionPolicyBinding", 29, 32, "admissionregistration.k8s.io/v1", "", lifecycle},
	{"authentication.k8s.io", "v1alpha1", "SelfSubjectReview", 29, 32, "authentication.k8s.io/v1", "", lifecycle},

	// 1.33 and later, from the prerelease-lifecycle tags
	{"authentication.k8s.io", "v1beta1", "SelfSubjectReview", 30, 33, "authentication.k8s.io/v1", "", lifecycle},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicy", 31, 34, "admissionregistration.k8s.io/v1", "", lifecycle},
	{"admissionregistration.k8s.io", "v1beta1", "ValidatingAdmissionPolicyBinding", 31, 34, "admissionregistration.k8s.io/v1", "", lifecycle},
	{"storage.k8s.io", "v1alpha1", "VolumeAttributesClass", 32, 35, "storage.k8s.io/v1", "", lifecycle},
	{"storage.k8s.io", "v1beta1", "VolumeAttributesClass", 34, 37, "storage.k8s.io/v1", "", lifecycle},
	{"networking.k8s.io", "v1beta1", "IPAddress", 34, 37, "networking.k8s.io/v1", "", lifecycle},
	{"networking.k8s.io", "v1beta1", "ServiceCIDR", 34, 37, "networking.k8s.io/v1", "", lifecycle},
	{"certificates.k8s.io", "v1alpha1", "ClusterTrustBundle", 34, 37, "certificates.k8s.io/v1", "", lifecycle},
	{"admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicy", 35, 38, "admissionregistration.k8s.io/v1", "", lifecycle},
	{"admissionregistration.k8s.io", "v1alpha1", "MutatingAdmissionPolicyBinding", 35, 38, "admissionregistration.k8s.io/v1", "", lifecycle},
	{"coordination.k8s.io", "v1alpha2", "LeaseCandidate", 35, 38, "coordination.k8s.io/v1beta1", "", lifecycle},
	{"resource.k8s.io", "v1beta1", "DeviceClass", 35, 38, "resource.k8s.io/v1", "", lifecycle},
	{"resource.k8s.io", "v1beta1", "ResourceClaim", 35, 38, "resource.k8s.io/v1", "", lifecycle},
	{"resource.k8s.io", "v1beta1", "ResourceClaimTemplate", 35, 38, "resource.k8s.io/v1", "", lifecycle},
	{"resource.k8s.io", "v1beta1", "ResourceSlice", 35, 38, "resource.k8s.io/v1", "", lifecycle},
	{"coordination.k8s.io", "v1beta1", "LeaseCandidate", 36, 39, "", "", lifecycle},
	{"resource.k8s.io", "v1beta2", "DeviceClass", 36, 39, "resource.k8s.io/v1", "", lifecycle},
	{"resource.k8s.io", "v1beta2", "ResourceClaim", 36, 39, "resource.k8s.io/v1", "", lifecycle},
	{"resource.k8s.io", "v1beta2", "ResourceClaimTemplate", 36, 39, "resource.k8s.io/v1", "", lifecycle},
	{"resource.k8s.io", "v1beta2", "ResourceSlice", 36, 39, "resource.k8s.io/v1", "", lifecycle},
	{"resource.k8s.io", "v1alpha3", "DeviceTaintRule", 36, 39, "resource.k8s.io/v1", "", lifecycle},
	{"admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicy", 37, 40, "admissionregistration.k8s.io/v1", "", lifecycle},
	{"admissionregistration.k8s.io", "v1beta1", "MutatingAdmissionPolicyBinding", 37, 40, "admissionregistration.k8s.io/v1", "", lifecycle},
	{"certificates.k8s.io", "v1beta1", "ClusterTrustBundle", 37, 40, "certificates.k8s.io/v1", "", lifecycle},
	{"certificates.k8s.io", "v1beta1", "PodCertificateRequest", 37, 40, "certificates.k8s.io/v1", "", lifecycle},
	{"storagemigration.k8s.io", "v1beta1", "StorageVersionMigration", 37, 40, "storagemigration.k8s.io/v1", "", lifecycle},
}

// lifecycleOf returns the row of apiVersion/kind, nil when Kubernetes
// never deprecated it.
func lifecycleOf(apiVersion, kind string) *apiLifecycle {
	group, version := splitGroupVersion(apiVersion)
	for i := range removedAPIs {
		r := &removedAPIs[i]
		if r.group == group && r.version == version && r.kind == kind {
			return r
		}
	}
	return nil
}
