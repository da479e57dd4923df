package schema

import "github.com/plumb-ci/plumb/internal/finding"

// Rule ids of the schema analyzer.
const (
	// RuleUnknownField: a field the kind's schema does not define.
	RuleUnknownField = "schema/unknown-field"
	// RuleWrongType: a value of the wrong type (a string for an integer).
	RuleWrongType = "schema/wrong-type"
	// RuleRequired: a required field is missing.
	RuleRequired = "schema/required"
	// RuleEnum: a value outside the set the API accepts.
	RuleEnum = "schema/enum"
	// RuleInvalidQuantity: a resource quantity that does not parse.
	RuleInvalidQuantity = "schema/invalid-quantity"
	// RuleInvalidValue: a value the schema rejects for another reason (a
	// pattern, a bound, a format, base64 data).
	RuleInvalidValue = "schema/invalid-value"
	// RuleRemovedAPI: an apiVersion the configured Kubernetes version no
	// longer serves.
	RuleRemovedAPI = "schema/removed-api"
	// RuleDeprecatedAPI: an apiVersion deprecated and scheduled for removal.
	RuleDeprecatedAPI = "schema/deprecated-api"
	// RuleUnknownKind: an apiVersion/kind that no Kubernetes API group
	// defines, in one of Kubernetes' own groups.
	RuleUnknownKind = "schema/unknown-kind"
	// RuleValidationRule: a CustomResourceDefinition's CEL rule
	// (x-kubernetes-validations) rejects the object.
	RuleValidationRule = "schema/validation-rule"
	// RuleInvalidCRD: a CustomResourceDefinition whose schema cannot be
	// used (the API server would reject the CRD itself).
	RuleInvalidCRD = "schema/invalid-crd"
	// RuleNoSchema: a custom resource whose CustomResourceDefinition is not
	// known (a note, once per kind).
	RuleNoSchema = "schema/no-schema"
	// RuleCRDOverridden: a repository's CustomResourceDefinition whose
	// versions a CRD the workflow gave (--crds) defines too, and is used
	// for (a note).
	RuleCRDOverridden = "schema/crd-overridden"
	// RuleValidationBudget: the CEL rules of a render target's custom
	// resources ran past the target's time budget.
	RuleValidationBudget = "schema/validation-budget"
)

type ruleInfo struct {
	name  string
	level finding.Level
	help  string
}

var ruleInfos = map[string]ruleInfo{
	RuleUnknownField: {"Unknown field", finding.Error,
		"The object has a field its kind does not define, usually a misspelt name or a field at the wrong level. " +
			"`kubectl apply` rejects it (field validation is strict by default), and server-side apply with a client that skips validation drops it silently. " +
			"Correct the name (the message suggests the nearest one), or move the field where it belongs."},
	RuleWrongType: {"Wrong value type", finding.Error,
		"The value has the wrong type for the field: a quoted number where the API wants an integer (`containerPort: \"8080\"`), " +
			"a number where it wants a string (an environment variable's `value: 8080`, a label or annotation value), a single value where it wants a list. " +
			"The API server cannot decode the object. Write the value as the field's type: remove or add the quotes, or wrap the value in a list."},
	RuleRequired: {"Missing required field", finding.Error,
		"A field the API requires is missing (a container without `name`, a Service port without `port`). " +
			"The API server rejects the object. Add the field."},
	RuleEnum: {"Value not accepted", finding.Error,
		"The field accepts a fixed set of values and this is not one of them (values are case-sensitive). " +
			"The API server rejects the object. Use one of the values the message lists."},
	RuleInvalidQuantity: {"Invalid quantity", finding.Error,
		"Resource quantities are a number with an optional suffix: decimal `k`, `M`, `G`, `T`, `P`, `E` (powers of 1000), " +
			"binary `Ki`, `Mi`, `Gi`, `Ti`, `Pi`, `Ei` (powers of 1024), or `m` (thousandths, for CPU). `1GB`, `512mb` or `1 Gi` are not quantities: " +
			"write `1G` or `1Gi`, `512M` or `512Mi`, `1Gi`."},
	RuleInvalidValue: {"Invalid value", finding.Error,
		"The value does not satisfy the schema (a pattern, a minimum or maximum, a length, a format, or base64 data for a Secret's `data`). " +
			"The API server rejects the object. Change the value as the message says."},
	RuleRemovedAPI: {"Removed API version", finding.Error,
		"The Kubernetes version plumb checks for (`--kubernetes-version`, `kubernetes_version` in .plumb.yaml; default the embedded schema's) " +
			"no longer serves this apiVersion of the kind, so applying the object fails. Move it to the apiVersion the message names, " +
			"with the field changes listed there. The table of removals, each with its source, is in docs/schema.md."},
	RuleDeprecatedAPI: {"Deprecated API version", finding.Warning,
		"This apiVersion is deprecated: Kubernetes still serves it in the version checked, and removes it in the version the message names. " +
			"Move the object to the replacement apiVersion before upgrading the cluster."},
	RuleUnknownKind: {"Unknown kind", finding.Error,
		"The apiVersion names one of Kubernetes' own API groups, but no version of Kubernetes serves this kind in it " +
			"(a misspelt kind, a wrong group, or an API that never existed). Correct the apiVersion or the kind."},
	RuleValidationRule: {"Validation rule failed", finding.Error,
		"A CEL validation rule (`x-kubernetes-validations`) of the object's CustomResourceDefinition rejects it, as the API server would. " +
			"The message is the rule's own; change the object so that the rule holds."},
	RuleInvalidCRD: {"Unusable CustomResourceDefinition", finding.Error,
		"The CustomResourceDefinition is not one the API server accepts: its `spec.group` is empty, has no dot, is not a DNS subdomain, " +
			"is under k8s.io or kubernetes.io without the `api-approved.kubernetes.io` annotation, or is one of the API groups Kubernetes serves itself " +
			"(`apps`, `batch`, `networking.k8s.io`, ...), whose kinds a CRD never defines; or its schema is not structural (apiextensions.k8s.io/v1 requires it). " +
			"The CRD cannot be created and its custom resources were not validated against it (the kinds of Kubernetes' own groups are validated against the built-in schema). " +
			"Fix the CRD as the message says: for the group, use one under a domain you own."},
	RuleNoSchema: {"No schema for custom resource", finding.Note,
		"plumb validates custom resources against their CustomResourceDefinitions: the CRDs among the checked files, and those given with " +
			"`--crds PATH` or `schema.crds` in .plumb.yaml. No CRD defines this kind, so its objects were not validated. " +
			"Give the CRD (the operator's release usually ships it as a YAML file), or list the kind in `schema.skip_kinds`."},
	RuleCRDOverridden: {"CustomResourceDefinition given by the workflow is used", finding.Note,
		"The workflow gave a CustomResourceDefinition of the same group and kind (`--crds`, the action's `crds` input, or `schema.crds` of a configuration file " +
			"outside the repository), and it defines some of this CRD's versions: custom resources of those versions are validated against the workflow's definition, " +
			"so that a change to the repository cannot replace the schema the workflow relies on. Versions only this CRD defines are still validated against it. " +
			"Nothing to change unless the repository's definition is the newer one: then update the workflow's."},
	RuleValidationBudget: {"Validation rules over the time budget", finding.Error,
		"Evaluating the CEL validation rules (`x-kubernetes-validations`) of a render target's custom resources took longer than the target's time budget " +
			"(`--max-target-time`, `limits.max_target_time` in .plumb.yaml; default one minute), so the remaining custom resources were not checked against their rules. " +
			"Each rule is also held to the API server's own cost limits. Make the rules cheaper (bound lists with `maxItems`, avoid nested loops), split the target, or raise the budget."},
}

// Rules describes the schema analyzer's rules.
func Rules() []finding.Rule {
	ids := []string{RuleUnknownField, RuleWrongType, RuleRequired, RuleEnum, RuleInvalidQuantity, RuleInvalidValue,
		RuleRemovedAPI, RuleDeprecatedAPI, RuleUnknownKind, RuleValidationRule, RuleInvalidCRD, RuleNoSchema, RuleCRDOverridden, RuleValidationBudget}
	out := make([]finding.Rule, 0, len(ids))
	for _, id := range ids {
		r := ruleInfos[id]
		out = append(out, finding.Rule{ID: id, Name: r.name, Short: r.name, Full: r.help, Help: r.help, Level: r.level,
			Tags: []string{"schema", "correctness"}, Precision: "very-high"})
	}
	return out
}
