package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Error quality (issue 11, item 7): for bad input to every engine — the
// manifests, kustomize, OpenShift Templates, .plumb.yaml, checks catalogs
// and their CEL, KubeVirt rules, the reference (metadata, templates, diff
// configuration, overrides), inspection rules and flags — plumb exits 2
// with a message that names the file and line to change and says what to
// write instead. Each want is the whole message after "plumb: " (or after
// "error: " for plumb compare), with the test directory removed.

type badInput struct {
	name  string
	files map[string]string
	// args follow plumb check --root DIR --no-default-checks: an argument
	// naming a file or directory of files is taken in DIR, and "{dir}" is
	// replaced by DIR.
	args []string
	want string
}

// fineConfigMap is an object without problems.
const fineConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\n"

// checkFile is a check of a catalog with the given metadata, facts and
// expectations.
func checkFile(id, rest string) string {
	return "id: " + id + "\nname: n\ngroup: g\ndescription: d\nremediation: r\n" + rest
}

const objectCheck = "metadata:\n  target_type: object\n  kind: [ConfigMap]\nfacts:\n  - name: n\n    gatherer: manifest@v1\n    argument: metadata.name\n"

// vmWithRules is a VM whose annotation holds rules.
func vmWithRules(rules string) string {
	return "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: v\n  namespace: x\n  annotations:\n    vm.kubevirt.io/validations: |\n      " +
		rules + "\nspec:\n  template:\n    spec:\n      domain:\n        cpu: {cores: 1}\n"
}

const refMetadata = "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n"

var badInputs = []badInput{
	// Manifests.
	{"YAML syntax", map[string]string{"m/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n"}, []string{"m"},
		"m/cm.yaml:4:3: error: YAML syntax error: did not find expected ',' or ']' [manifest/yaml-syntax]"},
	{"duplicate key", map[string]string{"m/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n"}, []string{"m"},
		`m/cm.yaml:5:3: error: duplicate key "name" (first defined at line 4): keep one of them; kubectl rejects this, and many tools silently keep only the last value [manifest/duplicate-key]`},
	{"invalid UTF-8", map[string]string{"m/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n"}, []string{"m"},
		"m/cm.yaml:4:12: error: invalid UTF-8 byte 0xe9: manifests must be UTF-8 text [manifest/invalid-utf8]"},

	// kustomize.
	{"resources is a string", map[string]string{"k/kustomization.yaml": "resources: cm.yaml\n", "k/cm.yaml": fineConfigMap}, []string{"k"},
		"k/kustomization.yaml:1:1: error: resources: the value is a string, kustomize wants a list of strings [render/kustomize]"},
	{"a missing resource", map[string]string{"k/kustomization.yaml": "resources:\n  - missing.yaml\n"}, []string{"k"},
		`k/kustomization.yaml:2:5: error: resources[0]: resource "missing.yaml" not found: no such file or directory [render/kustomize]`},
	{"an unknown kustomization field", map[string]string{"k/kustomization.yaml": "resources:\n  - cm.yaml\nresourcez: []\n", "k/cm.yaml": fineConfigMap}, []string{"k"},
		`k/kustomization.yaml:3:1: error: unknown field "resourcez": kustomize rejects the kustomization; check the field's spelling and indentation [render/kustomize]`},
	{"a literal without =", map[string]string{"k/kustomization.yaml": "configMapGenerator:\n  - name: g\n    literals: [novalue]\n"}, []string{"k"},
		"k/kustomization.yaml:3:16: error: configMapGenerator[0].literals[0]: not KEY=VALUE: kustomize needs a key, then '=', then the value (the literal is not quoted here: it may hold a secret) [render/kustomize]"},
	{"an absolute patch path", map[string]string{"k/kustomization.yaml": "resources:\n  - cm.yaml\npatches:\n  - path: /etc/passwd\n", "k/cm.yaml": fineConfigMap}, []string{"k"},
		`k/kustomization.yaml:4:5: error: patches[0].path: "/etc/passwd" is an absolute path: kustomize paths are relative to the kustomization, and plumb reads only the repository [render/kustomize]`},

	// OpenShift Templates.
	{"a required parameter without a value", map[string]string{"t/t.yaml": "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\n" +
		"parameters:\n  - name: REPLICAS\n    required: true\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: c\n    data:\n      n: ${REPLICAS}\n"}, []string{"t"},
		`t/t.yaml:6:5: warning: template t: parameter REPLICAS is required and has no value, so the template was checked with "plumb-required-replicas" in its place: pass --param REPLICAS=VALUE, or set it under params (or template_params.t) in .plumb.yaml, to check it with a real value [render/template-placeholder]`},
	{"a parameter without a name", map[string]string{"t/t.yaml": "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\n" +
		"parameters:\n  - nam: P\nobjects: []\n"}, []string{"t"},
		`t/t.yaml:6:5: error: template t: parameters[0] has no name (it has "nam", which a parameter does not have): every parameter needs one (name: MY_PARAM), which objects use as ${MY_PARAM} [render/template]`},

	// .plumb.yaml.
	{"an unknown configuration key", map[string]string{"plumb.yaml": "fail-on: error\n", "ok/cm.yaml": fineConfigMap}, []string{"--config", "{dir}/plumb.yaml", "ok"},
		`plumb.yaml:1:1: unknown key "fail-on" (known keys: base_ref, cache, checks, exclude, fail_on, format, gate, helm, include, kubernetes_version, kubevirt, limits, params, paths, policies, reference, remote, rules, schema, suppressions, targets, template_params)`},
	{"a configuration value of the wrong type", map[string]string{"plumb.yaml": "checks:\n  default_catalog: maybe\n", "ok/cm.yaml": fineConfigMap}, []string{"--config", "{dir}/plumb.yaml", "ok"},
		`plumb.yaml:2:20: checks.default_catalog: the value is the string "maybe", want true or false`},
	{"a bad mask_secrets", map[string]string{"plumb.yaml": "rules:\n  mask_secrets: sometimes\n", "ok/cm.yaml": fineConfigMap}, []string{"--config", "{dir}/plumb.yaml", "ok"},
		`plumb.yaml:2:17: rules.mask_secrets "sometimes": want always, never or sensitive`},
	{"an unknown report format", map[string]string{"plumb.yaml": "format:\n  - xml\n", "ok/cm.yaml": fineConfigMap}, []string{"--config", "{dir}/plumb.yaml", "ok"},
		`plumb.yaml:2:5: format "xml": unknown format (want annotations, json, markdown, sarif, text)`},
	{"a customization of a value the check lacks", map[string]string{"plumb.yaml": "checks:\n  customizations:\n    V1:\n      nope: 1\n", "ok/cm.yaml": fineConfigMap,
		"cat/V1.yaml": checkFile("V1", objectCheck+"values:\n  - name: limit\n    default: 1\nexpectations:\n  - name: e\n    expect: 'values.limit > 0'\n")},
		[]string{"--config", "{dir}/plumb.yaml", "--checks", "{dir}/cat", "ok"},
		`plumb.yaml:4:13: error: checks.customizations: check V1 has no value "nope" (values: limit) [checks/customization]`},

	// Checks catalogs and CEL.
	{"an unknown gatherer", map[string]string{"cat/A1.yaml": checkFile("A1", "metadata:\n  target_type: object\nfacts:\n  - name: n\n    gatherer: nosuch@v1\nexpectations:\n  - name: e\n    expect: 'true'\n"),
		"ok/cm.yaml": fineConfigMap}, []string{"--checks", "{dir}/cat", "ok"},
		`cat/A1.yaml:10:15: error: check A1: facts[0]: unknown gatherer "nosuch@v1" (known: autoscaler@v1, configmap_file@v1, containers@v1, count@v1, image@v1, manifest@v1, objects@v1, quantity@v1, references@v1) (the check is not run) [checks/lint]`},
	{"an undeclared fact", map[string]string{"cat/A2.yaml": checkFile("A2", objectCheck+"expectations:\n  - name: e\n    expect: 'facts.m == \"x\"'\n"), "ok/cm.yaml": fineConfigMap},
		[]string{"--checks", "{dir}/cat", "ok"},
		"cat/A2.yaml:15:14: error: check A2: expectations[0].expect: facts.m is not declared by this check (declared: facts.n) (the check is not run) [checks/lint]"},
	{"an unknown severity", map[string]string{"cat/A3.yaml": checkFile("A3", "severity: fatal\n"+objectCheck+"expectations:\n  - name: e\n    expect: 'true'\n"), "ok/cm.yaml": fineConfigMap},
		[]string{"--checks", "{dir}/cat", "ok"},
		`cat/A3.yaml:6:11: error: check A3: severity: unknown severity "fatal": want critical or warning (Wanda would silently treat it as critical) (the check is not run) [checks/lint]`},
	{"a CEL syntax error", map[string]string{"cat/A4.yaml": checkFile("A4", objectCheck+"expectations:\n  - name: e\n    expect: 'facts.n ==== 1'\n"), "ok/cm.yaml": fineConfigMap},
		[]string{"--checks", "{dir}/cat", "ok"},
		"cat/A4.yaml:15:24: error: check A4: expectations[0].expect: Syntax error: extraneous input '==' expecting"},
	{"an unclosed interpolation", map[string]string{"cat/A5.yaml": checkFile("A5", objectCheck+"expectations:\n  - name: e\n    expect: 'true'\n    failure_message: 'oops ${facts.n'\n"), "ok/cm.yaml": fineConfigMap},
		[]string{"--checks", "{dir}/cat", "ok"},
		"cat/A5.yaml:16:22: error: check A5: expectations[0].failure_message: the ${ at offset 5 is never closed (the check is not run) [checks/lint]"},
	{"a look-around in CEL", map[string]string{"cat/A6.yaml": checkFile("A6", objectCheck+"expectations:\n  - name: e\n    expect: 'facts.n.matches(\"(?<!x)y\")'\n"), "ok/cm.yaml": fineConfigMap},
		[]string{"--checks", "{dir}/cat", "ok"},
		"cat/A6.yaml:15:14: error: check A6: expectations[0].expect: error parsing regexp: invalid named capture: `(?<!x)y` (RE2 has no look-ahead or look-behind such as (?<!...): rewrite the pattern without it, for example by testing the excluded case separately) (the check is not run) [checks/lint]"},

	// KubeVirt rules.
	// (Rules the validator fails when it evaluates them are failing rules,
	// exit 1: TestKubeVirtRuleFailuresAreFindings.)
	{"a KubeVirt path without jsonpath::", map[string]string{"vm/vm.yaml": vmWithRules(`[{"name": "c", "path": ".spec.domain.cpu.cores", "rule": "integer", "message": "m", "min": 2}]`)}, []string{"vm"},
		`vm/vm.yaml:8: error: vm.kubevirt.io/validations rule 1 ("c"): invalid JSONPath: a path is "jsonpath::" followed by the field's path in the VM, for example "jsonpath::.spec.domain.cpu.cores" [kubevirt/invalid-validations]`},
	{"one KubeVirt rule instead of a list", map[string]string{"vm/vm.yaml": vmWithRules(`{"name": "d"}`)}, []string{"vm"},
		"vm/vm.yaml:8: error: vm.kubevirt.io/validations is not a valid JSON list of rules: the text is one JSON object, not a list: write the rules as a list, [{...}, {...}] (a single rule too) [kubevirt/invalid-validations]"},
	{"a KubeVirt flag that is a string", map[string]string{"vm/vm.yaml": vmWithRules(`[{"name": "e", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "m", "min": 2, "justWarning": "yes"}]`)}, []string{"vm"},
		`vm/vm.yaml:8: error: vm.kubevirt.io/validations rule 1 ("e"): justWarning: the value is a string, want true or false [kubevirt/invalid-validations]`},

	// The reference.
	{"an unknown reference apiVersion", map[string]string{"ref/metadata.yaml": "apiVersion: v3\nparts: []\n", "ok/cm.yaml": fineConfigMap}, []string{"--reference", "{dir}/ref", "ok"},
		"ref/metadata.yaml:1:13: error: unknown reference file apiVersion: 'v3'"},
	{"a template that does not parse", map[string]string{"ref/metadata.yaml": refMetadata, "ref/cm.yaml": "kind: ConfigMap\nmetadata:\n  name: {{ .metadata.name \n", "ok/cm.yaml": fineConfigMap},
		[]string{"--reference", "{dir}/ref", "ok"},
		"ref/cm.yaml:4: error: an error occurred while parsing template: cm.yaml specified in the config. error: template: cm.yaml:4: unclosed action started at cm.yaml:3 [compare/reference]"},
	{"a missing template", map[string]string{"ref/metadata.yaml": refMetadata, "ok/cm.yaml": fineConfigMap}, []string{"--reference", "{dir}/ref", "ok"},
		"ref/metadata.yaml:7: error: an error occurred while reading template: cm.yaml specified in the config. error: the file does not exist [compare/reference]"},
	{"an unknown diff configuration key", map[string]string{"ref/metadata.yaml": refMetadata, "ref/cm.yaml": fineConfigMap, "diff.yaml": "correlationSetting: {}\n", "ok/cm.yaml": fineConfigMap},
		[]string{"--reference", "{dir}/ref", "--diff-config", "{dir}/diff.yaml", "ok"},
		`diff.yaml:1:1: error: diff config: unknown key "correlationSetting" (known keys: correlationSettings) [compare/reference]`},
	{"a diff configuration naming no template", map[string]string{"ref/metadata.yaml": refMetadata, "ref/cm.yaml": fineConfigMap,
		"diff.yaml": "correlationSettings:\n  manualCorrelation:\n    correlationPairs:\n      v1_ConfigMap_x_fine: nope.yaml\n", "ok/cm.yaml": fineConfigMap},
		[]string{"--reference", "{dir}/ref", "--diff-config", "{dir}/diff.yaml", "ok"},
		"diff.yaml:4:7: error: error in template manual matching for resource: v1_ConfigMap_x_fine no template in the name of nope.yaml (templates: cm.yaml) [compare/reference]"},

	// Inspection rules.
	{"an unknown rule operator", map[string]string{"r.yaml": "- uuid: a\n  conditions:\n    - {op: frobnicate, args: {}}\n  actions: [{op: add-trait, args: {name: t}}]\n", "ok/cm.yaml": fineConfigMap},
		[]string{"--rules", "{dir}/r.yaml", "ok"},
		`r.yaml:3:8: error: conditions[0]: unknown operator "frobnicate" (operators: contains, eq, gt, in-net, is-empty, is-false, is-none, is-true, lt, matches, one-of) [rule/invalid]`},
	{"an invalid rule phase", map[string]string{"r.yaml": "- uuid: b\n  phase: later\n  actions: [{op: add-trait, args: {name: t}}]\n", "ok/cm.yaml": fineConfigMap},
		[]string{"--rules", "{dir}/r.yaml", "ok"},
		`r.yaml:2:3: error: invalid phase "later": valid phases are early, preprocess, main [rule/invalid]`},
	{"a rules file that is not a list", map[string]string{"r.yaml": "uuid: e\n", "ok/cm.yaml": fineConfigMap}, []string{"--rules", "{dir}/r.yaml", "ok"},
		"r.yaml:1:1: error: a rules file holds a YAML list of rules, found mapping [rule/invalid]"},
	{"a rule priority that is a word", map[string]string{"r.yaml": "- uuid: f\n  priority: high\n  actions: [{op: add-trait, args: {name: t}}]\n", "ok/cm.yaml": fineConfigMap},
		[]string{"--rules", "{dir}/r.yaml", "ok"},
		`r.yaml:2:3: error: priority must be a whole number, found "high" [rule/invalid]`},

	// Flags.
	{"an unknown --format", map[string]string{"ok/cm.yaml": fineConfigMap}, []string{"ok", "--format", "xml"},
		`--format "xml": unknown format (want annotations, json, markdown, sarif, text)`},
	{"a bad --shard", map[string]string{"ok/cm.yaml": fineConfigMap}, []string{"ok", "--shard", "3/2"},
		`--shard: shard "3/2": the index must be between 1 and the count (1/2 … 2/2)`},
	{"an --env without =", map[string]string{"ok/cm.yaml": fineConfigMap}, []string{"ok", "--env", "novalue"},
		`--env "novalue": want key=value`},
	{"a bad --max-file-size", map[string]string{"ok/cm.yaml": fineConfigMap}, []string{"ok", "--max-file-size", "lots"},
		`--max-file-size: size "lots": want a positive number of bytes, optionally with a unit such as KiB or MiB`},
	{"a report file in a missing directory", map[string]string{"ok/cm.yaml": fineConfigMap}, []string{"ok", "--format", "json={dir}/no/such/dir/r.json"},
		"writing the json report to no/such/dir/r.json: the directory no/such/dir does not exist: create it first"},
}

// badObjects are objects plumb reads but reports as errors (exit 1): the
// message is in the report.
var badObjects = []badInput{
	{"no apiVersion", map[string]string{"m/d.yaml": "kind: Deployment\nmetadata:\n  name: d\n"}, []string{"m"},
		"m/d.yaml:1:1: error: kind Deployment has no apiVersion: add apiVersion: apps/v1 [manifest/missing-api-version]"},
	{"a number as name", map[string]string{"m/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 2024\n"}, []string{"m"},
		`m/cm.yaml:4:3: error: ConfigMap has metadata.name the number 2024, not a string: quote it (name: "2024") [manifest/missing-name]`},
}

// repositoryRule matches the rules of findings about the repository's own
// files (as opposed to plumb's configuration, catalogs, rules and
// references).
var repositoryRule = regexp.MustCompile(`\[(manifest|render|kubevirt)/[a-z0-9-]+\]$`)

func TestErrorMessagesNameTheLineAndSayWhatToChange(t *testing.T) {
	if n := len(badInputs) + len(badObjects); n < 30 {
		t.Fatalf("%d bad inputs; the issue asks for at least 30", n)
	}
	for i, c := range slices.Concat(badInputs, badObjects) {
		finding := i >= len(badInputs)
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, c.files)
			args := []string{"check", "--root", dir, "--no-default-checks"}
			for _, a := range c.args {
				if _, err := os.Stat(filepath.Join(dir, a)); err == nil && !strings.HasPrefix(a, "-") {
					a = filepath.Join(dir, a) // an input path
				}
				args = append(args, strings.ReplaceAll(a, "{dir}", dir))
			}
			code, out, errOut := plumb(t, args...)
			errOut = strings.ReplaceAll(errOut, dir+string(filepath.Separator), "")
			out = strings.ReplaceAll(out, dir+string(filepath.Separator), "")
			// What the repository holds is a finding in the report, and
			// exits by --fail-on; what plumb was given to run with and
			// cannot use exits 2: a problem of a file it loads (a catalog,
			// a rules file, a reference) in the report, printed once; a
			// flag or the configuration file on stderr.
			want, where, text := 2, "stderr", errOut
			switch {
			case finding || repositoryRule.MatchString(c.want):
				want, where, text = 1, "the report", out
				if strings.Contains(c.want, ": warning: ") {
					want = 0
				}
			case strings.Contains(out, c.want):
				where, text = "the report", out
				if strings.Contains(errOut, c.want) {
					t.Errorf("printed twice, on stderr too:\n%s", errOut)
				}
			default:
				c.want = "plumb: " + c.want
			}
			if code != want {
				t.Errorf("exit %d, want %d", code, want)
			}
			if !strings.Contains(text, c.want) {
				t.Errorf("%s lacks\n  %s\nstderr:\n%s\nstdout:\n%s", where, c.want, errOut, out)
			}
		})
	}
}

// plumb compare reports the reference's problems the same way.
func TestCompareErrorMessagesNameTheLine(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"ref/metadata.yaml": refMetadata + "          - path: gone.yaml\n", "ref/cm.yaml": fineConfigMap, "ok/cm.yaml": fineConfigMap,
		"ov.yaml": "- apiVersion: v1\n  kind: ConfigMap\n  name: fine\n  namespace: x\n  templatePath: cm.yaml\n  type: mergepatch\n  patch: '{}'\n",
	})
	code, _, errOut := plumb(t, "compare", "-r", filepath.Join(dir, "ref"), "-f", filepath.Join(dir, "ok"), "-p", filepath.Join(dir, "ov.yaml"))
	errOut = strings.ReplaceAll(errOut, dir+string(filepath.Separator), "")
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{
		"error: ref/metadata.yaml:8: an error occurred while reading template: gone.yaml specified in the config. error: the file does not exist",
		"error: ov.yaml:1:3: failed to load user overrides: missing reason (overrides[0]: every override must say why the deviation is accepted)",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}
