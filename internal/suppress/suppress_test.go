package suppress

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

const objects = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations:
    plumb.dev/ignore: "check/latest-tag, check/no-limits,check/typo"
    plumb.dev/ignore-reason: base image pinned by digest elsewhere
spec: {}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: old
  namespace: shop
  annotations:
    plumb.dev/ignore: check/*
    plumb.dev/ignore-until: "2025-03-31"
spec: {}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: bad
  annotations:
    plumb.dev/ignore: check/a
    plumb.dev/ignore-until: end of march
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: empty
  annotations:
    plumb.dev/ignore: " , "
`

func targets(t *testing.T) ([]*render.Target, map[string]*manifest.Object) {
	t.Helper()
	docs, problems := manifest.Parse("apps/web/all.yaml", []byte(objects), manifest.Limits{})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tg := &render.Target{Name: "apps/web", Kind: render.KindPlain}
	byName := map[string]*manifest.Object{}
	for _, d := range docs {
		objs, _ := d.Objects(tg.Name)
		tg.Objects = append(tg.Objects, objs...)
		for _, o := range objs {
			byName[o.ID.Name] = o
		}
	}
	return []*render.Target{tg}, byName
}

func find(o *manifest.Object, rule, path string) finding.Finding {
	p := manifest.MustParsePath(path)
	loc, _ := o.Locate(p)
	f := finding.Finding{Source: finding.SourceCheck, RuleID: rule, Level: finding.Error, Message: rule + " at " + path,
		Object: o.ID, Path: p, Location: loc}
	f.SetFingerprint()
	return f
}

func day(s string) time.Time {
	d, err := time.Parse(config.DateLayout, s)
	if err != nil {
		panic(err)
	}
	return d
}

func byRule(fs []finding.Finding, rule string) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if f.RuleID == rule {
			out = append(out, f)
		}
	}
	return out
}

func TestAnnotations(t *testing.T) {
	tgs, objs := targets(t)
	in := []finding.Finding{
		find(objs["web"], "check/latest-tag", "spec"),
		find(objs["web"], "check/no-limits", "spec"),
		find(objs["web"], "check/other", "spec"),
		find(objs["old"], "check/x", "spec"),
		find(objs["bad"], "check/a", "metadata"),
	}
	res := Apply(in, tgs, Options{Today: day("2025-03-31")})
	fs := res.Findings

	if s := fs[0].Suppressed; s == nil || s.Kind != KindAnnotation || s.Reason != "base image pinned by digest elsewhere" ||
		s.Source.File != "apps/web/all.yaml" || s.Source.Line != 7 {
		t.Errorf("latest-tag: %+v", s)
	}
	if fs[1].Suppressed == nil {
		t.Error("no-limits (after a comma without a space) not suppressed")
	}
	if fs[2].Suppressed != nil {
		t.Error("a rule the annotation does not list was suppressed")
	}
	// The last day of a suppression still counts.
	if s := fs[3].Suppressed; s == nil || s.Until != "2025-03-31" || !strings.HasPrefix(s.Reason, "no reason given") {
		t.Errorf("old on its last day: %+v", s)
	}
	if fs[4].Suppressed != nil {
		t.Error("an annotation with an unreadable date was applied")
	}

	unused := byRule(fs, RuleUnused)
	if len(unused) != 1 || unused[0].Location.Line != 7 || !strings.Contains(unused[0].Message, "lists check/typo, but no finding of it is reported on Deployment shop/web") ||
		unused[0].Level != finding.Note {
		t.Errorf("unused notes: %+v", unused)
	}
	invalid := byRule(fs, RuleInvalid)
	if len(invalid) != 2 {
		t.Fatalf("invalid: %+v", invalid)
	}
	for _, f := range invalid {
		if !f.InputError || f.Level != finding.Error {
			t.Errorf("invalid annotation is not an input error: %+v", f)
		}
	}
	if got := invalid[0].Location.Line; got != 27 || !strings.Contains(invalid[0].Message, `plumb.dev/ignore-until "end of march" is not a date`) {
		t.Errorf("bad date at line %d: %s", got, invalid[0].Message)
	}
	if got := invalid[1].Location.Line; got != 34 || !strings.Contains(invalid[1].Message, "lists no rule id") {
		t.Errorf("empty list at line %d: %s", got, invalid[1].Message)
	}
}

func TestExpiredAnnotationBringsTheFindingBack(t *testing.T) {
	tgs, objs := targets(t)
	in := []finding.Finding{find(objs["old"], "check/x", "spec")}
	fs := Apply(in, tgs, Options{Today: day("2025-04-01")}).Findings
	if fs[0].Suppressed != nil {
		t.Fatal("still suppressed after the date")
	}
	if len(fs[0].Related) != 1 || fs[0].Related[0].Line != 18 || !strings.Contains(fs[0].Related[0].Message, "expired after 2025-03-31") {
		t.Errorf("related: %+v", fs[0].Related)
	}
	expired := byRule(fs, RuleExpired)
	if len(expired) != 1 || expired[0].Location.Line != 18 ||
		expired[0].Message != "plumb.dev/ignore-until: 2025-03-31 has passed: the findings of check/* on Deployment shop/old are reported again; fix them, or move the date" {
		t.Errorf("expired notes: %+v", expired)
	}
	// An expired annotation is not also "unused"; web lists three ids and
	// has no finding in this run: three notes, all on web.
	if n := len(byRule(fs, RuleUnused)); n != 3 {
		t.Errorf("%d unused notes", n)
	}
	for _, f := range byRule(fs, RuleUnused) {
		if f.Object.Name != "web" {
			t.Errorf("unused note on %s", f.Object)
		}
	}
}

func TestConfigSuppressions(t *testing.T) {
	tgs, objs := targets(t)
	web := objs["web"]
	a := find(web, "check/other", "spec.template.spec.containers[0].image")
	b := find(web, "check/other", "metadata.labels")
	c := find(objs["old"], "kubevirt/x", "spec")
	d := find(objs["bad"], "compare/drift", "data")
	entries := []config.Suppression{
		{Field: "spec.template", Reason: "field", Line: 3, Column: 5},
		{Object: &config.ObjectSelector{Kind: "Deployment", Name: "o*"}, Rule: "kubevirt/*", Reason: "object", Line: 5, Column: 5},
		{Fingerprint: d.Fingerprint, Reason: "by fingerprint", Until: "2025-01-01", Line: 7, Column: 5},
		{Path: "other/**", Reason: "never matches", Line: 9, Column: 5},
	}
	res := Apply([]finding.Finding{a, b, c, d}, tgs, Options{Config: entries, ConfigFile: ".plumb.yaml", Today: day("2025-06-01")})
	fs := res.Findings
	if s := fs[0].Suppressed; s == nil || s.Reason != "field" || s.Kind != KindConfig || s.Source != (manifest.Location{File: ".plumb.yaml", Line: 3, Column: 5}) {
		t.Errorf("field: %+v", s)
	}
	if fs[1].Suppressed != nil {
		t.Error("a field outside the suppressed subtree was suppressed")
	}
	if s := fs[2].Suppressed; s == nil || s.Reason != "object" {
		t.Errorf("object: %+v", s)
	}
	if fs[3].Suppressed != nil || len(fs[3].Related) != 1 {
		t.Errorf("expired fingerprint: %+v", fs[3])
	}
	var expired []finding.Finding
	for _, f := range byRule(fs, RuleExpired) {
		if f.Location.File == ".plumb.yaml" {
			expired = append(expired, f)
		}
	}
	if len(expired) != 1 || expired[0].Location != (manifest.Location{File: ".plumb.yaml", Line: 7, Column: 5}) ||
		!strings.Contains(expired[0].Message, "expired after 2025-01-01") {
		t.Errorf("expired: %+v", expired)
	}
	var used []bool
	for _, e := range res.Section.Config {
		used = append(used, e.Used)
	}
	if want := []bool{true, true, true, false}; !equalBools(used, want) {
		t.Errorf("used %v, want %v", used, want)
	}
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Problems with plumb's own inputs (a catalog that does not load) are not
// about the repository and are never suppressed; what the repository holds
// — a file that does not parse — is a finding like any other.
func TestConfigErrorsAreNeverSuppressed(t *testing.T) {
	cfgErr := finding.Finding{RuleID: "checks/lint", Level: finding.Error, InputError: true, ConfigError: true, Location: manifest.Location{File: "policy/X1.yaml", Line: 1}}
	syntax := finding.Finding{RuleID: manifest.RuleYAMLSyntax, Level: finding.Error, InputError: true, Location: manifest.Location{File: "a.yaml", Line: 1}}
	res := Apply([]finding.Finding{cfgErr, syntax}, nil, Options{Config: []config.Suppression{{Rule: "manifest/*", Reason: "r"}, {Rule: "checks/*", Reason: "r"}}})
	if res.Findings[0].Suppressed != nil {
		t.Error("a configuration error was suppressed")
	}
	if res.Findings[1].Suppressed == nil {
		t.Error("a syntax error of the repository could not be suppressed")
	}
}

func TestSectionMergesShards(t *testing.T) {
	mk := func(used ...bool) json.RawMessage {
		s := Section{}
		for i, u := range used {
			s.Config = append(s.Config, SectionEntry{Location: manifest.Location{File: ".plumb.yaml", Line: i + 2}, Selector: "rule=x", Reason: "r", Used: u})
		}
		b, _ := json.Marshal(s)
		return b
	}
	got, err := Section{}.MergeShards([]json.RawMessage{mk(true, false, false), mk(false, false, true)})
	if err != nil {
		t.Fatal(err)
	}
	sec := got.(*Section)
	if !sec.Config[0].Used || sec.Config[1].Used || !sec.Config[2].Used {
		t.Errorf("merged %+v", sec.Config)
	}
	if _, err := (Section{}).MergeShards([]json.RawMessage{mk(true), mk(true, true)}); err == nil {
		t.Error("shards with different suppressions merged")
	}
}
