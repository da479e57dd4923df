package rules

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/render"
)

// finishObjects are a render target's objects for the Finish tests: a
// Secret, whose value must never be printed, and objects the rules treat
// alike and apart.
const finishObjects = twoObjects + `---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {token: s3cr3t-value-42}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
data: {mode: slow}
`

// finishRules change content, plugin data and traits in both phases, copy
// the Secret's value where the report shows it, log and fail.
const finishRules = `
- uuid: pre-tag
  phase: preprocess
  actions:
    - {op: set-plugin-data, args: {path: team.name, value: shop}}
    - {op: extend-plugin-data, args: {path: seen, value: pre}}
- uuid: pre-replicas
  phase: preprocess
  conditions:
    - {op: eq, args: {values: ["{node.kind}", Deployment]}}
  actions:
    - {op: set-attribute, args: {path: /spec/replicas, value: 3}}
    - {op: log, args: {msg: "raised {node.metadata.name}", level: warning, path: spec.replicas}}
- uuid: main-config
  phase: main
  conditions:
    - {op: eq, args: {values: ["{node.kind}", ConfigMap]}}
    - {op: eq, args: {values: ["{node.metadata.name}", settings]}}
  actions:
    - {op: extend-plugin-data, args: {path: seen, value: main}}
    - {op: set-plugin-data, args: {path: team.name, value: platform}}
    - {op: add-trait, args: {name: configuration}}
- uuid: main-secret
  phase: main
  conditions:
    - {op: eq, args: {values: ["{node.kind}", Secret]}}
  actions:
    - {op: set-plugin-data, args: {path: copied, value: "{node.stringData[token]}"}}
    - {op: log, args: {msg: "token is {node.stringData[token]}"}}
- uuid: main-label
  phase: main
  conditions:
    - {op: eq, args: {values: ["{node.kind}", Deployment]}}
  actions:
    - {op: set-attribute, args: {path: /metadata/labels/checked, value: "yes"}}
    - {op: fail, args: {msg: "{node.metadata.name} stops here"}}
`

// TestFinishEqualsMainAndSection: Finish, which writes each object's entry
// as its rules end and drops the records, reports what Main and Section
// report from the records kept — whether the redactor is built before the
// main phase (plugin data set in preprocess) or only after it (the
// fallback) — and leaves the findings, traits and explanation as they
// were.
func TestFinishEqualsMainAndSection(t *testing.T) {
	withoutPreprocessData := strings.Replace(finishRules,
		"    - {op: set-plugin-data, args: {path: team.name, value: shop}}\n    - {op: extend-plugin-data, args: {path: seen, value: pre}}\n",
		"    - {op: add-trait, args: {name: pre}}\n", 1)
	withoutPreprocessData = strings.Replace(withoutPreprocessData,
		`    - {op: log, args: {msg: "raised {node.metadata.name}", level: warning, path: spec.replicas}}`+"\n", "", 1)
	for _, tc := range []struct {
		name    string
		rules   string
		settled bool
	}{
		{"redactor built in preprocess", finishRules, true},
		{"redactor built after main", withoutPreprocessData, false},
	} {
		for _, mask := range []MaskMode{MaskAlways, MaskNever} {
			t.Run(fmt.Sprintf("%s, mask %s", tc.name, mask), func(t *testing.T) {
				set := loadRules(t, tc.rules)
				opts := Options{Mask: mask, Explain: true}
				analyzers := func(tg *render.Target) []finding.Finding {
					return []finding.Finding{{RuleID: "check/x", Level: finding.Warning, Object: tg.Objects[1].ID}}
				}
				kept := NewEngine(set, opts).NewRun()
				tgKept := target(t, "apps/shop/overlays/prod", finishObjects)
				kept.Early(docsOf(tgKept))
				kept.Preprocess([]*render.Target{tgKept})
				kept.Main([]*render.Target{tgKept}, analyzers(tgKept))
				want := sectionJSON(t, kept.Section())

				run := NewEngine(set, opts).NewRun()
				tg := target(t, "apps/shop/overlays/prod", finishObjects)
				run.Early(docsOf(tg))
				run.Preprocess([]*render.Target{tg})
				if got := run.redactorSettled(); got != tc.settled {
					t.Fatalf("redactor settled before main: %v, want %v", got, tc.settled)
				}
				sec := run.Finish([]*render.Target{tg}, analyzers(tg))
				got := sectionJSON(t, sec)
				if got != want {
					t.Errorf("Finish's section:\n%s\nMain and Section's:\n%s", got, want)
				}
				if again := sectionJSON(t, run.Section()); again != got {
					t.Errorf("Section after Finish:\n%s", again)
				}
				if strings.Contains(got, "s3cr3t-value-42") {
					t.Errorf("the Secret's value is in the section:\n%s", got)
				}
				if !strings.Contains(got, `"platform"`) || !strings.Contains(got, `"configuration"`) {
					t.Errorf("the main rules' work is missing:\n%s", got)
				}
				if a, b := messages(run.Findings()), messages(kept.Findings()); a != b {
					t.Errorf("findings after Finish:\n%s\nwithout:\n%s", a, b)
				}
				if !reflect.DeepEqual(run.Traits(), kept.Traits()) {
					t.Errorf("traits %v, want %v", run.Traits(), kept.Traits())
				}
				var a, b strings.Builder
				if err := run.WriteExplanation(&a); err != nil {
					t.Fatal(err)
				}
				if err := kept.WriteExplanation(&b); err != nil {
					t.Fatal(err)
				}
				if a.String() != b.String() {
					t.Errorf("explanation after Finish:\n%s\nwithout:\n%s", a.String(), b.String())
				}
				for _, s := range run.objOrder {
					if s.applied != nil || s.pluginData != nil || s.content != nil || s.patch != nil {
						t.Errorf("%s keeps its records after Finish", s.id)
					}
				}
			})
		}
	}
}

func sectionJSON(t *testing.T, s *Section) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSealedRulesAreSharedAndCounted: once preprocess is over, the rules
// applied to each object are kept as their JSON, each distinct one once,
// and still counted as matches.
func TestSealedRulesAreSharedAndCounted(t *testing.T) {
	run := NewEngine(loadRules(t, finishRules), Options{}).NewRun()
	tg := target(t, "app", finishObjects)
	run.Early(docsOf(tg))
	run.Preprocess([]*render.Target{tg})
	web, settings, other := run.objOrder[0], run.objOrder[1], run.objOrder[3]
	if web.applied != nil || len(web.sealed) != 2 || len(settings.sealed) != 1 {
		t.Fatalf("sealed: web %d (%d records left), settings %d", len(web.sealed), len(web.applied), len(settings.sealed))
	}
	if &settings.sealed[0][0] != &other.sealed[0][0] || &web.sealed[0][0] != &settings.sealed[0][0] {
		t.Error("the pre-tag rule's JSON is not shared between the objects")
	}
	matched := map[string]int{}
	for _, r := range run.Section().Rules {
		matched[r.UUID] = r.Matched
	}
	if matched["pre-tag"] != 4 || matched["pre-replicas"] != 1 {
		t.Errorf("matched %v", matched)
	}
}

// TestSharedPluginDataIsCopiedOnWrite: objects with equal plugin data share
// one mapping after preprocess; a main rule writing to one object's plugin
// data changes no other object's.
func TestSharedPluginDataIsCopiedOnWrite(t *testing.T) {
	run := NewEngine(loadRules(t, finishRules), Options{}).NewRun()
	tg := target(t, "app", finishObjects)
	run.Early(docsOf(tg))
	run.Preprocess([]*render.Target{tg})
	settings, other := run.objOrder[1], run.objOrder[3]
	if reflect.ValueOf(settings.pluginData).Pointer() != reflect.ValueOf(other.pluginData).Pointer() || !settings.pluginShared {
		t.Fatal("equal plugin data are not shared")
	}
	run.Main([]*render.Target{tg}, nil)
	if got := compactJSON(settings.pluginData); got != `{"seen":["pre","main"],"team":{"name":"platform"}}` {
		t.Errorf("settings' plugin data %s", got)
	}
	if got := compactJSON(other.pluginData); got != `{"seen":["pre"],"team":{"name":"shop"}}` {
		t.Errorf("another object's plugin data changed with it: %s", got)
	}
}
