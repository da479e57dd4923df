package hygiene

import (
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// ruleHelp is the Markdown remediation of each manifest rule.
var ruleHelp = map[string]string{
	manifest.RuleYAMLSyntax: "The file is not valid YAML, so nothing in the broken document was checked. " +
		"Fix the syntax at the reported line (indentation and unquoted `:` in values are the usual causes); " +
		"`kubectl apply --dry-run=client -f FILE` shows the same error.",
	manifest.RuleDuplicateKey: "A mapping defines the same key twice. `kubectl` rejects such a manifest, while many " +
		"tools silently keep only the last value, so what you review is not what gets applied. Delete one of the two keys.",
	manifest.RuleInvalidUTF8: "Kubernetes manifests must be UTF-8 text. Re-save the file as UTF-8 " +
		"(for example `iconv -f latin1 -t utf-8`) or remove the binary content.",
	manifest.RuleTooLarge: "The file is larger than the configured limit and was not read. Split it, " +
		"exclude it (`exclude:` in .plumb.yaml) or raise `limits.max_file_size`.",
	manifest.RuleTooDeep: "The document nests mappings and sequences deeper than the configured limit; " +
		"real manifests never need this. Flatten it, or raise `limits.max_depth`.",
	manifest.RuleAliasLimit: "YAML aliases in this document expand to more nodes than the limit allows, which is " +
		"how \"billion laughs\" documents exhaust memory. Replace the aliases with the values they stand for.",
	manifest.RuleUnreadable: "The file could not be read. Check that it exists and is readable by the user running plumb.",
	manifest.RuleOutsideRepo: "plumb reads only files inside the repository. A symlink or `..` path that points outside it " +
		"is refused so that a pull request cannot make the runner read its host's files.",
	manifest.RuleNotAnObject: "The document has no `apiVersion` and `kind`, so it is not a Kubernetes object and was not checked. " +
		"If it is meant to be one, add both; otherwise exclude the file.",
	manifest.RuleMissingAPI: "Every object needs `apiVersion` (the API group and version of its kind, for example `apps/v1` " +
		"for a Deployment or `v1` for a ConfigMap). Without it the API server rejects the object.",
	manifest.RuleMissingKind: "The document has `apiVersion` but no `kind`, so it cannot be applied. Add the kind.",
	manifest.RuleMissingName: "Every object needs `metadata.name` (or `metadata.generateName` for objects created by " +
		"`kubectl create`). Add a name.",
	manifest.RuleNonFinite: "YAML reads `.nan`, `.inf` and numbers too large for a 64-bit float as numbers that JSON, " +
		"the form the API server and kubectl convert every manifest to, cannot hold: the object is refused. Write a number, or " +
		"quote the value if it is text (a label value such as `'.inf'`). plumb carries the value as the text it was written as.",
	manifest.RuleDuplicateObject: "Two documents in one render target define the same object (group, kind, namespace " +
		"and name). When applied, the second silently replaces the first. Remove one, or give them different names.",
}

// Rules describes every manifest rule.
func Rules() []finding.Rule {
	return []finding.Rule{
		rule(manifest.RuleYAMLSyntax, "YAML syntax error", finding.Error),
		rule(manifest.RuleDuplicateKey, "Duplicate mapping key", finding.Error),
		rule(manifest.RuleInvalidUTF8, "Invalid UTF-8", finding.Error),
		rule(manifest.RuleTooLarge, "File too large", finding.Error),
		rule(manifest.RuleTooDeep, "Nesting too deep", finding.Error),
		rule(manifest.RuleAliasLimit, "Alias expansion limit", finding.Error),
		rule(manifest.RuleUnreadable, "Unreadable input", finding.Error),
		rule(manifest.RuleOutsideRepo, "Path outside the repository", finding.Error),
		rule(manifest.RuleNotAnObject, "Not a Kubernetes object", finding.Note),
		rule(manifest.RuleMissingAPI, "Missing apiVersion", finding.Error),
		rule(manifest.RuleMissingKind, "Missing kind", finding.Error),
		rule(manifest.RuleMissingName, "Missing metadata.name", finding.Error),
		rule(manifest.RuleDuplicateObject, "Object defined twice", finding.Error),
		rule(manifest.RuleNonFinite, "Number JSON cannot hold", finding.Error),
	}
}

func rule(id, name string, level finding.Level) finding.Rule {
	return finding.Rule{
		ID:        id,
		Name:      name,
		Short:     name,
		Full:      ruleHelp[id],
		Help:      ruleHelp[id],
		Level:     level,
		Tags:      []string{"manifest"},
		Precision: "very-high",
	}
}
