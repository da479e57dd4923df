package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRulesList(t *testing.T) {
	code, out, errOut := plumb(t, "rules", "list", "--root", ".", "--rules", "testdata/rules/site.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"UUID                            PHASE       PRIORITY  DESCRIPTION\n",
		"plumb-private-key               early       10000     A private key is committed in the repository\n",
		"tier                            preprocess  100\n",
		"pin-replicas                    preprocess  0         Staging runs one replica\n",
		"secret-rule                     main        0         Credentials\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = plumb(t, "rules", "list", "--phase", "early")
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "plumb-private-key") {
		t.Errorf("--phase early:\n%s", out)
	}
	_, out, _ = plumb(t, "rules", "list", "--root", ".", "--long", "--rules", "testdata/rules/site.yaml", "--phase", "main")
	if !strings.Contains(out, "uuid: secret-rule\n") || !strings.Contains(out, "sensitive: true\nbuilt_in: false\nsource: testdata/rules/site.yaml:14:3\nconditions: null\nactions: null\n") ||
		strings.Contains(out, "pa55w0rd") {
		t.Errorf("--long:\n%s", out)
	}
	// --scope lists the rules of exactly that scope (with default_scope
	// applied to user rules that set none).
	scoped := filepath.Join(t.TempDir(), "scoped.yaml")
	if err := os.WriteFile(scoped, []byte("- {uuid: pay, scope: payments, actions: [{op: add-trait, args: {name: p}}]}\n- {uuid: any, actions: [{op: add-trait, args: {name: a}}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, _ = plumb(t, "rules", "list", "--rules", scoped, "--scope", "payments")
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, "\npay ") {
		t.Errorf("--scope payments:\n%s", out)
	}
	if code, _, errOut := plumb(t, "rules", "list", "--phase", "late"); code != 2 || !strings.Contains(errOut, `invalid phase "late"`) {
		t.Errorf("bad --phase: exit %d %s", code, errOut)
	}
	// Invalid rules files are reported and make the command exit 2; the
	// valid rules are still listed.
	code, out, errOut = plumb(t, "rules", "list", "--root", ".", "--rules", "testdata/rules/invalid.yaml")
	if code != 2 || !strings.Contains(errOut, `plumb: testdata/rules/invalid.yaml:3:8: error: conditions[0]: unknown operator "ne": write "!eq" instead [rule/invalid]`) ||
		!strings.Contains(out, "plumb-private-key") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestRulesShow(t *testing.T) {
	code, out, _ := plumb(t, "rules", "show", "rule/plumb-environment-from-overlay")
	if code != 0 || !strings.HasPrefix(out, "uuid: plumb-environment-from-overlay\n") || !strings.Contains(out, "built_in: true\n") ||
		!strings.Contains(out, "  - args:\n      path: environment\n      value: '{inventory[target][basename]}'\n    op: set-plugin-data\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, out, _ = plumb(t, "rules", "show", "--root", ".", "secret-rule", "--rules", "testdata/rules/site.yaml")
	if code != 0 || !strings.Contains(out, "conditions: null\nactions: null\n") || strings.Contains(out, "pa55w0rd") {
		t.Errorf("sensitive show: exit %d:\n%s", code, out)
	}
	if code, _, errOut := plumb(t, "rules", "show", "nope"); code != 2 || !strings.Contains(errOut, `no inspection rule "nope"`) {
		t.Errorf("unknown rule: exit %d %s", code, errOut)
	}
}

func TestRulesLint(t *testing.T) {
	code, out, _ := plumb(t, "rules", "lint", "testdata/rules/site.yaml")
	if code != 0 || out != "3 valid rule(s) in 1 file argument(s), 0 problem(s)\n" {
		t.Errorf("exit %d:\n%s", code, out)
	}
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.yaml")
	if err := os.WriteFile(bad, []byte("- uuid: plumb-private-key\n  actions: [{op: log, args: [hi]}]\n- {priority: -1, actions: [{op: fail, args: {msg: x}}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = plumb(t, "rules", "lint", bad, "testdata/rules/missing.yaml")
	for _, want := range []string{
		`bad.yaml:1:3: error: uuid "plumb-private-key" belongs to a built-in rule; built-in rules cannot be replaced or overridden: choose another uuid [rule/invalid]`,
		"bad.yaml:2:23: warning: actions[0] (log): list-form args are deprecated (as in Ironic); write a mapping",
		"bad.yaml:3:4: error: priority -1 is out of range",
		"testdata/rules/missing.yaml: error: cannot read the rules file: no such file or directory",
		"0 valid rule(s) in 2 file argument(s), 4 problem(s)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lint lacks %q:\n%s", want, out)
		}
	}
	if code != 2 {
		t.Errorf("exit %d", code)
	}
	if code, _, _ := plumb(t, "rules", "lint"); code != 2 {
		t.Errorf("no files: exit %d", code)
	}
}

// plumb render prints the objects after the rules changed them.
func TestRenderAppliesRules(t *testing.T) {
	code, out, errOut := plumb(t, "render", "--root", ".", "--rules", "testdata/rules/site.yaml", "testdata/rules/app")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "# target: testdata/rules/app\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    tier: staging\n  name: web\nspec:\n  replicas: 1\n" +
		"  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n" +
		"    spec:\n      containers:\n        - image: registry.example.com/web:1.4.2\n          name: web\n"
	if out != want {
		t.Errorf("render:\n%s\nwant:\n%s", out, want)
	}
	// Without rules the author's text (and comment) is printed as is.
	_, out, _ = plumb(t, "render", "--root", ".", "testdata/rules/app")
	if !strings.Contains(out, "name: web # the web tier\nspec:\n  replicas: 3\n") {
		t.Errorf("render without rules:\n%s", out)
	}
}

func TestCheckExplainAndSection(t *testing.T) {
	// The default catalog's findings on the Deployment's container are not
	// this test's subject.
	code, out, errOut := plumb(t, "check", "--root", ".", "--rules", "testdata/rules/site.yaml", "--explain", "--format", "json", "--fail-on", "never", "testdata/rules/app")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Deployment web [testdata/rules/app] (testdata/rules/app/deploy.yaml:1:1, scope \"\")\n",
		"  [MATCH] rule pin-replicas \"Staging runs one replica\" (preprocess, priority 0, testdata/rules/site.yaml:1:3)\n",
		"    actions[1] set-attribute path=\"/metadata/labels/tier\" value=\"staging\"\n",
		"  [MATCH] rule secret-rule \"Credentials\" (main, priority 0, testdata/rules/site.yaml:14:3)\n    (sensitive rule: conditions and actions are not shown)\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("explanation lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out+errOut, "pa55w0rd") {
		t.Error("a sensitive rule's argument leaked")
	}
	var rep struct {
		Section struct {
			Objects []struct {
				Rules []struct {
					UUID    string           `json:"uuid"`
					Actions []map[string]any `json:"actions"`
				} `json:"rules"`
				PluginData map[string]any `json:"plugin_data"`
			} `json:"objects"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	objs := rep.Section.Objects
	// The built-in image rule, the site's two preprocess rules, then the
	// sensitive main-phase rule, whose actions are withheld.
	if len(objs) != 1 || len(objs[0].Rules) != 4 || objs[0].Rules[0].UUID != "plumb-images-pod-template" ||
		objs[0].Rules[3].UUID != "secret-rule" || objs[0].Rules[3].Actions != nil ||
		objs[0].PluginData["tier"] != "staging" {
		t.Errorf("section %+v", objs)
	}
}

func TestCheckBadRulesExitTwo(t *testing.T) {
	code, out, errOut := plumb(t, "check", "--root", ".", "--rules", "testdata/rules/invalid.yaml", "testdata/rules/app")
	want := `testdata/rules/invalid.yaml:3:8: error: conditions[0]: unknown operator "ne": write "!eq" instead [rule/invalid]`
	if code != 2 || !strings.Contains(out, want) || strings.Contains(errOut, want) {
		t.Errorf("exit %d, want 2 and the problem once, in the report\n%s\n%s", code, out, errOut)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "plumb.yaml")
	if err := os.WriteFile(cfg, []byte("rules:\n  mask_secrets: sometimes\n  unknown: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = plumb(t, "check", "--root", ".", "--config", cfg, "testdata/rules/app")
	if code != 2 || !strings.Contains(errOut, `plumb.yaml:3:3: unknown key "unknown" in rules (known keys: default_scope, files, mask_keys, mask_secrets, object_scope, scope_annotation)`) {
		t.Errorf("exit %d %s", code, errOut)
	}
	if err := os.WriteFile(cfg, []byte("rules:\n  mask_secrets: sometimes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = plumb(t, "check", "--root", ".", "--config", cfg, "testdata/rules/app")
	if code != 2 || !strings.Contains(errOut, `rules.mask_secrets "sometimes": want always, never or sensitive`) {
		t.Errorf("exit %d %s", code, errOut)
	}
}

// Bad rules input: each case exits 2 with a message at file:line:col (a
// rule failing on an object's data is a finding, exit 1), the other rules
// (in the same file, when it parses, and in another file) still run, and
// the manifests are still checked.
func TestCheckBadRulesInput(t *testing.T) {
	const good = "- {uuid: other-file, actions: [{op: log, args: {msg: other file ran, level: warning}}]}\n"
	const sameFile = "- {uuid: same-file, actions: [{op: log, args: {msg: same file ran, level: warning}}]}\n"
	huge := strings.Repeat("1, ", 10_000) + "0"
	cases := []struct {
		name, rules string
		// manifest replaces the default ConfigMap.
		manifest string
		want     string
		sameFile bool
	}{
		{"malformed YAML", "- uuid: broken\n  actions: [{op: log, args: {msg: x}\n", "",
			"bad.yaml:2:3: error: YAML syntax error: did not find expected ',' or '}' [rule/invalid]", false},
		{"unknown op", sameFile + "- uuid: bad\n  conditions: [{op: bogus, args: {value: 1}}]\n  actions: [{op: log, args: {msg: x}}]\n", "",
			`bad.yaml:3:17: error: conditions[0]: unknown operator "bogus" (operators: contains, eq, gt, in-net, is-empty, is-false, is-none, is-true, lt, matches, one-of) [rule/invalid]`, true},
		{"bad argument shape", sameFile + "- uuid: bad\n  conditions: [{op: eq, args: {values: 3}}]\n  actions: [{op: log, args: {msg: x}}]\n", "",
			"bad.yaml:3:32: error: conditions[0] (eq): argument values: must be a list, found number 3 [rule/invalid]", true},
		{"out-of-range priority", sameFile + "- uuid: bad\n  priority: 10000\n  actions: [{op: log, args: {msg: x}}]\n", "",
			"bad.yaml:3:3: error: priority 10000 is out of range: user rules use 0 to 9999 (below 0 and above 9999 are reserved for built-in rules) [rule/invalid]", true},
		{"built-in uuid reuse", sameFile + "- uuid: plumb-private-key\n  actions: [{op: log, args: {msg: x}}]\n", "",
			`bad.yaml:2:3: error: uuid "plumb-private-key" belongs to a built-in rule; built-in rules cannot be replaced or overridden: choose another uuid [rule/invalid]`, true},
		{"bad regex", sameFile + "- uuid: bad\n  conditions: [{op: matches, args: {value: x, regex: 'a(b'}}]\n  actions: [{op: log, args: {msg: x}}]\n", "",
			"bad.yaml:3:47: error: conditions[0] (matches): argument regex: invalid regular expression \"a(b\" (RE2 syntax): missing closing ): `a(b` [rule/invalid]", true},
		// The loop is bounded at run time: the rule error stops the rules
		// on the object with the huge list only. It is the object's data
		// the rule cannot handle, so it is an error finding (exit 1), not
		// an input error.
		{"huge loop", sameFile + "- uuid: huge\n  conditions: [{op: eq, args: {values: ['{item}', 0]}, loop: '{node.spec.items}'}]\n  actions: [{op: log, args: {msg: x}}]\n",
			"apiVersion: example.com/v1\nkind: List\nmetadata: {name: big}\nspec: {items: [" + huge + "]}\n---\napiVersion: example.com/v1\nkind: List\nmetadata: {name: small}\nspec: {items: [1]}\n",
			"app/objects.yaml:1:1: error: inspection rule huge could not be applied to List big [app]: conditions[0] (eq) at bad.yaml:3:16: loop {node.spec.items} has 10001 items, over the limit of 10000 iterations", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			manifest := c.manifest
			if manifest == "" {
				manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"
			}
			for name, data := range map[string]string{"bad.yaml": c.rules, "good.yaml": good, "app/objects.yaml": manifest} {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, out, errOut := plumb(t, "check", "--root", dir, "--no-default-checks", "--rules", filepath.Join(dir, "bad.yaml"),
				"--rules", filepath.Join(dir, "good.yaml"), filepath.Join(dir, "app"))
			// A rules file that does not load is plumb's input: exit 2. A
			// rule that fails on an object's data is a finding (exit 1).
			want := 2
			if strings.Contains(c.want, "could not be applied") {
				want = 1
			}
			if code != want || !strings.Contains(out, c.want) {
				t.Errorf("exit %d, want %d and %q in\n%s\n%s", code, want, c.want, out, errOut)
			}
			if !strings.Contains(out, "other file ran") {
				t.Errorf("the rule of the other file did not run:\n%s", out)
			}
			if c.sameFile && !strings.Contains(out, "same file ran") {
				t.Errorf("the valid rule of the same file did not run:\n%s", out)
			}
			if !strings.Contains(out, "app/objects.yaml") {
				t.Errorf("the manifests were not checked:\n%s", out)
			}
		})
	}
}
