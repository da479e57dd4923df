package change

import "github.com/plumb-ci/plumb/internal/finding"

// ruleHelp is each rule's remediation, in Markdown.
var ruleHelp = map[string]string{
	RuleImmutable: "The API server refuses to change some fields of an existing object; `kubectl apply`, Helm, Argo CD and Flux " +
		"then fail on this object, and the rest of the change may be applied without it. Keep the field as it is, or " +
		"delete and recreate the object. A GitOps tool can recreate it for you: Argo CD's `Replace=true` sync option " +
		"(`argocd.argoproj.io/sync-options: Replace=true`), Flux's `kustomize.toolkit.fluxcd.io/force: enabled`. " +
		"Recreating a workload replaces all its pods at once.",
	RuleDeletion: "Deleting this object deletes more than its manifest: data or other objects. If that is what the pull " +
		"request means to do, say so; otherwise restore the manifest. To stop managing the object without deleting it, " +
		"protect it from pruning first (Argo CD `Prune=false`, Flux `kustomize.toolkit.fluxcd.io/prune: disabled`, " +
		"Helm `helm.sh/resource-policy: keep`).",
	RuleDangling: "The change deletes an object that the objects it keeps still name. Once applied, the pods do not start " +
		"(a missing ConfigMap, Secret, claim or service account), the route sends traffic nowhere, the autoscaler or " +
		"binding acts on nothing. Keep the object or update what names it in the same pull request.",
	RuleRename: "Kubernetes has no rename: a new name or namespace is a new object, and the old one is deleted. A workload's " +
		"pods are all replaced at once rather than rolled; a claim's volume is provisioned anew, empty. Keep the name, or " +
		"create the new object in one change and remove the old one in the next, once traffic and data have moved.",
	RuleSelectorOrphaned: "A Service, PodDisruptionBudget or NetworkPolicy finds its pods by labels. This change makes the " +
		"selector and the labels of the pod template it matched disagree, so it now selects nothing. Change both in the " +
		"same pull request. A Deployment's own selector cannot change (see `change/immutable-field`): change the labels " +
		"it does not select on.",
	RuleReplicasZero: "The workload will run no pod. Delete it if it is being retired; if it is paused on purpose, say so in " +
		"the pull request.",
	RuleImageDowngrade: "The image tag moves to a lower version. A rollback is a reason; a merge that picked the older side " +
		"of a conflict is the common accident.",
}

// Rules describes the change's rules for reports (SARIF, help).
func Rules() []finding.Rule {
	return []finding.Rule{
		{ID: RuleImmutable, Name: "ImmutableField", Short: "The API server rejects this update: the field cannot change", Help: ruleHelp[RuleImmutable], Level: finding.Error, Precision: "very-high"},
		{ID: RuleDeletion, Name: "Deletion", Short: "A deletion that takes data or other objects with it", Help: ruleHelp[RuleDeletion], Level: finding.Warning, Precision: "high"},
		{ID: RuleDangling, Name: "DeletedStillReferenced", Short: "An object deleted while the change keeps objects that name it", Help: ruleHelp[RuleDangling], Level: finding.Error, Precision: "high"},
		{ID: RuleRename, Name: "Rename", Short: "An object deleted and recreated under another name", Help: ruleHelp[RuleRename], Level: finding.Warning, Precision: "high"},
		{ID: RuleSelectorOrphaned, Name: "SelectorOrphaned", Short: "A selector that matched pods at the base and matches none at the head", Help: ruleHelp[RuleSelectorOrphaned], Level: finding.Error, Precision: "high"},
		{ID: RuleReplicasZero, Name: "ReplicasZero", Short: "A workload scaled to zero replicas", Help: ruleHelp[RuleReplicasZero], Level: finding.Warning, Precision: "very-high"},
		{ID: RuleImageDowngrade, Name: "ImageDowngrade", Short: "An image tag moving to a lower version", Help: ruleHelp[RuleImageDowngrade], Level: finding.Warning, Precision: "high"},
	}
}
