package rules

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/golden"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/reference"
)

// withBuiltIns loads the embedded rules plus user rules.
func withBuiltIns(t testing.TB, user string) *Set {
	t.Helper()
	srcs, err := BuiltInSources(reference.Rules)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		srcs = append(srcs, Source{Name: "site.yaml", Data: []byte(user)})
	}
	set := Load(srcs, manifest.Limits{})
	for _, p := range set.Problems {
		t.Fatalf("problem: %v", p)
	}
	return set
}

const twoObjects = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - {name: web, image: "shop/web:1.2"}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: fast
`

// D12: all three phases exist (Ironic has main only).
//
// The early phase runs on source documents: no node, inventory[source]
// only; its plugin data reaches every object rendered from the document and
// its fail stops that object's later rules.
func TestEarlyPhase(t *testing.T) {
	set := loadRules(t, `
- uuid: team-from-path
  phase: early
  conditions: [{op: matches, args: {value: "{inventory[source][file]}", regex: "apps/.*"}}]
  actions: [{op: set-plugin-data, args: {path: team, value: "owners of {inventory[source][file]}"}}]
- uuid: no-configmaps
  phase: early
  conditions: [{op: eq, args: {values: ["{inventory[source][kind]}", ConfigMap]}}]
  actions: [{op: fail, args: {msg: "ConfigMap {inventory[source][name]} in document {inventory[source][document]}", path: data.mode}}]
- uuid: later
  phase: preprocess
  actions: [{op: set-plugin-data, args: {path: later, value: true}}]
`)
	tg := target(t, "apps", twoObjects)
	run := runAll(t, set, Options{}, tg)
	fs := run.Findings()
	if len(fs) != 1 || fs[0].Message != "ConfigMap settings in document 1" || fs[0].Location.Line != 18 ||
		fs[0].Object.Kind != "ConfigMap" || fs[0].Object.Target != "" {
		t.Fatalf("findings:\n%s", messages(fs))
	}
	web, cm := run.objOrder[0], run.objOrder[1]
	if web.pluginData["team"] != "owners of apps/objects.yaml" || web.pluginData["later"] != true {
		t.Errorf("web plugin data %v", web.pluginData)
	}
	if cm.pluginData["team"] != "owners of apps/objects.yaml" || cm.pluginData["later"] != nil || !cm.stopped {
		t.Errorf("configmap %v stopped %v", cm.pluginData, cm.stopped)
	}
	// Early rules see no node: not even through a loop item.
	if got := problems("- phase: early\n  actions: [{op: log, args: {msg: '{item}'}, loop: ['{node.kind}']}]\n"); len(got) != 0 {
		// a literal loop item is data, not a field: allowed
		t.Errorf("%v", got)
	}
}

// Preprocess changes what the analyzers see: the object is replaced by a
// changed copy (identity re-read, YAML node dropped, provenance of the
// changed field at the rule's action, name in the source kept); the
// original and any object sharing its content stay as they were.
func TestPreprocessReplacesChangedObjects(t *testing.T) {
	set := loadRules(t, `
- uuid: rename
  phase: preprocess
  conditions:
    - {op: eq, args: {values: ["{node.kind}", Deployment]}}
    - {op: eq, args: {values: ["{inventory[target][name]}", prod]}}
  actions:
    - {op: set-attribute, args: {path: metadata.name, value: "{node.metadata.name}-prod"}}
    - {op: set-attribute, args: {path: /spec/replicas, value: 5}}
`)
	prod := target(t, "prod", twoObjects)
	// A second target whose objects share content with prod's (kustomize
	// reuses a base's objects).
	dev := &render.Target{Name: "dev", Kind: render.KindPlain}
	for _, o := range prod.Objects {
		c := *o
		c.ID.Target = "dev"
		dev.Objects = append(dev.Objects, &c)
	}
	tpl := &render.Template{Object: prod.Objects[0], Objects: []*manifest.Object{prod.Objects[0]}}
	prod.Templates = []*render.Template{tpl}
	orig := prod.Objects[0]
	run := runAll(t, set, Options{}, prod, dev)
	changed := prod.Objects[0]
	if changed == orig || changed.ID.Name != "web-prod" || changed.Node != nil || changed.Doc != orig.Doc || tpl.Objects[0] != changed || tpl.Object != changed {
		t.Fatalf("not replaced: %+v", changed.ID)
	}
	if v, _ := changed.Get(manifest.MustParsePath("spec.replicas")); v != int64(5) {
		t.Errorf("replicas %v", v)
	}
	// The rule renamed it; its name in the source stays what the file says
	// (checks that compare environments read it).
	if changed.WrittenName() != "web" {
		t.Errorf("written name after a rule renamed the object: %q, want web", changed.WrittenName())
	}
	if v, _ := orig.Get(manifest.MustParsePath("spec.replicas")); v != int64(2) || orig.ID.Name != "web" {
		t.Errorf("the original changed: %v %v", v, orig.ID)
	}
	if dev.Objects[0].ID.Name != "web" || dev.Objects[0].Content["spec"].(map[string]any)["replicas"] != int64(2) {
		t.Errorf("an object sharing the content changed")
	}
	if prod.Objects[1] == orig || prod.Objects[1].ID.Kind != "ConfigMap" {
		t.Error("unchanged objects must stay as they are")
	}
	loc, exact := changed.Locate(manifest.MustParsePath("spec.replicas"))
	if !exact || loc.File != "rules.yaml" || loc.Line != 9 {
		t.Errorf("provenance of a rule-set field: %v %v", loc, exact)
	}
	if loc, _ := changed.Locate(manifest.MustParsePath("spec.template")); loc.File != "prod/objects.yaml" || loc.Line != 8 {
		t.Errorf("provenance of a source field: %v", loc)
	}
	objs := entries(t, run.Section().Objects)
	if len(objs) != 1 || objs[0].Object.Name != "web-prod" || len(objs[0].Patch) != 2 ||
		objs[0].Patch[0] != (PatchOp{Op: "replace", Path: "/metadata/name", Value: "web-prod", Rule: "rename"}) {
		t.Errorf("section objects %+v", objs)
	}
}

// The main phase runs after the analyzers and sees their findings.
func TestMainPhaseSeesFindings(t *testing.T) {
	set := loadRules(t, `
- uuid: escalate
  conditions:
    - op: eq
      args: {values: ["{item[rule_id]}", check/replicas]}
      loop: "{inventory[findings]}"
  actions:
    - {op: fail, args: {msg: "{node.metadata.name} has {inventory[findings][0][level]} {inventory[findings][0][rule_id]}"}}
`)
	tg := target(t, "app", twoObjects)
	run := NewEngine(set, Options{}).NewRun()
	run.Early(docsOf(tg))
	run.Preprocess([]*render.Target{tg})
	run.Main([]*render.Target{tg}, []finding.Finding{{RuleID: "check/replicas", Level: finding.Warning, Object: tg.Objects[0].ID}})
	fs := run.Findings(PhaseMain)
	if len(fs) != 1 || fs[0].Message != "web has warning check/replicas" {
		t.Errorf("findings:\n%s", messages(fs))
	}
	if len(run.Findings(PhaseEarly, PhasePreprocess)) != 0 {
		t.Error("phase filter")
	}
}

// D13: scope (Inspector semantics, research §10.3): rules without scope apply to
// every object; a scoped rule only to objects of exactly that scope (the
// annotation, else object_scope); default_scope is given to user rules
// without scope, never to built-in rules.
func TestScope(t *testing.T) {
	// inspection.ci/scope (research §10.3's key) is honoured when plumb's
	// own key is absent; plumb's key wins when both are there.
	objs := `apiVersion: v1
kind: ConfigMap
metadata:
  name: scoped
  annotations: {plumb-ci.github.io/scope: payments}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: plain}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: inspection
  annotations: {inspection.ci/scope: search}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: both
  annotations: {inspection.ci/scope: search, plumb-ci.github.io/scope: payments}
`
	rules := `
- {uuid: global, actions: [{op: add-trait, args: {name: global}}]}
- {uuid: payments, scope: payments, actions: [{op: add-trait, args: {name: payments}}]}
- {uuid: search, scope: search, actions: [{op: add-trait, args: {name: search}}]}
`
	traits := func(opts Options, set *Set) map[string]string {
		tg := target(t, "app", objs)
		run := runAll(t, set, opts, tg)
		out := map[string]string{}
		for _, s := range run.objOrder {
			out[s.id.Name] = strings.Join(s.traits, ",")
		}
		return out
	}
	got := traits(Options{}, loadRules(t, rules))
	if got["scoped"] != "global,payments" || got["plain"] != "global" || got["inspection"] != "global,search" || got["both"] != "global,payments" {
		t.Errorf("no defaults: %v", got)
	}
	got = traits(Options{ObjectScope: "search"}, loadRules(t, rules))
	if got["scoped"] != "global,payments" || got["plain"] != "global,search" {
		t.Errorf("object_scope: %v", got)
	}
	got = traits(Options{DefaultScope: "payments"}, loadRules(t, rules))
	if got["scoped"] != "global,payments" || got["plain"] != "" {
		t.Errorf("default_scope: %v", got)
	}
	got = traits(Options{ScopeAnnotation: "team"}, loadRules(t, rules))
	if got["scoped"] != "global" {
		t.Errorf("scope annotation: %v", got)
	}
	// default_scope is never given to built-in rules.
	set := Load([]Source{{Name: "reference/rules/b.yaml", BuiltIn: true, Data: []byte("- {uuid: b, actions: [{op: add-trait, args: {name: builtin}}]}\n")}}, manifest.Limits{})
	got = traits(Options{DefaultScope: "payments"}, set)
	if got["plain"] != "builtin" {
		t.Errorf("built-in with default_scope: %v", got)
	}
	e := NewEngine(loadRules(t, rules), Options{DefaultScope: "x"})
	if l := e.List("", "x"); len(l) != 1 || l[0].UUID != "global" {
		t.Errorf("list --scope: %v", l)
	}
	// Early rules read the scope of the source document.
	early := loadRules(t, "- {uuid: e, phase: early, scope: payments, actions: [{op: set-plugin-data, args: {path: seen, value: true}}]}\n")
	tg := target(t, "app", objs)
	run := runAll(t, early, Options{}, tg)
	if run.objOrder[0].pluginData["seen"] != true || run.objOrder[1].pluginData["seen"] != nil {
		t.Error("early scope")
	}
}

// The checks' environment: plugin data of a target's objects after the
// preprocess phase, merged; conflicting values are reported.
func TestTargetEnv(t *testing.T) {
	set := loadRules(t, `
- phase: preprocess
  actions:
    - {op: set-plugin-data, args: {path: region, value: eu}}
    - {op: extend-plugin-data, args: {path: kinds, value: "{node.kind}"}}
    - {op: set-plugin-data, args: {path: owner.name, value: "{node.metadata.name}"}}
    - {op: set-plugin-data, args: {path: "owner.{item}", value: true}, loop: ["{node.kind}"]}
`)
	tg := target(t, "app", twoObjects)
	other := target(t, "other", "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
	run := runAll(t, set, Options{}, tg, other)
	env := run.TargetEnv()
	app := env["app"]
	if app["region"] != "eu" || compactJSON(app["kinds"]) != `["Deployment","ConfigMap"]` ||
		compactJSON(app["owner"]) != `{"ConfigMap":true,"Deployment":true,"name":"web"}` {
		t.Errorf("app env %v", compactJSON(app))
	}
	if env["other"]["region"] != "eu" || compactJSON(env["other"]["kinds"]) != `["Service"]` {
		t.Errorf("other env %v", env["other"])
	}
	fs := run.Findings()
	if len(fs) != 1 || fs[0].RuleID != RulePluginDataConflict || fs[0].Level != finding.Warning ||
		fs[0].Message != `plugin_data.owner.name is "settings" here but "web" on Deployment web [app], in the same render target app; the checks' env.owner.name keeps "web"` ||
		fs[0].Object.Name != "settings" {
		t.Errorf("conflict findings:\n%s", messages(fs))
	}
}

// Objects without Doc (kustomize output) find their source document by
// position, so early plugin data still reaches them.
func TestSourceByLocation(t *testing.T) {
	set := loadRules(t, "- {phase: early, actions: [{op: set-plugin-data, args: {path: doc, value: '{inventory[source][document]}'}}]}\n")
	tg := target(t, "app", twoObjects)
	for _, o := range tg.Objects {
		o.Doc = nil
	}
	docs := docsOf(target(t, "app", twoObjects))
	run := NewEngine(set, Options{}).NewRun()
	// The documents of the same file (parsed again: Doc pointers differ).
	run.Early(docs)
	run.Preprocess([]*render.Target{tg})
	if run.objOrder[0].pluginData["doc"] != int64(0) || run.objOrder[1].pluginData["doc"] != int64(1) {
		t.Errorf("%v %v", run.objOrder[0].pluginData, run.objOrder[1].pluginData)
	}
}

// The report section and the --explain text, as golden files.
func TestSectionAndExplanationGolden(t *testing.T) {
	set := withBuiltIns(t, `
- uuid: replicas-floor
  description: Production runs at least three replicas
  phase: preprocess
  conditions:
    - {op: eq, args: {values: ["{plugin_data[environment]}", prod]}}
    - {op: "!is-empty", args: {value: "{node.spec.replicas}"}}
    - {op: lt, args: {values: ["{node.spec.replicas}", 3]}}
  actions:
    - {op: log, args: {msg: "raised replicas of {node.metadata.name} from {node.spec.replicas} to 3", level: warning, path: spec.replicas}}
    - {op: set-attribute, args: {path: /spec/replicas, value: 3}}
- uuid: tag-config
  description: Classify configuration
  phase: main
  conditions:
    - {op: one-of, args: {value: "{node.kind}", values: [ConfigMap, Secret]}}
  actions:
    - {op: add-trait, args: {name: configuration}}
    - op: extend-plugin-data
      args: {path: config, value: "{item}"}
      loop: ["{node.kind}", "{node.metadata.name}"]
`)
	tg := target(t, "apps/shop/overlays/prod", twoObjects+`---
apiVersion: v1
kind: Service
metadata: {name: web}
spec: {type: NodePort}
`)
	run := runAll(t, set, Options{Explain: true}, tg)
	b, err := json.MarshalIndent(run.Section(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/section.json", append(b, '\n'))
	// The report streams the section: the same bytes.
	var streamed bytes.Buffer
	if err := run.Section().StreamJSON(&streamed, "", "  "); err != nil {
		t.Fatal(err)
	}
	if streamed.String() != string(b) {
		t.Errorf("the streamed section differs from the marshalled one:\n%s", streamed.String())
	}
	var out bytes.Buffer
	if err := run.WriteExplanation(&out); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/explain.txt", out.Bytes())
	golden.Assert(t, "testdata/findings.txt", []byte(messages(run.Findings())))
}

func TestDescriptors(t *testing.T) {
	set := withBuiltIns(t, "- {uuid: w, actions: [{op: log, args: {msg: x, level: warning}}]}\n")
	ds := NewEngine(set, Options{}).Descriptors()
	byID := map[string]finding.Rule{}
	for _, d := range ds {
		byID[d.ID] = d
	}
	if byID["rule/plumb-private-key"].Level != finding.Error || byID["rule/w"].Level != finding.Warning ||
		byID["rule/plumb-public-service"].Level != finding.Note || byID[RuleInvalid].ID == "" || byID[RulePluginDataConflict].ID == "" {
		t.Errorf("descriptors %+v", ds)
	}
	fs := ProblemFindings([]Problem{{Location: manifest.Location{File: "r.yaml", Line: 2}, Message: "bad"}, {Message: "old", Warning: true}})
	if !fs[0].InputError || fs[0].RuleID != RuleInvalid || fs[1].InputError || fs[1].Level != finding.Warning || fs[0].Fingerprint == "" {
		t.Errorf("%+v", fs)
	}
}

// A loop over a huge list is bounded: on the object that has it the rule
// is a rule error (an input error naming the rule's condition and the
// limit); other objects, and the other rules of the set, still run.
func TestHugeLoopIsBounded(t *testing.T) {
	set := loadRules(t, `
- uuid: each-item
  priority: 10
  conditions:
    - op: eq
      args: {values: ["{item}", 0]}
      loop: "{node.spec.items}"
  actions: [{op: add-trait, args: {name: has-zero}}]
- uuid: still-runs
  actions: [{op: add-trait, args: {name: seen}}]
`)
	huge := strings.Repeat("1, ", 20) + "0"
	tg := target(t, "app", "apiVersion: example.com/v1\nkind: List\nmetadata: {name: big}\nspec: {items: ["+huge+"]}\n---\n"+
		"apiVersion: example.com/v1\nkind: List\nmetadata: {name: small}\nspec: {items: [1, 0]}\n")
	run := runAll(t, set, Options{MaxLoopItems: 20}, tg)
	fs := run.Findings()
	if len(fs) != 1 || fs[0].InputError || fs[0].Level != finding.Error || fs[0].Object.Name != "big" || fs[0].Location.Line != 1 ||
		!strings.Contains(fs[0].Message, "conditions[0] (eq) at rules.yaml:5:7: loop {node.spec.items} has 21 items, over the limit of 20 iterations") {
		t.Fatalf("findings:\n%s", messages(fs))
	}
	big, small := run.objOrder[0], run.objOrder[1]
	if len(big.traits) != 0 || strings.Join(small.traits, ",") != "has-zero,seen" {
		t.Errorf("traits: big %v, small %v", big.traits, small.traits)
	}
	// The default limit.
	if NewEngine(set, Options{}).opts.MaxLoopItems != DefaultMaxLoopItems {
		t.Error("default limit")
	}
}

// The report section reads back from its JSON (plumb merge joins shard
// reports): action arguments keep their names and values.
func TestSectionJSONRoundTrip(t *testing.T) {
	set := loadRules(t, `
- uuid: tag
  actions:
    - {op: log, args: {msg: "<b>{node.metadata.name}</b>", level: warning}}
    - {op: set-plugin-data, args: {path: owner, value: {team: web, size: 3}}}
`)
	run := runAll(t, set, Options{}, target(t, "app", twoObjects))
	b, err := json.Marshal(run.Section())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"args":{"level":"warning","msg":"\u003cb\u003eweb\u003c/b\u003e","path":""}`) {
		t.Errorf("arguments are not an object with sorted keys:\n%s", b)
	}
	var back Section
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	args := entries(t, back.Objects)[0].Rules[0].Actions[1].Args
	if v, ok := args.Get("value"); !ok || compactJSON(v) != `{"size":3,"team":"web"}` {
		t.Errorf("value %v %v", v, ok)
	}
	again, _ := json.Marshal(&back)
	if string(again) != string(b) {
		t.Errorf("not the same after a round trip:\n%s\n%s", b, again)
	}
}
