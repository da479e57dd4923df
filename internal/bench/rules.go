package bench

import (
	"fmt"
	"strings"
)

// rules writes .plumb/rules.yaml (a hidden directory, which plumb does not
// read as manifests): the kinds of rules sites write —
// classification by source file (early), loops over containers, numeric
// comparisons, enrichment for the checks, changes to objects, and findings
// on some objects — spread over the three phases.
func (g *generator) rules() {
	if g.spec.Rules == 0 {
		return
	}
	var b strings.Builder
	kinds := []string{"Deployment", "Service", "ConfigMap", "StatefulSet", "Ingress", "VirtualMachine"}
	for i := 0; i < g.spec.Rules; i++ {
		phase := []string{"preprocess", "main"}[i%2]
		if i%10 == 9 {
			phase = "early"
		}
		fmt.Fprintf(&b, "- uuid: site-%02d\n  description: benchmark rule %d\n  phase: %s\n  priority: %d\n", i, i, phase, i*37%1000)
		switch {
		case phase == "early":
			fmt.Fprintf(&b, `  conditions:
    - {op: matches, args: {value: "{inventory[source][file]}", regex: "bases/b%02[1]d/.*"}}
  actions:
    - {op: set-plugin-data, args: {path: base, value: b%02[1]d}}
`, (i/10)%max(1, g.spec.Bases))
		case i%5 == 0:
			fmt.Fprintf(&b, `  conditions:
    - {op: eq, args: {values: ["{node.kind}", Deployment]}}
    - op: matches
      args: {value: "{item[image]}", regex: "registry[.]example[.]com/.*:1[.][0-9]+[.][0-9]+"}
      loop: "{node.spec.template.spec.containers}"
      multiple: all
  actions:
    - {op: add-trait, args: {name: pinned-%d}}
`, i)
		case i%5 == 1:
			fmt.Fprintf(&b, `  conditions:
    - {op: one-of, args: {value: "{node.kind}", values: [Deployment, StatefulSet]}}
    - {op: "!is-empty", args: {value: "{node.spec.replicas}"}}
    - {op: lt, args: {values: ["{node.spec.replicas}", %d]}}
    - {op: eq, args: {values: ["{node.metadata.labels[environment]}", prod]}}
  actions:
    - {op: log, args: {msg: "{node.metadata.name} runs {node.spec.replicas} replicas in production", level: warning, path: spec.replicas}}
`, i%3+1)
		case i%5 == 2:
			fmt.Fprintf(&b, `  conditions:
    - {op: eq, args: {values: ["{node.kind}", %s]}}
    - {op: is-empty, args: {value: "{node.metadata.labels[team]}"}}
  actions:
    - {op: set-plugin-data, args: {path: owner.team%d, value: "{node.metadata.namespace}"}}
`, kinds[i%len(kinds)], i)
		case i%5 == 3:
			fmt.Fprintf(&b, `  conditions:
    - {op: contains, args: {value: "{node.metadata.name}", regex: "app%d-"}}
  actions:
    - {op: set-attribute, args: {path: /metadata/labels/rule%d, value: "yes"}}
`, i%10, i)
		default:
			fmt.Fprintf(&b, `  conditions:
    - {op: eq, args: {values: ["{node.metadata.labels[site]}", "s%03d"]}}
    - {op: "!eq", args: {values: ["{plugin_data[environment]}", dev]}}
  actions:
    - {op: extend-plugin-data, args: {path: matched, value: site-%d, unique: true}}
`, i, i)
		}
	}
	g.add(".plumb/rules.yaml", b.String())
}
