package compare

import (
	"strings"
	"testing"
)

// A template whose output is not YAML is reported at the template line
// that wrote the offending output line, also when that line holds actions
// (its text then differs from the output's) and when comments and
// conditionals shift the output's lines against the template's.
func TestNotYAMLOutputIsReportedAtTheTemplateLine(t *testing.T) {
	const header = "{{- /* a comment\n   over two lines */ -}}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\n  namespace: x\ndata:\n"
	for _, c := range []struct {
		name, template string
		line           int
	}{
		// Output line 7 is "  bad: [" (the action printed nothing): the
		// template's line 12.
		{"an action on the line", header + "  {{- if .data }}\n  k: {{ .data.k }}\n  {{- end }}\n  bad: [{{ .metadata.name }}\n", 12},
		{"trim markers around the action", header + "  bad: {{- \" \" -}} [{{- .metadata.name -}}\n", 9},
		{"the same text, shifted by the comment", header + "  bad: [unclosed\n", 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{
				"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n",
				"cm.yaml":       c.template,
			}
			_, ps := Load(refFS(files), "metadata.yaml", "ref")
			if len(ps) != 1 || ps[0].Location.File != "ref/cm.yaml" || ps[0].Location.Line != c.line {
				t.Fatalf("load problems %v, want one at ref/cm.yaml:%d", ps, c.line)
			}
			if !strings.Contains(ps[0].Message, "isn't a yaml file after injection") {
				t.Errorf("message %q", ps[0].Message)
			}
		})
	}

	// With an input's data, when comparing: the template renders at load
	// (data empty) and fails only on this input.
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n",
		"cm.yaml": "{{- /* one\n two\n three */ -}}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\n" +
			"{{- if .data }}\ndata:\n  broken: [{{ .data.k }}\n{{- end }}\n",
	})
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n", Options{})
	if len(res.Errors) != 1 || res.Errors[0].Location.Line != 10 {
		t.Fatalf("compare errors %v, want one at ref/cm.yaml:10", res.Errors)
	}
}

// A template that fails with one of the input's secret values prints
// neither the value nor a mask in its place (which would tell that, and
// where, the message held it): the message of a function the template
// called is left out for an input that holds secret values. The other
// inputs are compared all the same.
func TestFailingOnASecretValuePrintsNoTraceOfIt(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: secret.yaml\n          - path: cm.yaml\n",
		"secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .metadata.name }}\n" +
			"{{- if .stringData }}\n{{ fail (printf \"bad password %s, length %d\" .stringData.password (len .stringData.password)) }}\n{{- end }}\n" +
			"{{- if .data }}\n{{ fail (printf \"cannot decode %s\" (b64dec .data.token)) }}\n{{- end }}\n",
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: slow\n",
	})
	res := compareInputs(t, ref, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: short\nstringData:\n  password: pw1\n---\n"+
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: long\nstringData:\n  password: hunter2hunter2\n---\n"+
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: encoded\ndata:\n  token: czNjcjN0LXRva2Vu\n---\n"+
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: plain\n---\n"+
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n", Options{})
	if len(res.Errors) != 3 {
		t.Fatalf("errors %v, want one per Secret with a value", res.Errors)
	}
	for _, p := range res.Errors {
		msg := p.Error()
		for _, leak := range []string{"pw1", "hunter2hunter2", "s3cr3t-token", "czNjcjN0LXRva2Vu", "*", "length 3", "length 14"} {
			if strings.Contains(msg, leak) {
				t.Errorf("the error shows %q: %s", leak, msg)
			}
		}
		mustContain(t, msg, "ref/secret.yaml:", "error calling fail: its message is not shown, as the input holds secret values")
	}
	// The comparison went on: the Secret without values and the ConfigMap.
	if c := compared(t, res, "v1_Secret_plain"); c.HasDiff {
		t.Errorf("Secret plain: %s", c.RefText)
	}
	if c := compared(t, res, "v1_ConfigMap_settings"); !c.HasDiff {
		t.Error("ConfigMap settings: no diff")
	}
}

// Where text/template's errors can go on with a value's text, it is cut.
func TestWithoutValueText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`template: s.yaml:6:3: executing "s.yaml" at <fail .x>: error calling fail: bad password hunter2`,
			`template: s.yaml:6:3: executing "s.yaml" at <fail .x>: error calling fail: its message is not shown, as the input holds secret values`},
		{`template: s.yaml:2:9: executing "s.yaml" at <b64dec .data.k>: error calling b64dec: illegal base64 data at input byte 4`,
			`template: s.yaml:2:9: executing "s.yaml" at <b64dec .data.k>: error calling b64dec: its message is not shown, as the input holds secret values`},
		{`template: s.yaml:3:11: executing "s.yaml" at <.stringData.password>: range can't iterate over hunter2`,
			`template: s.yaml:3:11: executing "s.yaml" at <.stringData.password>: range can't iterate over the value it was given (not shown, as the input holds secret values)`},
		{`template: s.yaml:3:11: executing "s.yaml" at <.a.b>: nil pointer evaluating interface {}.b`,
			`template: s.yaml:3:11: executing "s.yaml" at <.a.b>: nil pointer evaluating interface {}.b`},
	} {
		if got := withoutValueText(c.in); got != c.want {
			t.Errorf("withoutValueText(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}
