package schema

import (
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// anyCRD is a CustomResourceDefinition of group/kind whose schema takes
// anything: were it used, objects of the kind would not be validated.
func anyCRD(name, group, kind, annotations string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ` + name + `
` + annotations + `spec:
  group: "` + group + `"
  scope: Namespaced
  names: {kind: ` + kind + `, plural: things}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          x-kubernetes-preserve-unknown-fields: true
`
}

const ingress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
    - http:
        paths:
          - path: /
            pathType: Sometimes
            backend:
              service: {name: web, port: {number: 80}}
`

// A CustomResourceDefinition in one of Kubernetes' own API groups never
// replaces the built-in schema: the objects of the kind are validated
// against it, and the CRD is refused at its group line, whether the
// repository or the workflow (--crds) gives it.
func TestCRDCannotReplaceBuiltinSchema(t *testing.T) {
	bad := with(t, deployment, "imagePullPolicy: IfNotPresent", "imagePullPolicy: Sometimes")
	approved := "  annotations:\n    api-approved.kubernetes.io: https://github.com/kubernetes/enhancements/pull/1111\n"
	configMap := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  port: 8080\n"
	cases := []struct {
		name, crd, object, rule, objectAt, msg string
		workflow                               bool
	}{
		{"apps Deployment in the repository", anyCRD("deployments.apps", "apps", "Deployment", ""), bad, RuleEnum, "imagePullPolicy: Sometimes",
			`spec.group "apps" is an API group of Kubernetes itself`, false},
		{"apps Deployment from --crds", anyCRD("deployments.apps", "apps", "Deployment", ""), bad, RuleEnum, "imagePullPolicy: Sometimes",
			`spec.group "apps" is an API group of Kubernetes itself`, true},
		{"approved networking.k8s.io Ingress", anyCRD("ingresses.networking.k8s.io", "networking.k8s.io", "Ingress", approved), ingress, RuleEnum, "pathType: Sometimes",
			`spec.group "networking.k8s.io" is an API group of Kubernetes itself`, false},
		{"core ConfigMap", anyCRD("configmaps", "", "ConfigMap", ""), configMap, RuleWrongType, "port: 8080",
			"spec.group is empty", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{"app/object.yaml": c.object}
			a := &Analyzer{}
			if c.workflow {
				a.WorkflowCRDs = crdObjects(t, "vendor/crd.yaml", c.crd)
			} else {
				files["crds/crd.yaml"] = c.crd
			}
			fs := analyze(t, a, files)
			var objectFs, crdFs []finding.Finding
			for _, f := range fs {
				if f.Object.Kind == "CustomResourceDefinition" {
					crdFs = append(crdFs, f)
				} else {
					objectFs = append(objectFs, f)
				}
			}
			expectOne(t, objectFs, c.object, c.rule, c.objectAt)
			f := expectOne(t, crdFs, c.crd, RuleInvalidCRD, "group:", c.msg)
			if f.Level != finding.Error {
				t.Errorf("level %s", f.Level)
			}
		})
	}
}

// crdObjects reads CRDs as LoadCRDs does, at file.
func crdObjects(t *testing.T, file, text string) []*manifest.Object {
	t.Helper()
	docs, problems := manifest.Parse(file, []byte(text), manifest.Limits{})
	if len(problems) > 0 {
		t.Fatalf("%s: %v", file, problems)
	}
	var out []*manifest.Object
	for _, d := range docs {
		objs, probs := d.Objects("")
		if len(probs) > 0 {
			t.Fatalf("%s: %v", file, probs)
		}
		out = append(out, objs...)
	}
	if len(out) == 0 || !strings.Contains(text, "CustomResourceDefinition") {
		t.Fatalf("%s holds no CRD", file)
	}
	return out
}

// A CRD whose group the API server refuses is an error at its group line
// (or at the annotation that is wrong), saying what to change; its kind's
// objects get no note about a missing schema. The groups it takes are
// used.
func TestCRDGroupAsTheAPIServerChecksIt(t *testing.T) {
	annotated := func(v string) string {
		return "  annotations:\n    api-approved.kubernetes.io: \"" + v + "\"\n"
	}
	const thing = "apiVersion: %s/v1\nkind: Thing\nmetadata:\n  name: t\nspec:\n  size: 3\n"
	cases := []struct {
		name, group, annotations string
		at                       string // "" when the CRD is taken
		msgs                     []string
	}{
		{"no dot", "widgets", "", "group:", []string{`spec.group "widgets" should be a domain with at least one dot`, "such as widgets.example.com"}},
		{"not a DNS subdomain", "Widgets.Example.com", "", "group:", []string{`spec.group "Widgets.Example.com" is not a valid API group`, "lowercase RFC 1123 subdomain"}},
		{"removed Kubernetes group", "extensions", "", "group:", []string{`spec.group "extensions" is an API group of Kubernetes itself`}},
		{"reserved without approval", "widgets.k8s.io", "", "group:", []string{`"widgets.k8s.io" is under k8s.io or kubernetes.io`,
			`protected groups must have approval annotation "api-approved.kubernetes.io"`, "such as widgets.example.com"}},
		{"reserved with a bad approval", "widgets.kubernetes.io", annotated("yes"), "api-approved.kubernetes.io:",
			[]string{`the annotation api-approved.kubernetes.io is "yes"`, `either a URL or a reason starting with "unapproved"`}},
		{"reserved and approved", "widgets.k8s.io", annotated("https://github.com/kubernetes/enhancements/pull/1111"), "", nil},
		{"reserved, unapproved on purpose", "widgets.kubernetes.io", annotated("unapproved, experimental"), "", nil},
		{"a group of one's own", "widgets.example.com", "", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			crd := strings.Replace(anyCRD("things."+c.group, c.group, "Thing", c.annotations), "x-kubernetes-preserve-unknown-fields: true",
				"properties:\n            spec:\n              type: object\n              properties:\n                size: {type: string}", 1)
			cr := strings.Replace(thing, "%s", c.group, 1)
			fs := analyze(t, nil, map[string]string{"crd.yaml": crd, "thing.yaml": cr})
			if c.at == "" {
				// Taken: the custom resource is validated against it.
				expectOne(t, fs, cr, RuleWrongType, "size: 3")
				return
			}
			// A kind in a removed Kubernetes group is also reported at the
			// object (schema/unknown-kind).
			fs = slices.DeleteFunc(fs, func(f finding.Finding) bool { return f.Location.File != "crd.yaml" })
			expectOne(t, fs, crd, RuleInvalidCRD, c.at, c.msgs...)
		})
	}
	t.Run("no group at all", func(t *testing.T) {
		// The built-in schema of CustomResourceDefinition reports it, once.
		crd := strings.Replace(anyCRD("things", "", "Thing", ""), "  group: \"\"\n", "", 1)
		expectOne(t, analyze(t, nil, map[string]string{"crd.yaml": crd}), crd, RuleRequired, "spec:", `missing the required field "group"`)
	})
}

// The workflow's CRDs (--crds) win over the repository's for the versions
// they define, with a note at the repository's CRD; versions only the
// repository defines are still its own.
func TestWorkflowCRDsWinOverTheRepository(t *testing.T) {
	strict := crdText(t) // widgets.example.com: v1 (enum on size), v1beta1 deprecated, v1alpha1 not served
	lax := anyCRD("widgets.example.com", "example.com", "Widget", "")
	laxV2 := lax + "    - name: v2\n      served: true\n      storage: false\n      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n"
	huge := with(t, widget, "size: small", "size: huge")
	hugeV2 := with(t, huge, "example.com/v1", "example.com/v2")
	workflow := crdObjects(t, "vendor/crds/widgets.yaml", strict)
	rules := func(fs []finding.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Location.File+" "+f.RuleID)
		}
		slices.Sort(out)
		return out
	}

	t.Run("the repository's alone is used", func(t *testing.T) {
		if fs := analyze(t, nil, map[string]string{"crds/widgets.yaml": lax, "app/widget.yaml": huge}); len(fs) > 0 {
			t.Errorf("want no finding:%s", list(fs))
		}
	})
	t.Run("the workflow's wins, noted at the repository's", func(t *testing.T) {
		fs := analyze(t, &Analyzer{WorkflowCRDs: workflow}, map[string]string{"crds/widgets.yaml": lax, "app/widget.yaml": huge})
		if got, want := rules(fs), []string{"app/widget.yaml " + RuleEnum, "crds/widgets.yaml " + RuleCRDOverridden}; !slices.Equal(got, want) {
			t.Fatalf("findings %v, want %v:%s", got, want, list(fs))
		}
		note := slices.DeleteFunc(slices.Clone(fs), func(f finding.Finding) bool { return f.RuleID != RuleCRDOverridden })
		f := expectOne(t, note, lax, RuleCRDOverridden, "- name: v1",
			"the workflow's CustomResourceDefinition widgets.example.com (vendor/crds/widgets.yaml) also defines version v1 of example.com Widget, and it is the one used",
			"--crds")
		if f.Level != finding.Note {
			t.Errorf("level %s", f.Level)
		}
	})
	t.Run("the repository's own versions stay its own", func(t *testing.T) {
		fs := analyze(t, &Analyzer{WorkflowCRDs: workflow}, map[string]string{"crds/widgets.yaml": laxV2, "app/widget.yaml": hugeV2})
		if got, want := rules(fs), []string{"crds/widgets.yaml " + RuleCRDOverridden}; !slices.Equal(got, want) {
			t.Fatalf("findings %v, want %v:%s", got, want, list(fs))
		}
	})
	t.Run("the same definition twice is no note", func(t *testing.T) {
		fs := analyze(t, &Analyzer{WorkflowCRDs: workflow}, map[string]string{"crds/widgets.yaml": strict, "app/widget.yaml": huge})
		if got, want := rules(fs), []string{"app/widget.yaml " + RuleEnum}; !slices.Equal(got, want) {
			t.Fatalf("findings %v, want %v:%s", got, want, list(fs))
		}
	})
	t.Run("the repository's configuration comes after the rendered CRDs", func(t *testing.T) {
		config := crdObjects(t, "config/crds/widgets.yaml", strict)
		fs := analyze(t, &Analyzer{CRDs: config}, map[string]string{"crds/widgets.yaml": lax, "app/widget.yaml": huge})
		if len(fs) > 0 {
			t.Errorf("want no finding:%s", list(fs))
		}
	})
}
