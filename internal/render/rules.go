package render

import (
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

// Rule ids of the problems rendering reports.
const (
	// RuleKustomize: a kustomization cannot be built (a missing file, a
	// cycle, a path leaving the repository, an invalid patch, helmCharts,
	// or any error krusty reports).
	RuleKustomize = "render/kustomize"
	// RuleRemote: a remote base or resource without --allow-remote: the
	// target is not rendered (a warning).
	RuleRemote = "render/remote"
	// RuleUnsupported: a kustomization that needs what plumb does not run
	// (an exec or container KRM function, an external plugin, helmCharts):
	// the target is not rendered (a warning).
	RuleUnsupported = "render/unsupported"
	// RuleTemplatePlaceholder: a required Template parameter without a
	// value, checked with a placeholder (a warning).
	RuleTemplatePlaceholder = "render/template-placeholder"
	// RuleTemplate: an OpenShift Template cannot be processed (a required
	// parameter without value, an unknown parameter, a bad generator).
	RuleTemplate = "render/template"
	// RuleTarget: a .plumb.yaml targets: entry names no kustomization.
	RuleTarget = "render/target"
	// RuleDeprecated: a deprecated kustomization field (a note).
	RuleDeprecated = "render/deprecated"
)

var ruleHelp = map[string]string{
	RuleKustomize: "The kustomization cannot be built, so none of the target's objects were checked. " +
		"Fix the entry at the reported line; `kustomize build DIR` shows the same failure. " +
		"plumb builds with kustomize's library in-process, with load restrictions root-only: files must lie in or below " +
		"the kustomization's directory, bases anywhere inside the repository, nothing outside it.",
	RuleRemote: "The kustomization refers to a remote base or resource (a git repository or a URL), so this target " +
		"was not rendered and its objects were not checked; the rest of the repository was. plumb builds only " +
		"from the repository so that checks are reproducible and a pull request cannot make the runner fetch arbitrary URLs. " +
		"Vendor the remote content into the repository, or pass `--allow-remote` where network access is acceptable.",
	RuleUnsupported: "The kustomization needs something plumb does not run — an exec or container KRM function, an " +
		"external kustomize plugin, or Helm charts (`helmCharts`) — so this target was not rendered and its objects were " +
		"not checked; the rest of the repository was. Render it into the repository (`kustomize build " +
		"--enable-alpha-plugins --enable-helm DIR > rendered.yaml`) and check that, or exclude the kustomization.",
	RuleTemplatePlaceholder: "A required parameter of the OpenShift Template has no value (`oc process` would refuse " +
		"the template), so plumb checked the template with a placeholder in its place: `plumb-required-` and the " +
		"parameter's name in lower case with dashes (`SSO_URL` → `plumb-required-sso-url`). Give it a value " +
		"(`--param NAME=VALUE`, or `params:` / `template_params:` in .plumb.yaml) to check the template as it will be used.",
	RuleTemplate: "The OpenShift Template cannot be processed as `oc process` would. Give required parameters a value " +
		"(`--param NAME=VALUE`, or `params:` / `template_params:` in .plumb.yaml), and only parameters the template declares.",
	RuleTarget: "A `targets:` entry in .plumb.yaml names no directory of the repository. Fix the path or pattern.",
	RuleDeprecated: "kustomize still accepts this field but has deprecated it; `kustomize edit fix` rewrites the " +
		"kustomization with its replacement.",
	RuleFluxSubstitute: "A Flux Kustomization's post-build substitution cannot be applied: a variable name kustomize-controller " +
		"refuses, a variable expression envsubst cannot read, or variables from a Secret (plumb does not read them) or a " +
		"ConfigMap that is not among the repository's objects. Fix the name or the expression, or add the ConfigMap; " +
		"`optional: true` makes a missing source one the controller skips.",
	helm.RuleChart: "The chart cannot be rendered as `helm template` would: its Chart.yaml does not load, or its `kubeVersion` " +
		"does not accept the Kubernetes version plumb renders for (`--kubernetes-version`, `kubernetes_version` in .plumb.yaml, " +
		"or a `helm.targets` entry's). None of the target's objects were checked.",
	helm.RuleTemplate: "A template of the chart does not parse, fails (`required`, `fail`, a type error), or prints what is not " +
		"YAML, so none of the target's objects were checked. The finding is at the template line Helm names, with Helm's message; " +
		"`helm template --debug` shows the output.",
	helm.RuleValues: "A values file does not parse, or the values break the chart's values.schema.json (each violation at the " +
		"values line it is about), or values written inside a GitOps definition cannot be read as its controller reads them " +
		"(an Argo CD Application's `helm.values` that is not valid YAML, a `valuesObject` or HelmRelease `spec.values` that is not " +
		"a mapping): the chart is not rendered with them, rather than rendered without them. plumb does not fetch a schema's remote `$ref`s.",
	helm.RuleDuplicateKey: "A values file, or an Argo CD Application's `helm.values` text, writes the same key twice in one mapping. " +
		"Helm reads it without a word and keeps only the last value, so the first is never used: what a reviewer reads first is " +
		"not what is deployed. plumb renders with the last value, as Helm does. Delete one of the two keys.",
	helm.RuleDependency: "A dependency in Chart.yaml that the values enable (its condition and tags, as Helm decides) is not in " +
		"the chart's charts/ directory (as a directory or a .tgz) and could not be fetched, so the chart is not rendered with " +
		"those values; a disabled dependency is not needed. A warning, as for a remote kustomize base: run `helm dependency build` " +
		"and commit charts/, or allow the repository's host so plumb fetches it. An error when Chart.lock pins it and charts/ " +
		"holds the other dependencies Chart.lock pins (the archive was not committed), or when the entry names no repository.",
	helm.RuleNotRendered: "A Flux HelmRelease or an Argo CD Application deploys a chart from a Helm repository, an OCI registry " +
		"or another Git repository, which plumb does not fetch; the objects it deploys are not checked. Vendor the chart into " +
		"the repository and point the definition at it to have them checked.",
}

// Rules describes the rules of the problems rendering reports.
func Rules() []finding.Rule {
	return []finding.Rule{
		rule(RuleKustomize, "Kustomization cannot be built", finding.Error),
		rule(RuleRemote, "Remote kustomize base not rendered", finding.Warning),
		rule(RuleUnsupported, "Kustomization needs a plugin plumb does not run", finding.Warning),
		rule(RuleTemplatePlaceholder, "Required Template parameter without a value", finding.Warning),
		rule(RuleTemplate, "Template cannot be processed", finding.Error),
		rule(RuleTarget, "Unknown render target", finding.Error),
		rule(RuleDeprecated, "Deprecated kustomization field", finding.Note),
		rule(RuleFluxSubstitute, "Flux post-build substitution cannot be applied", finding.Error),
		rule(helm.RuleChart, "Chart cannot be rendered", finding.Error),
		rule(helm.RuleTemplate, "Chart template fails", finding.Error),
		rule(helm.RuleValues, "Chart values are invalid", finding.Error),
		rule(helm.RuleDuplicateKey, "Chart values write a key twice", finding.Warning),
		rule(helm.RuleDependency, "Chart dependency not vendored", finding.Error),
		rule(helm.RuleNotRendered, "Chart not rendered", finding.Note),
	}
}

func rule(id, name string, level finding.Level) finding.Rule {
	return finding.Rule{ID: id, Name: name, Short: name, Full: ruleHelp[id], Help: ruleHelp[id], Level: level,
		Tags: []string{"render"}, Precision: "very-high"}
}

// Describe fills in the title and help of a finding made from a render
// problem.
func Describe(f *finding.Finding) {
	for _, r := range Rules() {
		if r.ID == f.RuleID {
			f.Title, f.Help = r.Name, r.Help
		}
	}
}
