package rules

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/reference"
)

// Ironic test_load_rules_not_list, TestValidation and the other validation
// failures: every problem is reported with file:line:col, and invalid rules
// are left out. D16: argument errors are validation errors (Ironic: HTTP
// 500); plumb also checks literal values, regexes and paths here, where
// Ironic fails only at run time.
func TestValidationErrors(t *testing.T) {
	act := "actions: [{op: log, args: {msg: x}}]"
	cases := []struct {
		name, src string
		// at is where the problem is reported: file:line:column.
		at   string
		want []string
	}{
		{"not a list", "uuid: x\nactions: []\n", "rules.yaml:1:1", []string{"rules.yaml:1:1: error: a rules file holds a YAML list of rules, found mapping"}},
		{"rule not a mapping", "- just a string\n", "rules.yaml:1:3", []string{"rules.yaml:1:3: error: a rule must be a mapping"}},
		{"yaml syntax", "- actions: [\n", "rules.yaml:1:1", []string{"rules.yaml:", "error:"}},
		{"duplicate key", "- actions: []\n  actions: []\n", "rules.yaml:2:3", []string{"rules.yaml:2:3", `duplicate key "actions"`}},
		{"unknown rule key", "- " + act + "\n  built_in: true\n", "rules.yaml:2:3", []string{`rules.yaml:2:3: error: unknown key "built_in" in rule`}},
		{"uuid type", "- uuid: 12\n  " + act + "\n", "rules.yaml:1:3", []string{"rules.yaml:1:3: error: uuid must be a string, found number"}},
		{"uuid shape", "- uuid: 'a b'\n  " + act + "\n", "rules.yaml:1:3", []string{`uuid "a b" must be 1 to 64 letters`}},
		{"description type", "- description: [x]\n  " + act + "\n", "rules.yaml:1:3", []string{"description must be a string"}},
		{"description length", "- description: " + strings.Repeat("x", 256) + "\n  " + act + "\n", "rules.yaml:1:3", []string{"description is 256 characters long"}},
		{"priority negative", "- priority: -1\n  " + act + "\n", "rules.yaml:1:3", []string{"rules.yaml:1:3: error: priority -1 is out of range: user rules use 0 to 9999"}},
		{"priority too high", "- priority: 10000\n  " + act + "\n", "rules.yaml:1:3", []string{"priority 10000 is out of range"}},
		{"priority fraction", "- priority: 5000.50\n  " + act + "\n", "rules.yaml:1:3", []string{"priority must be a whole number, found 5000.5"}},
		{"phase invalid", "- phase: late\n  " + act + "\n", "rules.yaml:1:3", []string{`invalid phase "late": valid phases are early, preprocess, main`}},
		{"phase null", "- phase: null\n  " + act + "\n", "rules.yaml:1:3", []string{"invalid phase null"}},
		{"scope type", "- scope: 3\n  " + act + "\n", "rules.yaml:1:3", []string{"scope must be a string"}},
		{"scope length", "- scope: " + strings.Repeat("s", 256) + "\n  " + act + "\n", "rules.yaml:1:3", []string{"scope is 256 characters long"}},
		{"sensitive type", "- sensitive: 'yes'\n  " + act + "\n", "rules.yaml:1:3", []string{`sensitive must be true or false, found "yes"`}},
		{"conditions mapping", "- conditions: {op: eq}\n  " + act + "\n", "rules.yaml:1:3", []string{"conditions must be a list, found mapping"}},
		{"conditions null", "- conditions: null\n  " + act + "\n", "rules.yaml:1:3", []string{"conditions must be a list, found null"}},
		{"no actions", "- description: x\n", "rules.yaml:1:3", []string{"rules.yaml:1:3: error: the rule has no actions"}},
		{"empty actions", "- actions: []\n", "rules.yaml:1:3", []string{"actions is empty"}},
		{"actions mapping", "- actions: {op: log}\n", "rules.yaml:1:3", []string{"actions must be a list"}},
		{"condition not mapping", "- conditions: [eq]\n  " + act + "\n", "rules.yaml:1:16", []string{"conditions[0] must be a mapping"}},
		{"condition unknown key", "- conditions: [{op: eq, args: {values: []}, force_strings: true}]\n  " + act + "\n", "rules.yaml:1:45", []string{`unknown key "force_strings" in conditions[0]`, "go under args"}},
		{"condition no op", "- conditions: [{args: {}}]\n  " + act + "\n", "rules.yaml:1:16", []string{"conditions[0] has no op"}},
		{"condition op type", "- conditions: [{op: 3, args: {}}]\n  " + act + "\n", "rules.yaml:1:17", []string{"op must be a non-empty string"}},
		{"unknown operator", "- conditions: [{op: '!unknown', args: {}}]\n  " + act + "\n", "rules.yaml:1:17", []string{`unknown operator "unknown" (operators: contains, eq, gt`}},
		{"two inversion marks", "- conditions: [{op: '!!eq', args: {values: []}}]\n  " + act + "\n", "rules.yaml:1:17", []string{"more than one '!'"}},
		{"inversion not first", "- conditions: [{op: 'eq!', args: {values: []}}]\n  " + act + "\n", "rules.yaml:1:17", []string{"the inversion mark '!' must come first"}},
		{"multiple invalid", "- conditions: [{op: eq, args: {values: []}, loop: [1], multiple: some}]\n  " + act + "\n", "rules.yaml:1:56", []string{`multiple must be any, all, first or last, found "some"`}},
		{"no args", "- conditions: [{op: eq}]\n  " + act + "\n", "rules.yaml:1:16", []string{"conditions[0] (eq) has no args (arguments: values, force_strings (optional, default false))"}},
		{"args string", "- conditions: [{op: eq, args: x}]\n  " + act + "\n", "rules.yaml:1:25", []string{"args must be a mapping of argument names to values, found string"}},
		{"missing argument", "- conditions: [{op: in-net, args: {address: 1.2.3.4}}]\n  " + act + "\n", "rules.yaml:1:29", []string{"missing required argument(s) subnet"}},
		{"unexpected argument", "- conditions: [{op: eq, args: {values: [], strict: true}}]\n  " + act + "\n", "rules.yaml:1:44", []string{"rules.yaml:1:44", "unexpected argument(s) strict"}},
		{"too many list args", "- conditions: [{op: is-none, args: [1, 2]}]\n  " + act + "\n", "rules.yaml:1:30", []string{"2 arguments given, at most 1 accepted"}},
		{"values not a list", "- conditions: [{op: eq, args: [1, 1]}]\n  " + act + "\n", "rules.yaml:1:25", []string{"argument values: must be a list, found number 1"}},
		{"values mixed template", "- conditions: [{op: eq, args: {values: 'x{node.kind}'}}]\n  " + act + "\n", "rules.yaml:1:32", []string{"argument values must be a list"}},
		{"force_strings type", "- conditions: [{op: eq, args: {values: [], force_strings: 1}}]\n  " + act + "\n", "rules.yaml:1:44", []string{"argument force_strings: must be true or false"}},
		{"bad regex", "- conditions: [{op: matches, args: {value: x, regex: '[unclosed'}}]\n  " + act + "\n", "rules.yaml:1:47", []string{"invalid regular expression \"[unclosed\" (RE2 syntax): missing closing ]: `[unclosed`"}},
		{"look-around", "- conditions: [{op: contains, args: {value: x, regex: '(?=x)'}}]\n  " + act + "\n", "rules.yaml:1:48", []string{"invalid regular expression", "RE2"}},
		{"bad subnet", "- conditions: [{op: in-net, args: {address: 1.2.3.4, subnet: 10.0.0.0/33}}]\n  " + act + "\n", "rules.yaml:1:54", []string{`argument subnet: invalid subnet "10.0.0.0/33"`}},
		{"bad address", "- conditions: [{op: in-net, args: {address: localhost, subnet: 10.0.0.0/8}}]\n  " + act + "\n", "rules.yaml:1:36", []string{`argument address: invalid address "localhost"`}},
		{"bad template", "- conditions: [{op: eq, args: {values: ['{node.kind']}}]\n  " + act + "\n", "rules.yaml:1:32", []string{"unterminated field"}},
		{"unknown root", "- conditions: [{op: eq, args: {values: ['{nodes.kind}']}}]\n  " + act + "\n", "rules.yaml:1:32", []string{`unknown name "nodes"`}},
		{"format spec", "- conditions: [{op: eq, args: {values: ['{node.replicas:03d}']}}]\n  " + act + "\n", "rules.yaml:1:32", []string{"format specifications and conversions"}},
		{"single brace", "- actions: [{op: log, args: {msg: 'a } b'}}]\n", "rules.yaml:1:30", []string{"single '}'"}},
		{"item outside loop", "- conditions: [{op: eq, args: {values: ['{item}', 1]}}]\n  " + act + "\n", "rules.yaml:1:32", []string{"{item}: item is only defined inside a loop"}},
		{"loop string", "- conditions: [{op: eq, args: {values: []}, loop: 'a, b'}]\n  " + act + "\n", "rules.yaml:1:45", []string{`loop "a, b" must be a list, a mapping, or exactly one field`}},
		{"loop too long", "- conditions: [{op: eq, args: {values: []}, loop: [" + strings.Repeat("1, ", DefaultMaxLoopItems) + "1]}]\n  " + act + "\n", "rules.yaml:1:45", []string{"loop has 10001 items, over the limit of 10000 iterations"}},
		{"loop number", "- conditions: [{op: eq, args: {values: []}, loop: 3}]\n  " + act + "\n", "rules.yaml:1:45", []string{"loop must be a list, a mapping or a field, found number"}},
		{"ne", "- conditions: [{op: ne, args: {values: []}}]\n  " + act + "\n", "rules.yaml:1:17", []string{`unknown operator "ne": write "!eq" instead`}},
		{"unknown action", "- actions: [{op: noop, args: {}}]\n", "rules.yaml:1:14", []string{`unknown action "noop" (actions: add-trait`}},
		{"set-capability", "- actions: [{op: set-capability, args: {name: a, value: b}}]\n", "rules.yaml:1:14", []string{`action "set-capability" is not supported by plumb`}},
		{"port action", "- actions: [{op: set-port-attribute, args: {port_id: a, path: b, value: c}}]\n", "rules.yaml:1:14", []string{`"set-port-attribute" is not supported`}},
		{"api-call", "- actions: [{op: api-call, args: {url: 'http://x'}}]\n", "rules.yaml:1:14", []string{"plumb makes no network calls"}},
		{"action unknown key", "- actions: [{op: log, args: {msg: x}, unique: true}]\n", "rules.yaml:1:39", []string{`unknown key "unique" in actions[0]`}},
		{"log level", "- actions: [{op: log, args: {msg: x, level: loud}}]\n", "rules.yaml:1:38", []string{`invalid log level "loud": use debug, info, warning, error, critical`}},
		{"fail path", "- actions: [{op: fail, args: {msg: x, path: 'spec..x'}}]\n", "rules.yaml:1:39", []string{"argument path:", "empty key"}},
		{"set-attribute empty path", "- actions: [{op: set-attribute, args: {path: '', value: 1}}]\n", "rules.yaml:1:40", []string{"argument path: must not be empty"}},
		{"set-attribute root", "- actions: [{op: set-attribute, args: {path: '/', value: 1}}]\n", "rules.yaml:1:40", []string{"addresses the whole object"}},
		{"plugin path", "- actions: [{op: set-plugin-data, args: {path: 'a..b', value: 1}}]\n", "rules.yaml:1:42", []string{`path "a..b" has an empty segment`}},
		{"unique type", "- actions: [{op: extend-attribute, args: {path: a, value: 1, unique: 'yes'}}]\n", "rules.yaml:1:62", []string{"argument unique: must be true or false"}},
		{"early node field", "- phase: early\n  conditions: [{op: eq, args: {values: ['{node.kind}', x]}}]\n  " + act + "\n", "rules.yaml:2:32", []string{"early rules run on source documents before rendering and have no node"}},
		{"early node action", "- phase: early\n  actions: [{op: set-attribute, args: {path: a, value: 1}}]\n", "rules.yaml:2:14", []string{"set-attribute changes the object, which early rules do not have"}},
		{"early trait", "- phase: early\n  actions: [{op: add-trait, args: {name: x}}]\n", "rules.yaml:2:14", []string{"add-trait changes the object"}},
		{"duplicate uuid", "- uuid: a\n  " + act + "\n- uuid: a\n  " + act + "\n", "rules.yaml:3:3", []string{`rules.yaml:3:3: error: uuid "a" is already used by the rule at rules.yaml:1:3`}},
		{"early target", "- phase: early\n  actions: [{op: log, args: {msg: '{inventory[target][name]}'}}]\n", "rules.yaml:2:30", []string{"{inventory[target][name]}: inventory[target] is not available to early rules (only to preprocess and main rules)"}},
		{"early loop over index", "- phase: early\n  actions: [{op: log, args: {msg: x}, loop: '{inventory[index][ConfigMap]}'}]\n", "rules.yaml:2:39", []string{"loop: {inventory[index][ConfigMap]}: inventory[index] is not available to early rules"}},
		{"preprocess findings", "- phase: preprocess\n  conditions: [{op: is-empty, args: {value: '{inventory[findings]}'}}]\n  " + act + "\n", "rules.yaml:2:38", []string{"inventory[findings] is not available to preprocess rules (only to main rules)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := problems(c.src)
			var at []string
			for _, g := range got {
				if strings.HasPrefix(g, c.at+": error: ") {
					at = append(at, g)
				}
			}
			if !hasProblem(at, c.want...) {
				t.Errorf("problems %q lack %q at %s", got, c.want, c.at)
			}
			set := Load([]Source{{Name: "rules.yaml", Data: []byte(c.src)}}, manifest.Limits{})
			if set.Errors() == 0 {
				t.Error("no error counted")
			}
		})
	}
}

// Several problems in one file are all reported, and valid rules load.
func TestValidationReportsEveryProblem(t *testing.T) {
	set := Load([]Source{{Name: "r.yaml", Data: []byte(`
- uuid: ok
  actions: [{op: log, args: {msg: fine}}]
- priority: -5
  conditions: [{op: ne, args: {values: []}}]
  actions: [{op: noop, args: {}}]
- uuid: also-ok
  actions: [{op: log, args: {msg: fine}}]
`)}}, manifest.Limits{})
	if len(set.Rules) != 2 || set.Rules[0].UUID != "ok" || set.Rules[1].UUID != "also-ok" {
		t.Errorf("rules %v", set.Rules)
	}
	if set.Errors() != 3 {
		t.Errorf("problems %v", set.Problems)
	}
	want := []int{4, 5, 6}
	for i, p := range set.Problems {
		if p.Location.Line != want[i] {
			t.Errorf("problem %d at line %d: %v", i, p.Location.Line, p)
		}
	}
}

// Warnings do not stop a rule from loading.
func TestValidationWarnings(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// An inventory entry plumb never fills (a typo) would only show at
		// run time, as text used as written.
		{"- actions: [{op: log, args: {msg: '{inventory[sorce][file]}'}}]\n",
			`r.yaml:1:30: warning: actions[0] (log): argument msg: {inventory[sorce][file]}: the inventory has no entry "sorce" (entries: source, target, index, findings, env, rendered), so the field never resolves`},
		// Arguments that Ironic formats only inside loops are used as
		// written outside them.
		{"- actions: [{op: set-plugin-data, args: {path: 'owners.{node.metadata.name}', value: x}}]\n",
			"r.yaml:1:42: warning: actions[0] (set-plugin-data): argument path is not interpolated outside a loop (as in Ironic), so {node.metadata.name} is used as written"},
		{"- actions: [{op: add-trait, args: {name: '{plugin_data[tier]}'}}]\n",
			"r.yaml:1:36: warning: actions[0] (add-trait): argument name is not interpolated outside a loop"},
		{"- conditions: [{op: matches, args: {value: x, regex: 'a{node.kind}'}}]\n  actions: [{op: log, args: {msg: x}}]\n",
			"r.yaml:1:47: warning: conditions[0] (matches): argument regex is not interpolated outside a loop"},
	} {
		set := Load([]Source{{Name: "r.yaml", Data: []byte(c.src)}}, manifest.Limits{})
		if len(set.Rules) != 1 || set.Errors() != 0 || len(set.Problems) != 1 || !strings.HasPrefix(set.Problems[0].Error(), c.want) {
			t.Errorf("%s: rules %d, problems %v\nwant %s", c.src, len(set.Rules), set.Problems, c.want)
		}
	}
	// In a loop every argument is interpolated, and a regex's {2} is no
	// field: no warning.
	quiet := Load([]Source{{Name: "r.yaml", Data: []byte(`
- conditions: [{op: matches, args: {value: x, regex: 'a{2}'}}]
  actions: [{op: set-plugin-data, args: {path: 'seen.{item}', value: x}, loop: [a, b]}]
`)}}, manifest.Limits{})
	if len(quiet.Problems) != 0 {
		t.Errorf("problems %v", quiet.Problems)
	}

	set := Load([]Source{{Name: "r.yaml", Data: []byte(`
- conditions: [{op: eq, args: {values: [1, 1]}, multiple: all}]
  actions: [{op: log, args: [hello]}]
`)}}, manifest.Limits{})
	if len(set.Rules) != 1 || set.Errors() != 0 || len(set.Problems) != 2 {
		t.Fatalf("rules %d problems %v", len(set.Rules), set.Problems)
	}
	if !strings.Contains(set.Problems[0].Error(), "r.yaml:2:49: warning: conditions[0]: multiple has no effect without loop") {
		t.Errorf("%v", set.Problems[0])
	}
}

// D14: built-in rules may use priorities below 0 and above 9999; user rules
// may not reuse a built-in rule's uuid (built-ins cannot be overridden).
func TestBuiltInPrioritiesAndUUIDs(t *testing.T) {
	builtIn := Source{Name: "reference/rules/b.yaml", BuiltIn: true, Data: []byte(`
- uuid: low
  priority: -100
  actions: [{op: log, args: {msg: a}}]
- uuid: high
  priority: 20000
  actions: [{op: log, args: {msg: b}}]
`)}
	user := Source{Name: "site.yaml", Data: []byte("- uuid: high\n  actions: [{op: log, args: {msg: mine}}]\n")}
	set := Load([]Source{builtIn, user}, manifest.Limits{})
	if len(set.Rules) != 2 {
		t.Fatalf("rules %d, problems %v", len(set.Rules), set.Problems)
	}
	if len(set.Problems) != 1 || !strings.Contains(set.Problems[0].Error(),
		`site.yaml:1:3: error: uuid "high" belongs to a built-in rule; built-in rules cannot be replaced or overridden`) {
		t.Errorf("problems %v", set.Problems)
	}
	// The order of sources does not matter: built-ins load first.
	set = Load([]Source{user, builtIn}, manifest.Limits{})
	if len(set.Rules) != 2 || set.Rules[0].UUID != "low" || !set.Rules[0].BuiltIn {
		t.Errorf("rules %v", set.Rules)
	}
}

// The embedded built-in rules load without a single problem.
func TestBuiltInRulesAreValid(t *testing.T) {
	srcs, err := BuiltInSources(reference.Rules)
	if err != nil || len(srcs) == 0 {
		t.Fatalf("%d sources, %v", len(srcs), err)
	}
	set := Load(srcs, manifest.Limits{MaxFileBytes: 10})
	if len(set.Problems) != 0 {
		t.Fatalf("problems: %v", set.Problems)
	}
	for _, r := range set.Rules {
		if !r.BuiltIn || r.SyntheticUUID || r.Description == "" || !strings.HasPrefix(r.Source.File, "reference/rules/") {
			t.Errorf("built-in rule %+v", r)
		}
	}
}

// Ironic §1.3 ordering: priority descending; at equal priority user rules
// (in load order) before built-in rules (in file order). DB A(0), B(100),
// C(0) + built-in X(0), Y(20000) run as Y, B, A, C, X.
func TestRunningOrder(t *testing.T) {
	builtIn := Source{Name: "reference/rules/b.yaml", BuiltIn: true, Data: []byte(`
- {uuid: X, priority: 0, actions: [{op: log, args: {msg: x}}]}
- {uuid: Y, priority: 20000, actions: [{op: log, args: {msg: y}}]}
`)}
	first := Source{Name: "b-first.yaml", Data: []byte("- {uuid: A, priority: 0, actions: [{op: log, args: {msg: a}}]}\n- {uuid: B, priority: 100, actions: [{op: log, args: {msg: b}}]}\n")}
	second := Source{Name: "a-second.yaml", Data: []byte("- {uuid: C, priority: 0, actions: [{op: log, args: {msg: c}}]}\n- {uuid: E, phase: early, actions: [{op: log, args: {msg: e}}]}\n")}
	e := NewEngine(Load([]Source{first, second, builtIn}, manifest.Limits{}), Options{})
	var got []string
	for _, r := range e.Rules(PhaseMain) {
		got = append(got, r.UUID)
	}
	if strings.Join(got, ",") != "Y,B,A,C,X" {
		t.Errorf("order %v", got)
	}
	// D19: listing filters by phase (and scope).
	if l := e.List(PhaseEarly, ""); len(l) != 1 || l[0].UUID != "E" {
		t.Errorf("early list %v", l)
	}
	// Rules run in that order: each sees what earlier ones did.
	s := runOn(t, `
- {uuid: second, priority: 1, conditions: [{op: eq, args: {values: ["{plugin_data[step]}", 1]}}], actions: [{op: set-plugin-data, args: {path: step, value: 2}}]}
- {uuid: first, priority: 2, actions: [{op: set-plugin-data, args: {path: step, value: 1}}]}
`, Options{}, ironicNode(), nil, nil)
	if s.pluginData["step"] != int64(2) {
		t.Errorf("plugin data %v", s.pluginData)
	}
}
