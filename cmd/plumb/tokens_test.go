package main

import (
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// Tokens never leave (issue 31, point 2). The runner's environment holds
// the job's tokens, and actions/checkout writes the token into
// .git/config; a pull request tries to get plumb to print them and other
// credential-shaped text. Every command runs, and plumb action posts to
// the fake GitHub; every form of every token, and every planted
// credential, is searched in all plumb printed, wrote and sent.

// plantedTokens are the job's tokens, by environment variable. The first
// three are shaped as GitHub's; the runtime tokens are not, so only the
// process's own redaction (internal/redact) catches them. The OIDC
// request token has characters JSON and URLs escape.
var plantedTokens = map[string]string{
	"INPUT_TOKEN":                    "ghs_INPUTtoken0123456789abcdefABCDEF0123",
	"GITHUB_TOKEN":                   "ghs_GITHUBtoken0123456789abcdefABCDEF012",
	"GH_TOKEN":                       "gho_GHtoken0123456789abcdefABCDEF01234567",
	"ACTIONS_RUNTIME_TOKEN":          "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJydW50aW1lIjoicGxhbnRlZCJ9.c2lnbmF0dXJlLXBsYW50ZWQ",
	"ACTIONS_ID_TOKEN_REQUEST_TOKEN": "idreq+Tok/en=Value<&>0123456789",
}

// Credential-shaped text the repository holds (not tokens of the job).
var plantedShapes = []string{
	"ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
	"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789",
	"AKIAIOSFODNN7PLANTED",
	"MIIEpAIBAAKCAQEAplantedPrivateKeyBody0123456789",
	"planted-url-password",
	"eyJhbGciOiJIUzI1NiJ9.cGxhbnRlZA.bearer0123",
}

// tokenForms are the ways a token may be written, computed without
// internal/redact: as it is, JSON-escaped, URL-encoded, and the
// characters of its base64 encoding (standard and URL alphabets, also
// URL-encoded) that only its bytes decide, alone, after one or two bytes
// and after "x-access-token:" (the basic credentials of .git/config).
func tokenForms(tok string) map[string]string {
	j, _ := json.Marshal(tok)
	forms := map[string]string{"as written": tok, "JSON-escaped": strings.Trim(string(j), `"`),
		"query-escaped": url.QueryEscape(tok), "path-escaped": url.PathEscape(tok)}
	for _, enc := range []struct {
		name string
		e    *base64.Encoding
	}{{"base64", base64.StdEncoding}, {"base64url", base64.URLEncoding}} {
		for _, prefix := range []string{"", "x", "xy", "x-access-token:"} {
			b := enc.e.EncodeToString([]byte(prefix + tok))
			// Past the characters the prefix touches, before the last
			// group and its padding.
			middle := b[len(prefix)*4/3+2 : len(b)-4]
			forms[enc.name+" after "+strings.Repeat(".", len(prefix))] = middle
			forms[enc.name+" after "+strings.Repeat(".", len(prefix))+", URL-encoded"] = url.QueryEscape(middle)
		}
	}
	return forms
}

// tokenLeaks lists what of the planted tokens and shapes text holds.
func tokenLeaks(text string) []string {
	var out []string
	for name, tok := range plantedTokens {
		for form, f := range tokenForms(tok) {
			if strings.Contains(text, f) {
				out = append(out, name+" "+form)
			}
		}
	}
	for _, s := range plantedShapes {
		j, _ := json.Marshal(s)
		if strings.Contains(text, s) || strings.Contains(text, strings.Trim(string(j), `"`)) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// tokensRepo is a pull request whose head plants the tokens and shapes
// where plumb quotes, renders, diffs and caches them; it returns the
// repository and the base commit.
func tokensRepo(t *testing.T) (*gittest.Repo, string) {
	t.Helper()
	r := gittest.New(t)
	tok := plantedTokens
	blob := func(prefix, v, suffix string) string {
		return base64.StdEncoding.EncodeToString([]byte(prefix + v + suffix))
	}
	version := func(head bool) map[string]string {
		pick := func(base, planted string) string {
			if head {
				return planted
			}
			return base
		}
		return map[string]string{
			// A Deployment whose enum fields (quoted by schema/enum) and
			// other strings hold the tokens, whole or base64-encoded at
			// the three alignments, and credential shapes.
			"app/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations:
    ci.example.com/notes: "` + pick("none", "keys "+plantedShapes[0]+" and "+plantedShapes[1]+" and "+plantedShapes[2]) + `"
    ci.example.com/blob: "` + pick("none", blob("ab", tok["ACTIONS_ID_TOKEN_REQUEST_TOKEN"], "tail")) + `"
    ci.example.com/key: "` + pick("none", "-----BEGIN RSA PRIVATE KEY-----\\n"+plantedShapes[3]+"\\n-----END RSA PRIVATE KEY-----") + `"
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      restartPolicy: "` + pick("Always", blob("a", tok["ACTIONS_RUNTIME_TOKEN"], "")) + `"
      dnsPolicy: "` + pick("ClusterFirst", base64.URLEncoding.EncodeToString([]byte("x-access-token:"+tok["INPUT_TOKEN"]))) + `"
      containers:
        - name: web
          image: r.example.com/web:1
          imagePullPolicy: "` + pick("Always", tok["ACTIONS_RUNTIME_TOKEN"]) + `"
          args: ["--repo=https://bot:` + pick("$(PW)", plantedShapes[4]) + `@git.example.com/r.git", "--id=` + pick("x", tok["GH_TOKEN"]) + `"]
          ports:
            - {containerPort: 8080, protocol: "` + pick("TCP", tok["ACTIONS_ID_TOKEN_REQUEST_TOKEN"]) + `"}
          env:
            - {name: GIT_AUTH, value: "` + pick("none", "AUTHORIZATION: bearer "+plantedShapes[5]) + `"}
            - {name: LOG_LEVEL, value: "` + pick("info", tok["GITHUB_TOKEN"]) + `"}
`,
			"app/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: notes, namespace: shop}
data:
  notes: "` + pick("none", "deploy key "+plantedShapes[0]) + `"
  runtime: "` + pick("none", tok["ACTIONS_RUNTIME_TOKEN"]) + `"
  gitconfig: "` + pick("none", "[http]\\n\\textraheader = AUTHORIZATION: basic "+blob("x-access-token:", tok["GITHUB_TOKEN"], "")+"\\n") + `"
`,
		}
	}
	r.Write(version(false))
	r.Write(map[string]string{
		// The attack of the issue: a generator reading the checkout's
		// .git/config, copied into a field an enum check quotes.
		"kustomization.yaml": "resources: [gitleak/deploy.yaml]\nconfigMapGenerator:\n  - name: gitcfg\n    files: [config=.git/config]\n" +
			"replacements:\n  - source: {kind: ConfigMap, name: gitcfg, fieldPath: data.config}\n    targets:\n" +
			"      - select: {kind: Deployment, name: leak}\n        fieldPaths: [spec.template.spec.containers.0.imagePullPolicy]\n",
		"gitleak/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: leak}\nspec:\n  selector: {matchLabels: {app: leak}}\n" +
			"  template:\n    metadata: {labels: {app: leak}}\n    spec:\n      containers:\n        - {name: c, image: r.example.com/c:1, imagePullPolicy: Always}\n",
		// A reference whose drift diffs print the inputs' values.
		"ref/metadata.yaml": "apiVersion: v2\nparts:\n  - name: shop\n    components:\n      - name: app\n        allOf:\n" +
			"          - path: cm.yaml\n          - path: deploy.yaml\n",
		"ref/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes, namespace: shop}\ndata: {notes: other, runtime: other, gitconfig: other}\n",
		"ref/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  annotations: {ci.example.com/notes: other}\n" +
			"spec:\n  template:\n    spec:\n      containers:\n        - name: web\n          imagePullPolicy: IfNotPresent\n",
		// Rules and a catalog that print what they read, and a rule
		// message that names a token itself.
		"rules/leaky.yaml": "- uuid: leaky\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", Deployment]}}]\n" +
			"  actions:\n    - {op: log, args: {level: warning, msg: \"annotations {node.metadata.annotations} containers {node.spec.template.spec.containers}\"}}\n" +
			"- uuid: leaky-cm\n  conditions: [{op: eq, args: {values: [\"{node.kind}\", ConfigMap]}}]\n" +
			"  actions:\n    - {op: log, args: {level: warning, msg: \"data {node.data} token " + tok["GH_TOKEN"] + "\"}}\n",
		"catalog/P1.yaml": "id: P1\nname: n\ngroup: g\ndescription: d\nremediation: 'use " + tok["ACTIONS_RUNTIME_TOKEN"] + "'\n" +
			"metadata:\n  target_type: object\n  kind: [ConfigMap, Deployment]\n" +
			"facts:\n  - {name: m, gatherer: manifest@v1, argument: metadata}\n  - {name: d, gatherer: manifest@v1, argument: data?}\n" +
			"  - {name: c, gatherer: manifest@v1, argument: \"$pod.containers\"}\n" +
			"expectations:\n  - name: e\n    expect: 'false'\n    failure_message: 'metadata ${facts.m} data ${facts.d} containers ${facts.c}'\n",
		// A check and facts for checks eval.
		"evalcatalog/E1.yaml": "id: E1\nname: n\ngroup: g\ndescription: d\nremediation: r\nmetadata:\n  target_type: object\n" +
			"facts:\n  - {name: m, gatherer: manifest@v1, argument: metadata}\n  - {name: d, gatherer: manifest@v1, argument: data}\n" +
			"expectations:\n  - name: e\n    expect: 'false'\n    failure_message: 'metadata ${facts.m} data ${facts.d}'\n",
		"facts.yaml": "targets: {a1: agent_1}\nfacts:\n  E1:\n    m: {a1: \"" + tok["ACTIONS_ID_TOKEN_REQUEST_TOKEN"] + "\"}\n" +
			"    d: {a1: \"" + tok["GH_TOKEN"] + "\"}\n",
	})
	base := r.Commit("base")
	r.Write(version(true))
	// What actions/checkout writes into the checkout's configuration.
	cfg := filepath.Join(r.Dir, ".git", "config")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok["GITHUB_TOKEN"]))
	if _, err := f.WriteString("[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + basic + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return r, base
}

// snapshot reads every file below dir, by path relative to it.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// runStepBounded is actionStep.run with the process's time and memory
// bounded; stdout and stderr are apart.
func runStepBounded(s *actionStep) (boundedRun, stepResult) {
	s.t.Helper()
	s.srv.ResetRequests()
	env := make([]string, 0, len(s.env))
	for k, v := range s.env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	p := runBoundedEnv(s.t, s.ws, env, 0)
	res := stepResult{proc: p.proc, requests: s.srv.Requests()}
	if b, err := os.ReadFile(s.env["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(b)
	}
	if b, err := os.ReadFile(s.env["GITHUB_OUTPUT"]); err == nil {
		res.outputs = string(b)
	}
	return p, res
}

func TestTokensNeverLeave(t *testing.T) {
	r, base := tokensRepo(t)
	out, cache, actionCache, xdg := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	// The commands without --cache-dir use the default cache, here.
	env := []string{"XDG_CACHE_HOME=" + xdg}
	for k, v := range plantedTokens {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	before := snapshot(t, r.Dir)
	everything := map[string]string{}
	run := func(name string, args ...string) boundedRun {
		t.Helper()
		p := runBoundedEnv(t, r.Dir, env, 0, args...)
		everything[name+" stdout"] = p.stdout
		everything[name+" stderr"] = p.stderr
		return p
	}

	checkArgs := []string{"check", "--base-ref", base, "--reference", "ref", "--rules", "rules/leaky.yaml", "--checks", "catalog",
		"--explain", "--reproducible", "--cache-dir", cache}
	files := []string{"--format", "text", "--format", "json=" + filepath.Join(out, "r.json"), "--format", "sarif=" + filepath.Join(out, "r.sarif"),
		"--format", "markdown=" + filepath.Join(out, "r.md"), "--format", "annotations=" + filepath.Join(out, "r.annotations"),
		"--format", "json=reports/in-workspace.json"}
	if err := os.MkdirAll(filepath.Join(r.Dir, "reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	check := run("check, cold", append(checkArgs, files...)...)
	run("check, warm", append(checkArgs, files...)...)
	for _, f := range []string{"text", "json", "sarif", "markdown", "annotations"} {
		run("check --format "+f, append(checkArgs, "--format", f)...)
	}
	render := run("render", "render", "--rules", "rules/leaky.yaml")
	run("render --show-origin", "render", "--show-origin")
	run("fix --dry-run", "fix", "--dry-run")
	compare := run("compare", "compare", "-r", "ref", "-f", "app", "-A")
	for _, o := range []string{"json", "yaml", "junit"} {
		run("compare -o "+o, "compare", "-r", "ref", "-f", "app", "-A", "-o", o)
	}
	run("merge", "merge", filepath.Join(out, "r.json"))
	run("merge --format json", "merge", "--format", "json", filepath.Join(out, "r.json"))
	run("checks show", "checks", "show", "P1", "--checks", "catalog")
	run("checks lint", "checks", "lint", "catalog")
	evalRun := run("checks eval", "checks", "eval", "--catalog", "evalcatalog", "--facts", "facts.yaml", "--format", "text")
	run("checks eval json", "checks", "eval", "--catalog", "evalcatalog", "--facts", "facts.yaml")
	run("rules show", "rules", "show", "leaky-cm", "--rules", "rules/leaky.yaml")
	run("rules list", "rules", "list", "--long", "--rules", "rules/leaky.yaml")
	run("rules lint", "rules", "lint", "rules/leaky.yaml")
	for name, text := range snapshot(t, out) {
		everything["file "+name] = text
	}

	// The action in pull-request mode against the fake GitHub, with a
	// cache directory of its own.
	lines := "@@ -1,40 +1,40 @@\n" + strings.Repeat("+x\n", 39) + "+x"
	step := newActionStep(t, r.Dir, []fakegithub.File{
		{Filename: "app/deploy.yaml", Status: "modified", Patch: lines},
		{Filename: "app/cm.yaml", Status: "modified", Patch: lines},
	})
	step.srv.Tokens[plantedTokens["INPUT_TOKEN"]] = fakegithub.Write
	for k, v := range plantedTokens {
		step.env[k] = v
	}
	for k, v := range map[string]string{"INPUT_BASE-REF": base, "INPUT_REFERENCE": "ref", "INPUT_RULES": "rules/leaky.yaml",
		"INPUT_CHECKS": "catalog", "INPUT_CACHE-DIR": actionCache} {
		step.env[k] = v
	}
	actRun, act := runStepBounded(step)
	// The one line that carries a token on purpose: the runner masks it
	// in the job's log from then on.
	first, rest, _ := strings.Cut(actRun.stdout, "\n")
	if first != "::add-mask::"+plantedTokens["INPUT_TOKEN"] {
		t.Errorf("the action's first line is %q, not the token's mask", first)
	}
	everything["action stdout"] = rest
	everything["action stderr"] = actRun.stderr
	everything["job summary"] = act.summary
	everything["step outputs"] = act.outputs
	everything["requests to GitHub"] = act.bodies()
	for name, text := range snapshot(t, cache) {
		everything["check cache "+name] = text
	}
	for name, text := range snapshot(t, xdg) {
		everything["default cache "+name] = text
	}
	for name, text := range snapshot(t, actionCache) {
		everything["action cache "+name] = text
	}
	for name, text := range snapshot(t, r.Dir) {
		if before[name] != text {
			everything["workspace "+name] = text
		}
	}

	for _, name := range sortedNames(everything) {
		if l := tokenLeaks(everything[name]); len(l) > 0 {
			t.Errorf("%s leaks %q:\n%.3000s", name, l, everything[name])
		}
	}

	// The sinks did print, send and write the values, redacted: the test
	// looked at real output.
	if len(act.requests) == 0 || act.summary == "" {
		t.Errorf("the action sent or wrote nothing:\n%s\n%s", actRun.stdout, actRun.stderr)
	}
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"check's report", check.stdout, []string{"[schema/enum]", "***"}},
		{"render", render.stdout, []string{`imagePullPolicy: "***"`, `notes: "deploy key <redacted>"`, "AUTHORIZATION: basic <redacted>",
			"https://bot:<redacted>@git.example.com/r.git", "-----BEGIN RSA PRIVATE KEY-----<redacted>-----END RSA PRIVATE KEY-----"}},
		{"compare", compare.stdout, []string{"***"}},
		{"checks eval", evalRun.stdout, []string{"metadata ", "***"}},
		{"the JSON report", everything["file r.json"], []string{"***"}},
		{"the requests to GitHub", act.bodies(), []string{"POST /repos/acme/shop/pulls/7/comments", "POST /repos/acme/shop/issues/7/comments", "***"}},
		{"the job summary", act.summary, []string{"***"}},
		{"the cache", strings.Join(mapValues(snapshot(t, cache)), ""), []string{"PLUMB"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s lacks %q:\n%.4000s", c.name, w, c.text)
			}
		}
	}
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, n := range sortedNames(m) {
		out = append(out, m[n])
	}
	return out
}
