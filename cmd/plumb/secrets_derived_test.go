package main

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// Secrets through derived text: the ways a secret
// value still reached a report — an error about a Secret generator's
// input, a last-applied annotation written with JSON escapes or holding
// an older value, a reference template printing an input's secret, a
// replacement copying a Secret's value into a ConfigMap, and credentials
// under names or in places the policy missed. Every planted value is
// searched in everything plumb prints, writes or sends, as written,
// base64-encoded and JSON-escaped.

// leakForms are the forms of a planted value searched for.
func leakForms(v string) []string {
	j, _ := json.Marshal(v)
	forms := []string{v, base64.StdEncoding.EncodeToString([]byte(v)), strings.Trim(string(j), `"`)}
	return forms
}

// derivedLeaks returns the planted values found in text, in any form.
func derivedLeaks(text string, planted []string) []string {
	var out []string
	for _, v := range planted {
		for _, f := range leakForms(v) {
			if strings.Contains(text, f) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// derivedSecretsRepo is a pull request that changes every planted value.
func derivedSecretsRepo(t *testing.T) (*gittest.Repo, string, []string) {
	t.Helper()
	r := gittest.New(t)
	var planted []string
	plant := func(v string) string {
		planted = append(planted, v)
		return v
	}
	version := func(v string) map[string]string {
		return map[string]string{
			// Item 12: the annotation kubectl writes, with its JSON
			// escapes, holding an older value than the data.
			"app/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\n  annotations:\n" +
				"    kubectl.kubernetes.io/last-applied-configuration: |\n" +
				`      {"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds"},"stringData":{"password":"` +
				strings.NewReplacer("<", `\u003c`, "&", `\u0026`).Replace(plant("OLD<LASTAPPLIED&"+v)) + `"}}` + "\n" +
				"type: Opaque\nstringData:\n  password: " + plant("PLANTED-PW-"+v) + "\n  token: " + plant("PLANTED-TOKEN-"+v) + "\n",
			// Item 15: credential names and places the policy missed.
			"app/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 2\n" +
				"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n" +
				"        - name: web\n          image: r.io/web:1\n          env:\n" +
				"            - {name: PGPASSWORD, value: " + plant("PLANTED-PGPASSWORD-"+v) + "}\n" +
				"            - {name: AWS_SECRET_ACCESS_KEY, value: " + plant("PLANTED-AWS-"+v) + "}\n" +
				"            - {name: MYSQL_PWD, value: " + plant("PLANTED-MYSQLPWD-"+v) + "}\n" +
				"            - {name: SECRET_KEY, value: " + plant("PLANTED-SECRETKEY-"+v) + "}\n" +
				"            - {name: DB_PASS, value: " + plant("PLANTED-DBPASS-"+v) + "}\n" +
				"            - {name: GITHUB_PAT, value: " + plant("PLANTED-PAT-"+v) + "}\n" +
				"            - {name: SSH_KEY, value: " + plant("PLANTED-SSHKEY-"+v) + "}\n" +
				"            - {name: DATABASE_URL, value: \"postgres://app:" + plant("PLANTED-URLPW-"+v) + "@db:5432/app\"}\n" +
				"            - {name: LOG_LEVEL, value: info}\n",
			"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: fast\n" +
				"  app.properties: |\n    db.url=jdbc:postgresql://db/app\n    db.password=" + plant("PLANTED-PROPS-"+v) + "\n    pool=5\n" +
				"  config.json: |\n    {\"user\": \"app\", \"password\": \"" + plant("PLANTED-JSON-"+v) + "\", \"port\": 5432}\n",
			// Item 14: a replacement copying a Secret's value into a
			// ConfigMap's data and an annotation.
			"repl/res.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: src\n  namespace: shop\nstringData:\n  password: " + plant("PLANTED-REPL-"+v) + "\n---\n" +
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: copy\n  namespace: shop\ndata:\n  copy: placeholder\n",
			"repl/kustomization.yaml": "resources: [res.yaml]\nreplacements:\n  - source: {kind: Secret, name: src, fieldPath: stringData.password}\n" +
				"    targets:\n      - select: {kind: ConfigMap, name: copy}\n        fieldPaths: [data.copy, metadata.annotations.leak]\n        options: {create: true}\n",
			// Item 11: a Secret generator's env file with an invalid byte,
			// and a malformed literal.
			"gen/kustomization.yaml": "namespace: shop\nsecretGenerator:\n  - name: generated\n    envs: [app.env]\n    literals: [\"password " + plant("PLANTED-GENLIT-"+v) + "\"]\n",
			"gen/app.env":            "MODE=fast\nDB_PASSWORD=" + plant("PLANTED-GENENV-"+v) + "-\xff\n",
		}
	}
	r.Write(version("BASE"))
	r.Write(map[string]string{
		// Item 13: reference templates that print an input's secret in a
		// label, and fail with a credential variable's value.
		"ref/metadata.yaml": "apiVersion: v2\nparts:\n  - name: shop\n    components:\n      - name: app\n        allOf:\n" +
			"          - path: secret.yaml\n          - path: deploy.yaml\n",
		"ref/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\n  labels:\n    leak: '{{ .stringData.token }}'\n" +
			"type: Opaque\nstringData:\n  password: fixed\n",
		// kube-compare stops at a template's fail, so the label is also
		// compared alone.
		"ref-label/metadata.yaml": "apiVersion: v2\nparts:\n  - name: shop\n    components:\n      - name: app\n        allOf:\n          - path: secret.yaml\n",
		"ref-label/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\n  labels:\n    leak: '{{ .stringData.token }}'\n" +
			"type: Opaque\nstringData:\n  password: fixed\n",
		"ref/deploy.yaml": "{{- if .spec }}{{ fail (printf \"cannot use %s\" (index (index .spec.template.spec.containers 0).env 0).value) }}{{ end -}}\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n",
		// A catalog whose messages print what the gatherers give.
		"catalog/P1.yaml": "id: P1\nname: n\ngroup: g\ndescription: d\nremediation: r\nmetadata:\n  target_type: object\n  kind: [ConfigMap]\n" +
			"facts:\n  - name: d\n    gatherer: manifest@v1\n    argument: data\n  - name: a\n    gatherer: manifest@v1\n    argument: metadata.annotations?\n" +
			"expectations:\n  - name: e\n    expect: 'false'\n    failure_message: 'data ${facts.d} annotations ${facts.a}'\n",
		"catalog/P2.yaml": "id: P2\nname: n\ngroup: g\ndescription: d\nremediation: r\nmetadata:\n  target_type: object\n  kind: [Deployment]\n" +
			"facts:\n  - {name: env, gatherer: manifest@v1, argument: \"$pod.containers[*].env[*]\"}\n" +
			"expectations:\n  - name: e\n    expect: 'false'\n    failure_message: 'env ${facts.env}'\n",
		"catalog/P3.yaml": "id: P3\nname: n\ngroup: g\ndescription: d\nremediation: r\nmetadata:\n  target_type: group\n" +
			"facts:\n  - {name: o, gatherer: objects@v1, argument: kind=ConfigMap}\n" +
			"expectations:\n  - name: e\n    expect: 'false'\n    failure_message: 'objects ${facts.o}'\n",
		// Inspection rules that try to print the values.
		"rules/leaky.yaml": "- uuid: leaky\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", Secret]}}]\n" +
			"  actions:\n    - {op: log, args: {level: warning, msg: \"annotations {node.metadata.annotations}\"}}\n" +
			"- uuid: leaky-cm\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", ConfigMap]}}]\n" +
			"  actions:\n    - {op: log, args: {level: warning, msg: \"data {node.data} annotations {node.metadata.annotations}\"}}\n" +
			"- uuid: leaky-env\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", Deployment]}}]\n" +
			"  actions:\n    - {op: log, args: {level: warning, msg: \"env {node.spec.template.spec.containers[0].env}\"}}\n",
	})
	base := r.Commit("base")
	r.Write(version("HEAD"))
	return r, base, planted
}

func TestSecretValuesNeverLeaveThroughDerivedText(t *testing.T) {
	r, base, planted := derivedSecretsRepo(t)
	out := t.TempDir()
	everything := map[string]string{}
	run := func(name string, args ...string) boundedRun {
		t.Helper()
		p := runBounded(t, r.Dir, 0, args...)
		everything[name+" stdout"] = p.stdout
		everything[name+" stderr"] = p.stderr
		return p
	}
	paths := []string{"app", "gen", "repl"}
	check := run("check", append(append([]string{"check", "--root", "."}, paths...), "--base-ref", base, "--reference", "ref",
		"--rules", "rules/leaky.yaml", "--checks", "catalog", "--explain", "--reproducible",
		"--format", "text", "--format", "json="+filepath.Join(out, "r.json"), "--format", "sarif="+filepath.Join(out, "r.sarif"),
		"--format", "markdown="+filepath.Join(out, "r.md"), "--format", "annotations="+filepath.Join(out, "r.annotations"))...)
	render := run("render", append(append([]string{"render", "--root", "."}, paths...), "--rules", "rules/leaky.yaml")...)
	run("render --show-origin", append(append([]string{"render", "--root", "."}, paths...), "--show-origin")...)
	compare := run("compare", "compare", "-r", "ref", "-f", "app", "-A")
	compareLabel := run("compare label", "compare", "-r", "ref-label", "-f", "app", "-A")
	for _, o := range []string{"json", "yaml", "junit"} {
		run("compare -o "+o, "compare", "-r", "ref", "-f", "app", "-A", "-o", o)
		run("compare label -o "+o, "compare", "-r", "ref-label", "-f", "app", "-A", "-o", o)
	}
	collectFiles(t, out, everything)

	// The action on the same pull request, against the fake GitHub.
	step := newActionStep(t, r.Dir, []fakegithub.File{
		{Filename: "app/cm.yaml", Status: "modified", Patch: "@@ -7,8 +7,8 @@\n" + strings.Repeat(" x\n", 3) + "-x\n+y"},
		{Filename: "app/deploy.yaml", Status: "modified", Patch: "@@ -16,10 +16,10 @@\n" + strings.Repeat(" x\n", 5) + "-x\n+y"},
		{Filename: "app/secret.yaml", Status: "modified", Patch: "@@ -1,14 +1,14 @@\n" + strings.Repeat("+x\n", 13) + "+x"},
		{Filename: "repl/res.yaml", Status: "modified", Patch: "@@ -1,7 +1,7 @@\n" + strings.Repeat("+x\n", 6) + "+x"},
	})
	step.srv.Tokens[plantedToken] = fakegithub.Write
	for k, v := range map[string]string{"INPUT_TOKEN": plantedToken, "INPUT_PATHS": strings.Join(paths, "\n"), "INPUT_BASE-REF": base,
		"INPUT_REFERENCE": "ref", "INPUT_RULES": "rules/leaky.yaml", "INPUT_CHECKS": "catalog"} {
		step.env[k] = v
	}
	act := step.run()
	collectAction(t, act, r.Dir, everything)
	everything["action log"] = strings.TrimPrefix(act.combined, "::add-mask::"+plantedToken+"\n")
	if len(act.requests) == 0 {
		t.Errorf("the action sent nothing to GitHub:\n%s", act.combined)
	}

	for name, text := range everything {
		if l := derivedLeaks(text, append(planted, plantedToken)); len(l) > 0 {
			t.Errorf("%s leaks %q:\n%.3000s", name, l, text)
		}
	}

	// The sinks did print the objects and the messages, masked: the test
	// looked at real output.
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"render", render.stdout, []string{"db.password=<redacted>", `"password": "<redacted>"`, "pool=5", "copy: <redacted>", "leak: <redacted>",
			"value: <redacted>", "value: info", "kubectl.kubernetes.io/last-applied-configuration: <redacted>"}},
		{"check's report", check.stdout, []string{
			"gen/app.env:2:", "line 2 is not valid UTF-8", "secretGenerator[0].literals[0]: not KEY=VALUE",
			`annotations {"kubectl.kubernetes.io/last-applied-configuration":"***"} [rule/leaky]`, `"copy":"***"`,
			"[check/P1]", "[check/P2]", "[check/P3]", "db.password=\\u003credacted\\u003e"}},
		{"compare", compare.stdout + compare.stderr, []string{"error calling fail: its message is not shown, as the input holds secret values"}},
		{"compare label", compareLabel.stdout + compareLabel.stderr, []string{"leak: '***'"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s lacks %q:\n%.6000s", c.name, w, c.text)
			}
		}
	}
}
