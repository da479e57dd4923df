package compare

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/render"
)

// Secret values of the test inputs and templates; none may appear in any
// output.
var secretValues = []string{"s3cr3t-input", "s3cr3t-reference", "c2VjcmV0LWlucHV0", "c2VjcmV0LXJlZg==", "shared-value"}

func TestSecretValuesNeverLeak(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        anyOf:\n          - path: secret.yaml\n          - path: broken.yaml\n",
		"secret.yaml": `
apiVersion: v1
kind: Secret
metadata:
  name: creds
type: Opaque
data:
  password: c2VjcmV0LXJlZg==
  same: {{ .data.same }}
  onlyref: c2VjcmV0LXJlZg==
stringData:
  token: s3cr3t-reference
`,
		"broken.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: broken\ndata:\n  x: {{ .data.x }}\n{{ if .data }}  y: [{{ end }}\n",
	})
	inputs := objects(t, `
apiVersion: v1
kind: Secret
metadata:
  name: creds
type: Opaque
data:
  password: c2VjcmV0LWlucHV0
  same: shared-value
  onlyinput: c2VjcmV0LWlucHV0
stringData:
  token: s3cr3t-input
---
apiVersion: v1
kind: Secret
metadata:
  name: broken
data:
  x: s3cr3t-input
`)
	res := ref.Compare(context.Background(), inputs, Options{})
	c := compared(t, res, "v1_Secret_creds")
	if !c.HasDiff {
		t.Fatal("the Secret differs")
	}
	var all bytes.Buffer
	rep := res.Report(ReportOptions{AllResources: true, Verbose: true})
	for _, write := range []func() error{
		func() error { return rep.Text(&all) }, func() error { return rep.JSON(&all) },
		func() error { return rep.YAML(&all) }, func() error { return rep.JUnit(&all) },
		func() error { return res.GeneratePatches(&all, []string{"secret.yaml"}, "r") },
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	all.WriteString(res.Errors.Error())
	a := &Analyzer{Ref: ref}
	out, err := a.Analyze(context.Background(), &analyzer.Input{Targets: []*render.Target{{Name: "t", Objects: inputs}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Findings {
		all.WriteString(f.Message + f.Diff + f.Help)
	}
	for _, v := range secretValues {
		if strings.Contains(all.String(), v) {
			t.Errorf("the Secret value %q leaked:\n%s", v, all.String())
		}
	}
	// The diff still shows which keys differ.
	mustContain(t, c.DiffOutput(), "-  password: '*** (after)'", "+  password: '*** (before)'", "   same: '***'", "+  onlyinput: '***'", "-  onlyref: '***'",
		"-  token: '*** (after)'\n+  token: '*** (before)'")
	if len(res.Errors) != 1 || strings.Contains(res.Errors[0].Error(), "The Template After Execution") {
		t.Errorf("a failing template's output is not printed for a Secret: %v", res.Errors)
	}
}

// Credentials outside Secrets are secrets too: a ConfigMap key named
// password and an environment variable named DB_PASSWORD are masked as
// kubectl masks a Secret's values, in the diff, the drift message and a
// generated override; other fields of the same objects are not.
func TestCredentialValuesOutsideSecretsNeverLeak(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n          - path: deploy.yaml\n",
		"cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  password: REF-CM-PW\n  mode: slow\n",
		"deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: web\n          env:\n            - name: DB_PASSWORD\n              value: REF-ENV-PW\n            - name: LOG_LEVEL\n              value: warn\n",
	})
	inputs := objects(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  password: LIVE-CM-PW\n  mode: fast\n---\n"+
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n"+
		"        - name: web\n          env:\n            - name: DB_PASSWORD\n              value: LIVE-ENV-PW\n            - name: LOG_LEVEL\n              value: info\n")
	res := ref.Compare(context.Background(), inputs, Options{})
	var all bytes.Buffer
	rep := res.Report(ReportOptions{AllResources: true, Verbose: true})
	for _, write := range []func() error{
		func() error { return rep.Text(&all) }, func() error { return rep.JSON(&all) }, func() error { return rep.YAML(&all) },
		func() error { return res.GeneratePatches(&all, []string{"cm.yaml", "deploy.yaml"}, "r") },
	} {
		if err := write(); err != nil {
			t.Fatal(err)
		}
	}
	out, err := (&Analyzer{Ref: ref}).Analyze(context.Background(), &analyzer.Input{Targets: []*render.Target{{Name: "t", Objects: inputs}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out.Findings {
		all.WriteString(f.Message + "\n" + f.Diff + "\n")
	}
	for _, v := range []string{"REF-CM-PW", "LIVE-CM-PW", "REF-ENV-PW", "LIVE-ENV-PW"} {
		if strings.Contains(all.String(), v) {
			t.Errorf("%q leaked:\n%s", v, all.String())
		}
	}
	mustContain(t, all.String(),
		"-  password: '*** (after)'", "+  password: '*** (before)'", "-  mode: slow", "+  mode: fast",
		"-          value: '*** (after)'\n+          value: '*** (before)'", "-          value: warn\n+          value: info",
		"ConfigMap settings: data.password differs from the reference template cm.yaml (secret value not shown)",
		"ConfigMap settings: data.mode is fast, the reference template cm.yaml expects slow",
		`"password":"<redacted>"`, `{"name":"DB_PASSWORD","value":"<redacted>"},{"name":"LOG_LEVEL","value":"info"}`)
}
