package schema

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

const widget = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  labels:
    app: w
spec:
  size: small
  minReplicas: 1
  maxReplicas: 2
  port: http
  name: front-end
  parts:
    - id: a
      weight: 10
  extra:
    anything: [goes, here]
    nested: {deep: true}
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: embedded
    data:
      k: v
status:
  ready: maybe
`

func crdText(t *testing.T) string {
	data, err := os.ReadFile(filepath.Join("testdata", "widgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestCustomResources(t *testing.T) {
	runCases(t, []objectCase{
		{name: "valid", old: "size: small", new: "size: small"},
		{name: "int-or-string as integer", old: "port: http", new: "port: 8080"},
		{name: "template placeholders are not validated", old: "  size: small\n  minReplicas: 1\n", new: "  size: \"${SIZE}\"\n  minReplicas: \"{{ .Values.min }}\"\n"},
		// Flux post-build and clusterctl substitutions with a default
		// (issue 34): placeholders, neither a wrong type nor an object-level
		// repeat at 1:1.
		{name: "substitutions with defaults are placeholders", old: "  minReplicas: 1\n  maxReplicas: 2\n", new: "  minReplicas: ${MIN_REPLICAS:-1}\n  maxReplicas: ${MAX_REPLICAS:=2}\n"},
		{name: "a fraction for an integer, once at its line", old: "minReplicas: 1", new: "minReplicas: 1.5", rule: RuleWrongType, at: "minReplicas",
			msgs: []string{"minReplicas must be of type integer"}},
		{name: "null where unset is accepted", old: "  port: http\n  name: front-end\n", new: "  port: null\n  name: null\n"},
		{name: "preserved subtree takes anything", old: "anything: [goes, here]", new: "anything: {really: [1, 2]}"},
		{name: "unknown nested field", old: "      weight: 10", new: "      wieght: 10", rule: RuleUnknownField, at: "wieght",
			msgs: []string{`parts[0] has no field "wieght": did you mean "weight"?`}},
		{name: "unknown field without a near name", old: "  size: small", new: "  size: small\n  colour: red", rule: RuleUnknownField, at: "colour",
			msgs: []string{`spec has no field "colour" in the CustomResourceDefinition's schema`}},
		{name: "unknown metadata field", old: "  labels:", new: "  lables:", rule: RuleUnknownField, at: "lables", msgs: []string{`did you mean "labels"?`}},
		{name: "wrong type", old: "minReplicas: 1", new: `minReplicas: "1"`, rule: RuleWrongType, at: "minReplicas",
			msgs: []string{"minReplicas must be of type integer, not a string"}},
		{name: "enum", old: "size: small", new: "size: huge", rule: RuleEnum, at: "size: huge", msgs: []string{`size: "huge" is not accepted`, `"small"`}},
		{name: "required nested", old: "    - id: a\n      weight: 10", new: "    - weight: 10", rule: RuleRequired, at: "- weight: 10",
			msgs: []string{`parts[0] is missing the required field "id"`}},
		{name: "required top", old: "  size: small\n", new: "", rule: RuleRequired, at: "spec:", msgs: []string{`spec is missing the required field "size"`}},
		{name: "pattern", old: "name: front-end", new: "name: Front_End", rule: RuleInvalidValue, at: "name: Front_End", msgs: []string{"name: should match"}},
		{name: "minimum", old: "weight: 10", new: "weight: -5", rule: RuleInvalidValue, at: "weight", msgs: []string{"greater than or equal to 0"}},
		{name: "cel rule on an object", old: "maxReplicas: 2", new: "maxReplicas: 0", rule: RuleValidationRule, at: "spec:",
			msgs: []string{"minReplicas must not exceed maxReplicas"}},
		{name: "cel rule on a nested field", old: "weight: 10", new: "weight: 7", rule: RuleValidationRule, at: "weight: 7",
			msgs: []string{"weight must be a multiple of 5"}},
		{name: "cel rule sees defaults", old: "  minReplicas: 1\n  maxReplicas: 2\n", new: "  minReplicas: 5\n", rule: RuleValidationRule, at: "spec:",
			msgs: []string{"minReplicas must not exceed maxReplicas"}},
		{name: "embedded resource needs a kind", old: "    kind: ConfigMap\n", new: "", rule: RuleRequired, at: "template:",
			msgs: []string{`template is missing the required field "kind"`}},
		{name: "embedded resource metadata is validated", old: "      name: embedded", new: "      name: a/b", rule: RuleInvalidValue, at: "name: a/b",
			msgs: []string{"may not contain '/'"}},
		{name: "deprecated version", old: "apiVersion: example.com/v1", new: "apiVersion: example.com/v1beta1", rule: RuleDeprecatedAPI, at: "apiVersion",
			msgs: []string{"example.com/v1beta1 Widget is deprecated by its CustomResourceDefinition widgets.example.com: example.com/v1beta1 Widget is deprecated; use example.com/v1"}},
		{name: "version not served", old: "apiVersion: example.com/v1", new: "apiVersion: example.com/v1alpha1", rule: RuleRemovedAPI, at: "apiVersion",
			msgs: []string{"CustomResourceDefinition widgets.example.com does not serve version v1alpha1 of Widget (served: v1, v1beta1)"}},
	}, widget, map[string]string{"crds/widgets.yaml": crdText(t)})
}

func TestCRDsFromOutsideTheRepository(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "widgets.yaml"), []byte(crdText(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	crds, problems := LoadCRDs([]manifest.Source{{Path: dir, Display: "vendor/crds"}, {Path: filepath.Join(dir, "missing.yaml"), Display: "missing.yaml"}}, manifest.Limits{})
	if len(crds) != 1 || crds[0].ID.Name != "widgets.example.com" {
		t.Fatalf("crds: %v", crds)
	}
	if len(problems) != 1 || !problems[0].Input || problems[0].Location.File != "missing.yaml" {
		t.Fatalf("problems: %+v", problems)
	}
	if loc, _ := crds[0].Locate(nil); loc.File != "vendor/crds/widgets.yaml" {
		t.Errorf("CRD located at %s", loc.File)
	}
	text := with(t, widget, "size: small", "size: huge")
	fs := analyze(t, &Analyzer{CRDs: crds}, map[string]string{"app/widget.yaml": text})
	expectOne(t, fs, text, RuleEnum, "size: huge")
}

func TestCustomResourceWithoutCRD(t *testing.T) {
	text := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\n---\napiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: b\n"
	fs := analyze(t, nil, map[string]string{"apps.yaml": text})
	f := expectOne(t, fs, text, RuleNoSchema, "apiVersion", "no schema for argoproj.io/v1alpha1 Application", "--crds")
	if f.Level.String() != "note" {
		t.Errorf("level %s", f.Level)
	}
	if fs := analyze(t, &Analyzer{SkipKinds: []string{"argoproj.io/*"}}, map[string]string{"apps.yaml": text}); len(fs) > 0 {
		t.Errorf("skip_kinds: %s", list(fs))
	}
	vm := "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\nspec:\n  runStrategy: Always\n"
	if fs := analyze(t, nil, map[string]string{"vm.yaml": vm}); len(fs) > 0 {
		t.Errorf("a VirtualMachine without CRD is the KubeVirt engine's:%s", list(fs))
	}
}

func TestSkipKinds(t *testing.T) {
	text := with(t, deployment, "replicas: 2", "replicsa: 2")
	for _, pattern := range []string{"Deployment", "apps/Deployment", "apps/v1/Deployment", "apps/*"} {
		if fs := analyze(t, &Analyzer{SkipKinds: []string{pattern}}, map[string]string{"d.yaml": text}); len(fs) > 0 {
			t.Errorf("%s: %s", pattern, list(fs))
		}
	}
}

func TestInvalidCRD(t *testing.T) {
	text := with(t, crdText(t), "                minReplicas:\n                  type: integer\n", "                minReplicas:\n")
	fs := analyze(t, nil, map[string]string{"crd.yaml": text})
	expectOne(t, fs, text, RuleInvalidCRD, "openAPIV3Schema:", "not structural", "type")
}

// apiextensions.k8s.io/v1beta1 CRDs, for clusters older than 1.22: unknown
// fields are kept (spec.preserveUnknownFields defaults to true) unless the
// CRD says false, and a schema that is not structural was accepted.
func TestV1beta1CRDs(t *testing.T) {
	crd := func(extra, schemaType string) string {
		return `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  version: v1
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets}
` + extra + `  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          ` + schemaType + `
          properties:
            size: {type: integer}
`
	}
	const gadget = "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\nspec:\n  size: 3\n  colour: red\n"
	cases := []struct {
		name, crd, gadget string
		want              []string // rules, besides the v1beta1 CRD's deprecation
	}{
		{"unknown fields are kept", crd("", "type: object"), gadget, nil},
		{"types are still checked", crd("", "type: object"), with(t, gadget, "size: 3", "size: three"), []string{RuleWrongType}},
		{"pruning asked for", crd("  preserveUnknownFields: false\n", "type: object"), gadget, []string{RuleUnknownField}},
		{"schema not structural", crd("", "description: no type"), gadget, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := analyze(t, &Analyzer{KubernetesMinor: 20}, map[string]string{"crd.yaml": c.crd, "gadget.yaml": c.gadget})
			var got []string
			for _, f := range fs {
				if f.RuleID != RuleDeprecatedAPI {
					got = append(got, f.RuleID)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("rules %v, want %v:%s", got, c.want, list(fs))
			}
		})
	}
}

// A custom resource's credential values never appear in messages, not even
// where the API server's validation or a CEL messageExpression quotes them.
func TestCustomResourceSecretsAreNotQuoted(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: logins.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Login, plural: logins}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
                - rule: "self.password.size() >= 12"
                  messageExpression: "'password ' + self.password + ' is too short'"
              properties:
                password: {type: string}
                apiKey: {type: string, enum: [key-one, key-two]}
`
	login := "apiVersion: example.com/v1\nkind: Login\nmetadata:\n  name: l\nspec:\n  password: hunter2\n  apiKey: key-one\n"
	for name, text := range map[string]string{
		"cel messageExpression": login,
		"enum on a credential":  with(t, with(t, login, "password: hunter2", "password: correct-horse-battery"), "apiKey: key-one", "apiKey: hunter2hunter2"),
	} {
		t.Run(name, func(t *testing.T) {
			fs := analyze(t, nil, map[string]string{"crd.yaml": crd, "login.yaml": text})
			if len(fs) != 1 {
				t.Fatalf("want one finding:%s", list(fs))
			}
			if strings.Contains(fs[0].Message, "hunter2") || strings.Contains(fs[0].Message, "correct-horse") || !strings.Contains(fs[0].Message, manifest.Redacted) {
				t.Errorf("message %q", fs[0].Message)
			}
		})
	}
}

// The CRDs of a chart's crds/ directory validate the custom resources its
// templates write.
func TestChartCRDs(t *testing.T) {
	templ := with(t, widget, "size: small", "size: {{ .Values.size }}")
	values := "size: huge\n"
	fs := analyze(t, nil, map[string]string{
		"chart/Chart.yaml":            "apiVersion: v2\nname: widgets\nversion: 0.1.0\n",
		"chart/values.yaml":           values,
		"chart/crds/widgets.yaml":     crdText(t),
		"chart/templates/widget.yaml": templ,
	})
	f := expectOne(t, fs, values, RuleEnum, "size: huge", `size: "huge" is not accepted`)
	if f.Location.File != "chart/values.yaml" {
		t.Errorf("at %s, want the values line", f.Location.File)
	}
}
