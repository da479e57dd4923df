package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/hygiene"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/rules"
)

// repo writes files into a temporary repository and returns its root.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func configFor(t *testing.T, root string, file *config.File, fl *config.Flags) *config.Config {
	t.Helper()
	if fl == nil {
		fl = &config.Flags{}
	}
	fl.Root = root
	cfg, err := config.Resolve(file, fl, root)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const twoConfigMaps = `apiVersion: v1
kind: ConfigMap
metadata: {name: a}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b}
data: {k: v}
`

const renameRule = `- uuid: merge-names
  description: b is really a
  phase: preprocess
  conditions:
    - {op: eq, args: {values: ["{node.metadata.name}", b]}}
  actions:
    - {op: set-attribute, args: {path: /metadata/name, value: a}}
`

func findingsOf(fs []finding.Finding, rule string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.RuleID == rule {
			out = append(out, f)
		}
	}
	return out
}

// A preprocess rule changes an object, and an analyzer's result changes
// because of it: renaming ConfigMap b to a makes hygiene see the same
// object twice. The finding points at the rule action that set the name.
func TestPreprocessRuleChangesAnalyzerResult(t *testing.T) {
	root := repo(t, map[string]string{"app/cms.yaml": twoConfigMaps, "rules.yaml": renameRule})
	without, err := Check(context.Background(), configFor(t, root, nil, &config.Flags{Paths: []string{"app"}}))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(findingsOf(without.Report.Findings, "manifest/duplicate-object")); n != 0 {
		t.Fatalf("duplicates without the rule: %d", n)
	}
	with, err := Check(context.Background(), configFor(t, root, &config.File{Rules: config.RulesConfig{Files: []string{"rules.yaml"}}}, &config.Flags{Paths: []string{"app"}}))
	if err != nil {
		t.Fatal(err)
	}
	dups := findingsOf(with.Report.Findings, "manifest/duplicate-object")
	if len(dups) != 1 || dups[0].Object.Name != "a" || dups[0].Location.File != "app/cms.yaml" || dups[0].Location.Line != 6 {
		t.Fatalf("duplicates with the rule: %+v", dups)
	}
	// The report's objects are the changed ones; the section lists the patch.
	var names []string
	for _, o := range with.Report.Objects {
		names = append(names, o.Name)
	}
	if strings.Join(names, ",") != "a,a" {
		t.Errorf("objects %v", names)
	}
	objs := sectionObjects(t, with.Report)
	if len(objs) != 1 || len(objs[0].Patch) != 1 || objs[0].Patch[0].Path != "/metadata/name" {
		t.Errorf("section %+v", objs)
	}
	if with.ExitCode(config.FailOnError) != ExitFindings {
		t.Errorf("exit %d", with.ExitCode(config.FailOnError))
	}
}

// Plugin data set by preprocess rules reaches the analyzers' environment of
// the object's target (the checks read it as env).
func TestPluginDataReachesTheAnalyzers(t *testing.T) {
	root := repo(t, map[string]string{
		"apps/web/overlays/prod/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"apps/web/base/cm.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
		"rules.yaml":                     "- {phase: preprocess, actions: [{op: set-plugin-data, args: {path: owner, value: web-team}}]}\n",
	})
	cfg := configFor(t, root, nil, &config.Flags{Rules: []string{"rules.yaml"}})
	rendered, err := Load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := analyzerInput(rendered, map[string]any{"cluster": "eu"})
	prod := in.EnvFor("apps/web/overlays/prod")
	base := in.EnvFor("apps/web/base")
	if prod["environment"] != "prod" || prod["owner"] != "web-team" || base["environment"] != nil || base["owner"] != "web-team" || base["cluster"] != "eu" {
		t.Errorf("env prod %v base %v", prod, base)
	}
}

// Main rules see the analyzers' findings; traits tag every finding on the
// object; the rules' descriptors and section are in the report.
func TestMainRulesTraitsAndReport(t *testing.T) {
	root := repo(t, map[string]string{
		"app/objs.yaml": twoConfigMaps + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}\n",
		"rules.yaml": `- uuid: duplicates-are-fatal
  conditions:
    - {op: eq, args: {values: ["{item[rule_id]}", manifest/duplicate-object]}, loop: "{inventory[findings]}"}
  actions:
    - {op: add-trait, args: {name: duplicated}}
    - {op: log, args: {msg: "{node.metadata.name} is defined more than once", level: error}}
`,
	})
	res, err := Check(context.Background(), configFor(t, root, nil, &config.Flags{Rules: []string{"rules.yaml"}, Paths: []string{"app"}}))
	if err != nil {
		t.Fatal(err)
	}
	// Both definitions of a carry the duplicate's id, so both match.
	logs := findingsOf(res.Report.Findings, "rule/duplicates-are-fatal")
	if len(logs) != 2 || logs[0].Message != "a is defined more than once" || strings.Join(logs[0].Tags, ",") != "duplicated" ||
		logs[0].Location.Line != 1 || logs[1].Location.Line != 11 {
		t.Fatalf("rule findings %+v", logs)
	}
	dups := findingsOf(res.Report.Findings, "manifest/duplicate-object")
	if len(dups) != 1 || strings.Join(dups[0].Tags, ",") != "duplicated" {
		t.Errorf("the analyzer's finding is not tagged: %+v", dups)
	}
	var ids []string
	for _, r := range res.Report.Rules {
		ids = append(ids, r.ID)
	}
	joined := strings.Join(ids, " ")
	for _, want := range []string{"rule/duplicates-are-fatal", "rule/plumb-private-key", rules.RuleInvalid} {
		if !strings.Contains(joined, want) {
			t.Errorf("descriptors lack %s: %v", want, ids)
		}
	}
	var traits []string
	for _, o := range sectionObjects(t, res.Report) {
		traits = append(traits, o.Object.Name+":"+strings.Join(o.Traits, "+"))
	}
	if strings.Join(traits, ",") != "a:duplicated,a:duplicated,s:public-endpoint" {
		t.Errorf("section traits %v", traits)
	}
}

// Rules files that cannot be read or do not validate are input errors (exit
// 2) naming the file and line; the manifests are still checked and the
// valid rules still run.
func TestBadRulesFiles(t *testing.T) {
	root := repo(t, map[string]string{
		"app/cms.yaml": twoConfigMaps,
		"bad.yaml":     "- uuid: ok\n  actions: [{op: log, args: {msg: still runs}}]\n- priority: 99999\n  actions: [{op: log, args: {msg: x}}]\n",
		"dir/a.yaml":   "- {uuid: from-dir, actions: [{op: log, args: {msg: from a directory}}]}\n",
		"dir/skip.txt": "not rules",
	})
	res, err := Check(context.Background(), configFor(t, root, nil, &config.Flags{Rules: []string{"bad.yaml", "missing.yaml", "dir"}, Paths: []string{"app"}}))
	if err != nil {
		t.Fatal(err)
	}
	invalid := findingsOf(res.Report.Findings, rules.RuleInvalid)
	var got []string
	for _, f := range invalid {
		got = append(got, f.String())
	}
	want := []string{
		"bad.yaml:3:3: error: priority 99999 is out of range: user rules use 0 to 9999 (below 0 and above 9999 are reserved for built-in rules) [rule/invalid]",
		"missing.yaml: error: cannot read the rules file: no such file or directory [rule/invalid]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("invalid:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(findingsOf(res.Report.Findings, "rule/ok")) != 2 || len(findingsOf(res.Report.Findings, "rule/from-dir")) != 2 {
		t.Errorf("valid rules did not run:\n%v", res.Report.Findings)
	}
	if res.ExitCode(config.FailOnNever) != ExitError {
		t.Errorf("exit %d", res.ExitCode(config.FailOnNever))
	}
	if len(res.Report.Objects) != 2 {
		t.Errorf("objects %v", res.Report.Objects)
	}
}

// The early phase fails a committed private key before anything renders;
// the finding points at the key's line.
func TestPrivateKeyFailsEarly(t *testing.T) {
	root := repo(t, map[string]string{
		"app/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: k}\nstringData:\n  id_rsa: |\n    -----BEGIN RSA PRIVATE KEY-----\n" +
			strings.Repeat("    MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgwMbRvI0MBZhpF\n", 4) + "    -----END RSA PRIVATE KEY-----\n",
	})
	res, err := Check(context.Background(), configFor(t, root, nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	fs := findingsOf(res.Report.Findings, "rule/plumb-private-key")
	if len(fs) != 1 || fs[0].Location.Line != 5 || fs[0].Level != finding.Error || strings.Contains(fs[0].Message, "MIIE") {
		t.Fatalf("%+v", fs)
	}
	if res.ExitCode(config.FailOnError) != ExitFindings {
		t.Error("exit code")
	}
	_ = hygiene.Rules
}

// A preprocess rule changes what the reference comparison sees: pinning the
// web image (as a site's normalisation might) removes the demo's drift.
func TestPreprocessRuleChangesComparison(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rulesFile := filepath.Join(t.TempDir(), "pin.yaml")
	if err := os.WriteFile(rulesFile, []byte(`- uuid: pin-web
  phase: preprocess
  conditions:
    - {op: eq, args: {values: ["{node.kind}", Deployment]}}
    - {op: eq, args: {values: ["{node.metadata.name}", web]}}
  actions:
    - {op: set-attribute, args: {path: /spec/template/spec/containers/0/image, value: "nginx:1.25.3"}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	drift := func(rulesFiles ...string) int {
		t.Helper()
		file := &config.File{Reference: config.ReferenceFile{Path: "fixtures/reference"}}
		res, err := Check(context.Background(), configFor(t, root, file, &config.Flags{
			Paths: []string{"fixtures/demo"}, Rules: rulesFiles}))
		if err != nil {
			t.Fatal(err)
		}
		return len(findingsOf(res.Report.Findings, "compare/drift"))
	}
	if n := drift(); n != 1 {
		t.Fatalf("drift without the rule: %d", n)
	}
	if n := drift(rulesFile); n != 0 {
		t.Errorf("drift with the rule: %d", n)
	}
}

// A preprocess rule changes what the KubeVirt validations see: giving the
// demo's Windows VM the memory its template requires clears the finding.
func TestPreprocessRuleChangesKubeVirtValidation(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rulesFile := filepath.Join(t.TempDir(), "memory.yaml")
	if err := os.WriteFile(rulesFile, []byte(`- uuid: desktop-memory
  phase: preprocess
  conditions:
    - {op: eq, args: {values: ["{node.kind}", VirtualMachine]}}
    - {op: eq, args: {values: ["{node.metadata.labels[vm.kubevirt.io/template]}", windows11-desktop-medium]}}
  actions:
    - {op: set-attribute, args: {path: /spec/template/spec/domain/memory/guest, value: 4Gi}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	memory := func(rulesFiles ...string) int {
		t.Helper()
		res, err := Check(context.Background(), configFor(t, root, nil, &config.Flags{Paths: []string{"fixtures/demo/desktops"}, Rules: rulesFiles}))
		if err != nil {
			t.Fatal(err)
		}
		return len(findingsOf(res.Report.Findings, "kubevirt/minimal-required-memory"))
	}
	if n := memory(); n != 1 {
		t.Fatalf("findings without the rule: %d", n)
	}
	if n := memory(rulesFile); n != 0 {
		t.Errorf("findings with the rule: %d", n)
	}
}

// Kustomize overlays share their base's objects: a rule that changes the
// prod overlay's Deployment leaves dev's alone; plugin data an early rule
// sets on the base document reaches both overlays' objects; the built-in
// rule names each overlay's environment.
func TestRulesOnKustomizeOverlays(t *testing.T) {
	root := repo(t, map[string]string{
		"apps/web/base/deploy.yaml":                 "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n        - {name: web, image: \"nginx:1.25\"}\n",
		"apps/web/base/kustomization.yaml":          "resources: [deploy.yaml]\n",
		"apps/web/overlays/prod/kustomization.yaml": "resources: [../../base]\nnamePrefix: prod-\n",
		"apps/web/overlays/dev/kustomization.yaml":  "resources: [../../base]\nnamePrefix: dev-\n",
		"rules.yaml": `- uuid: prod-replicas
  phase: preprocess
  conditions:
    - {op: eq, args: {values: ["{plugin_data[environment]}", prod]}}
    - {op: lt, args: {values: ["{node.spec.replicas}", 3]}}
  actions:
    - {op: set-attribute, args: {path: /spec/replicas, value: 3}}
    - {op: log, args: {msg: "{node.metadata.name} from {inventory[source][file]}", path: spec.replicas}}
- uuid: team
  phase: early
  conditions: [{op: eq, args: {values: ["{inventory[source][kind]}", Deployment]}}]
  actions: [{op: set-plugin-data, args: {path: team, value: web}}]
`,
	})
	cfg := configFor(t, root, nil, &config.Flags{Rules: []string{"rules.yaml"}, Paths: []string{"apps"}})
	rendered, err := Load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	replicas := map[string]any{}
	for _, tg := range rendered.Render.Targets {
		for _, o := range tg.Objects {
			v, _ := o.Get(manifest.MustParsePath("spec.replicas"))
			replicas[o.ID.Name] = v
		}
	}
	if replicas["prod-web"] != int64(3) || replicas["dev-web"] != int64(1) {
		t.Errorf("replicas %v", replicas)
	}
	in := analyzerInput(rendered, map[string]any{})
	prod, dev := in.EnvFor("apps/web/overlays/prod"), in.EnvFor("apps/web/overlays/dev")
	if prod["environment"] != "prod" || dev["environment"] != "dev" || prod["team"] != "web" || dev["team"] != "web" {
		t.Errorf("env prod %v dev %v", prod, dev)
	}
	logs := findingsOf(rendered.Findings, "rule/prod-replicas")
	if len(logs) != 1 || logs[0].Message != "prod-web from apps/web/base/deploy.yaml" || logs[0].Location.File != "rules.yaml" || logs[0].Location.Line != 7 {
		t.Errorf("findings %+v", logs)
	}
}

// sectionObjects decodes the object entries of a report's rules section.
func sectionObjects(t *testing.T, rep *report.Report) []rules.SectionEntry {
	t.Helper()
	sec := rep.Sections[rules.SectionName].(*rules.Section)
	out := make([]rules.SectionEntry, len(sec.Objects))
	for i, e := range sec.Objects {
		var err error
		if out[i], err = e.Decode(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
