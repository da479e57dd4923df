package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// Secrets never leave (issue 11, item 3): known values are planted where a
// repository keeps secrets, every sink runs, and none of the values may
// appear in anything plumb prints, writes or sends.

// plantedToken is the GitHub token of the action run.
const plantedToken = "ghs_PLANTEDtoken0123456789abcdef"

// secretRepo is a pull request that changes every planted value; it
// returns the repository and the base commit.
func secretRepo(t *testing.T) (*gittest.Repo, string, []string) {
	t.Helper()
	r := gittest.New(t)
	version := func(v string) map[string]string {
		return map[string]string{
			"app/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\n  annotations:\n" +
				"    kubectl.kubernetes.io/last-applied-configuration: |\n" +
				"      {\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"creds\"},\"stringData\":{\"password\":\"PLANTED-LASTAPPLIED-" + v + "\"}}\n" +
				"type: Opaque\ndata:\n  token: " + base64.StdEncoding.EncodeToString([]byte("PLANTED-DATA-"+v)) + "\n" +
				"stringData:\n  password: PLANTED-STRINGDATA-" + v + "\n",
			"app/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 2\n" +
				"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n" +
				"        - name: web\n          image: nginx:latest\n          env:\n            - name: LOG_LEVEL\n              value: info\n" +
				"            - name: DB_PASSWORD\n              value: PLANTED-ENV-" + v + "\n",
			"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: fast\n  password: PLANTED-CM-" + v + "\n",
			// A kustomize target whose generators make a Secret and a
			// ConfigMap with credentials.
			"gen/kustomization.yaml": "namespace: shop\nsecretGenerator:\n  - name: generated\n    literals: [password=PLANTED-GENSECRET-" + v + "]\n" +
				"configMapGenerator:\n  - name: generated\n    literals: [api_key=PLANTED-GENCM-" + v + ", mode=fast]\n",
		}
	}
	r.Write(version("BASE"))
	r.Write(map[string]string{
		// A reference with its own values for the same fields.
		"ref/metadata.yaml": "apiVersion: v2\nparts:\n  - name: shop\n    components:\n      - name: app\n        allOf:\n" +
			"          - path: cm.yaml\n          - path: secret.yaml\n          - path: deploy.yaml\n",
		"ref/cm.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: slow\n  password: PLANTED-REF-CM\n",
		"ref/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\ntype: Opaque\nstringData:\n  password: PLANTED-REF-SECRET\n",
		"ref/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: web\n          env:\n            - name: LOG_LEVEL\n              value: warn\n            - name: DB_PASSWORD\n              value: PLANTED-REF-ENV\n",
		// Inspection rules that try to print the values.
		"rules/leaky.yaml": "- uuid: leaky\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", Secret]}}]\n" +
			"  actions:\n    - {op: log, args: {level: warning, msg: \"password {node.stringData.password} token {node.data[token]}\"}}\n" +
			"- uuid: leaky-env\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", Deployment]}}]\n" +
			"  actions:\n    - {op: log, args: {level: warning, msg: \"env {node.spec.template.spec.containers[0].env[1].value}\"}}\n",
	})
	base := r.Commit("base")
	r.Write(version("HEAD"))
	var planted []string
	for _, v := range []string{"BASE", "HEAD"} {
		planted = append(planted, "PLANTED-LASTAPPLIED-"+v, "PLANTED-DATA-"+v, base64.StdEncoding.EncodeToString([]byte("PLANTED-DATA-"+v)),
			"PLANTED-STRINGDATA-"+v, "PLANTED-ENV-"+v, "PLANTED-CM-"+v, "PLANTED-GENSECRET-"+v, "PLANTED-GENCM-"+v,
			base64.StdEncoding.EncodeToString([]byte("PLANTED-GENSECRET-"+v)))
	}
	planted = append(planted, "PLANTED-REF-CM", "PLANTED-REF-SECRET", "PLANTED-REF-ENV", plantedToken)
	return r, base, planted
}

// leaks returns the planted values found in text.
func leaks(text string, planted []string) []string {
	var out []string
	for _, v := range planted {
		if strings.Contains(text, v) {
			out = append(out, v)
		}
	}
	return out
}

func TestSecretValuesNeverLeaveThroughAnySink(t *testing.T) {
	r, base, planted := secretRepo(t)
	out := t.TempDir() // report files, outside the repository
	everything := map[string]string{}
	record := func(name string, p proc) {
		everything[name+" stdout"] = p.stdout
		everything[name+" stderr"] = p.stderr
		everything[name+" output"] = p.combined
	}
	run := func(name string, args ...string) proc {
		t.Helper()
		p := runBinary(t, procOptions{dir: r.Dir}, args...)
		record(name, p)
		return p
	}

	// plumb check in pull-request mode with every engine and every format,
	// and the inspection rules' explanation.
	check := run("check", "check", "--root", ".", "app", "gen", "--base-ref", base, "--reference", "ref", "--rules", "rules/leaky.yaml",
		"--explain", "--reproducible", "--format", "text", "--format", "json="+filepath.Join(out, "r.json"),
		"--format", "sarif="+filepath.Join(out, "r.sarif"), "--format", "markdown="+filepath.Join(out, "r.md"),
		"--format", "annotations="+filepath.Join(out, "r.annotations"))
	// Every finding is unchanged (the base had the same problems): exit 0.
	if check.code != 0 {
		t.Errorf("check: exit %d\n%s", check.code, check.stderr)
	}
	render := run("render", "render", "--root", ".", "app", "gen", "--rules", "rules/leaky.yaml")
	origin := run("render --show-origin", "render", "--root", ".", "app", "gen", "--show-origin")
	var compares []proc
	for _, o := range [][]string{nil, {"-o", "json"}, {"-o", "yaml"}, {"-o", "junit"}} {
		compares = append(compares, run("compare "+strings.Join(o, " "), append([]string{"compare", "-r", "ref", "-f", "app", "-A"}, o...)...))
	}
	compares = append(compares, run("compare generate-patches", "compare", "-r", "ref", "-f", "app", "-o", "generate-patches",
		"--generate-override-for", "cm.yaml", "--generate-override-for", "deploy.yaml", "--generate-override-for", "secret.yaml", "--override-reason", "r"))
	for _, c := range compares[:4] { // generate-patches exits 0
		if c.code != 1 {
			t.Errorf("compare: exit %d, want 1 (drift)\n%s%s", c.code, c.stdout, c.stderr)
		}
	}
	collectFiles(t, out, everything)

	// The action on the same pull request, against the fake GitHub: the
	// annotations, the review comments, the summary comment with the
	// rendered diff, the job summary, the SARIF and JSON files.
	step := newActionStep(t, r.Dir, []fakegithub.File{
		{Filename: "app/cm.yaml", Status: "modified", Patch: "@@ -7,2 +7,2 @@\n   mode: fast\n-  password: x\n+  password: y"},
		{Filename: "app/deploy.yaml", Status: "modified", Patch: "@@ -16,6 +16,6 @@\n" + strings.Repeat(" x\n", 5) + "-x\n+y"},
		{Filename: "app/secret.yaml", Status: "modified", Patch: "@@ -1,14 +1,14 @@\n" + strings.Repeat("+x\n", 13) + "+x"},
	})
	step.srv.Tokens[plantedToken] = fakegithub.Write
	for k, v := range map[string]string{"INPUT_TOKEN": plantedToken, "INPUT_PATHS": "app\ngen", "INPUT_BASE-REF": base,
		"INPUT_REFERENCE": "ref", "INPUT_RULES": "rules/leaky.yaml"} {
		step.env[k] = v
	}
	act := step.run()
	if act.code != 0 {
		t.Errorf("action: exit %d\n%s", act.code, act.combined)
	}
	collectAction(t, act, r.Dir, everything)

	// The token is masked before anything is printed, on stdout or
	// stderr; after that it never appears.
	if first, rest, _ := strings.Cut(act.combined, "\n"); first != "::add-mask::"+plantedToken {
		t.Errorf("the first line of the step log is %q, not the token's mask", first)
	} else {
		everything["action log"] = rest
	}

	for name, text := range everything {
		if l := leaks(text, planted); len(l) > 0 {
			t.Errorf("%s leaks %q:\n%s", name, l, text)
		}
	}

	// The sinks did print the objects, masked: the test looked at real
	// output.
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"render", render.stdout, []string{"  password: <redacted>", "              value: <redacted>", "  api_key: <redacted>",
			"    kubectl.kubernetes.io/last-applied-configuration: <redacted>", "  token: <redacted>", "  mode: fast", "value: info"}},
		{"render --show-origin", origin.stdout, []string{"  password: <redacted>  # app/cm.yaml:8", "value: <redacted>  # app/deploy.yaml:"}},
		{"the JSON report's rendered diff", everything["r.json"], []string{`password: \u003credacted\u003e (changed)`, `value: \u003credacted\u003e (changed)`,
			`last-applied-configuration: \u003credacted\u003e (changed)`}},
		{"the summary comment and review", act.bodies(), []string{"+  password: <redacted> (changed)", "+              value: <redacted> (changed)",
			"POST /repos/acme/shop/pulls/7/reviews", "POST /repos/acme/shop/issues/7/comments"}},
		{"compare", compares[0].stdout, []string{"-  password: '*** (after)'", "+  password: '*** (before)'", "-          value: '*** (after)'"}},
		{"--explain", check.stderr, []string{"leaky"}},
		{"the rules' log", check.stdout, []string{"password *** token ***", "env ***"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s lacks %q:\n%s", c.name, w, c.text)
			}
		}
	}
}

// collectFiles adds every file of dir to everything, by name.
func collectFiles(t *testing.T, dir string, everything map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		everything[e.Name()] = string(b)
	}
}

// collectAction adds what an action step printed, wrote and sent.
func collectAction(t *testing.T, act stepResult, ws string, everything map[string]string) {
	t.Helper()
	everything["action log"] = act.combined
	everything["job summary"] = act.summary
	everything["step outputs"] = act.outputs
	everything["requests to GitHub"] = act.bodies()
	for _, f := range []string{"plumb.sarif", "plumb-report.json"} {
		b, err := os.ReadFile(filepath.Join(ws, f))
		if err != nil {
			t.Fatal(err)
		}
		everything["action "+f] = string(b)
	}
}
