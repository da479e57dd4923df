package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// catalogOf loads checks given as id → YAML body (after the header).
func catalogOf(t testing.TB, checks map[string]string) *Catalog {
	t.Helper()
	fs := fstest.MapFS{}
	for id, body := range checks {
		fs[id+".yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("id: %q\nname: Check %s\ngroup: test\ndescription: d\nremediation: Fix %s.\n%s", id, id, id, body))}
	}
	cat := Load(Source{FS: fs, Dir: ".", Display: "cat"})
	if errs := cat.Errors(); len(errs) > 0 {
		t.Fatalf("catalog does not lint: %v", errs)
	}
	return cat
}

func analyze(t testing.TB, checks []*Check, custom Customizations, in *analyzer.Input) (*Result, []finding.Finding) {
	t.Helper()
	out, err := NewAnalyzer(checks, custom).Analyze(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	finding.Sort(out.Findings) // as the report does
	return out.Section.(*Result), out.Findings
}

const pods = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  containers:
    - name: a
      image: a:1
    - name: b
      image: b
      resources: {limits: {cpu: "1"}}
    - name: c
      image: c:latest
`

func TestFindingsPointAtTheFieldAndElement(t *testing.T) {
	cat := catalogOf(t, map[string]string{
		"P1": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: images, gatherer: image@v1}
expectations:
  - name: pinned
    expect: facts.images.all(i, i.tag != "" && i.tag != "latest")
    failure_message: ${facts.images.filter(i, i.tag == "" || i.tag == "latest").map(i, i.container).join(",")} unpinned
`,
		// Not refinable per element: fails as a whole, at the list.
		"P2": `severity: warning
metadata: {target_type: object, kind: Pod}
facts:
  - {name: containers, gatherer: containers@v1}
expectations:
  - name: few
    expect: size(facts.containers) < 3
`,
		// The first fact the expectation reads decides the place.
		"P3": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: unused, gatherer: manifest@v1, argument: metadata.name}
  - {name: limit, gatherer: manifest@v1, argument: "spec.containers[1].resources.limits.cpu"}
expectations:
  - name: small
    expect: facts.limit == "2"
    failure_message: limit is ${facts.limit}
`,
		// A missing field without ? is a fact error at the nearest ancestor.
		"P4": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: sa, gatherer: manifest@v1, argument: spec.serviceAccountName}
expectations:
  - {name: set, expect: facts.sa != ""}
`,
		// A runtime error is reported as such.
		"P5": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: spec, gatherer: manifest@v1, argument: spec}
expectations:
  - {name: reads, expect: facts.spec.hostNetwork == true}
`,
		// A non-boolean result.
		"P6": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: spec, gatherer: manifest@v1, argument: spec}
expectations:
  - {name: typed, expect: "facts.spec.containers[0]"}
`,
	})
	res, fs := analyze(t, cat.Usable(), nil, &analyzer.Input{Targets: renderFiles(t, map[string]string{"app/p.yaml": pods})})
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s %s %s %s %s", manifest.FormatLocation(f.Location), f.Level, f.RuleID, f.Path, f.Message))
		if f.Object.Name != "p" || f.Object.Target != "app" || f.Help == "" || f.Fingerprint == "" || f.Source != finding.SourceCheck {
			t.Errorf("finding fields: %+v", f)
		}
	}
	want := []string{
		"app/p.yaml:4:1 error check/P4 spec.serviceAccountName Check P4: Pod has no field spec.serviceAccountName",
		"app/p.yaml:4:1 error check/P5 spec Check P5: expectation reads could not be evaluated (property_not_found): no such key: hostNetwork",
		"app/p.yaml:4:1 error check/P6 spec Check P6: expectation typed returned {\"image\":\"a:1\",\"name\":\"a\"}, not a boolean, so it is not met",
		"app/p.yaml:5:3 warning check/P2 spec.containers Check P2: few is not met",
		"app/p.yaml:9:7 error check/P1 spec.containers[1].image b unpinned",
		"app/p.yaml:10:28 error check/P3 spec.containers[1].resources.limits.cpu limit is 1",
		"app/p.yaml:12:7 error check/P1 spec.containers[2].image c unpinned",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The Result keeps Wanda's per-target message (not narrowed).
	for _, cr := range res.CheckResults {
		if cr.CheckID == "P1" {
			ev := cr.AgentsCheckResults.At(0).Evaluations[0]
			if *ev.FailureMessage != "b,c unpinned" {
				t.Errorf("result message %q", *ev.FailureMessage)
			}
		}
	}
	// Fingerprints of the per-element findings differ.
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.Fingerprint] {
			t.Errorf("duplicate fingerprint %s", f.Fingerprint)
		}
		seen[f.Fingerprint] = true
	}
}

func TestLocationLandsInTheReferencedObject(t *testing.T) {
	cat := catalogOf(t, map[string]string{"R1": `metadata: {target_type: object, kind: Deployment}
facts:
  - {name: settings, gatherer: configmap_file@v1, argument: "settings/app.json"}
expectations:
  - {name: small, expect: facts.settings.replicas < 5, failure_message: "replicas ${facts.settings.replicas} too high"}
`})
	targets := renderFiles(t, map[string]string{"app/a.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ns}
data:
  app.json: '{"replicas": 9}'
`})
	_, fs := analyze(t, cat.Usable(), nil, &analyzer.Input{Targets: targets})
	if len(fs) != 1 || fs[0].Location.Line != 9 || fs[0].Object.Kind != "Deployment" || fs[0].Path != nil || fs[0].Message != "replicas 9 too high" {
		t.Fatalf("findings: %+v", fs)
	}
}

// Group checks compare render targets; findings go to the targets whose
// value differs from the majority, with the objects involved as related
// locations. Per-target env decides which targets take part.
func TestGroupExpectSameFindings(t *testing.T) {
	cat := defaultCatalog(t)
	check := cat.Get("H10001")
	deploy := func(name string) string {
		return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\n---\n", name)
	}
	files := map[string]string{
		"overlays/dev/a.yaml":     deploy("api") + deploy("worker"),
		"overlays/staging/a.yaml": deploy("api") + deploy("worker"),
		"overlays/prod/a.yaml":    deploy("api"),
		"other/a.yaml":            deploy("unrelated"),
	}
	te := map[string]map[string]any{
		"overlays/dev": {"environment": "dev"}, "overlays/staging": {"environment": "staging"}, "overlays/prod": {"environment": "prod"},
	}
	res, fs := analyze(t, []*Check{check}, nil, &analyzer.Input{Targets: renderFiles(t, files), TargetEnv: te})
	if len(res.CheckResults) != 1 || res.CheckResults[0].AgentsCheckResults.Len() != 3 {
		t.Fatalf("result: %+v", res.CheckResults)
	}
	if len(fs) != 1 {
		t.Fatalf("findings: %v", findingList(fs))
	}
	f := fs[0]
	if f.Location.File != "overlays/prod/a.yaml" || f.Location.Line != 1 || f.Object.Target != "overlays/prod" || f.Level != finding.Warning {
		t.Errorf("finding: %+v", f)
	}
	want := `The environments do not deploy the same workloads: ["Deployment/api"] here, but ["Deployment/api","Deployment/worker"] (2 of 3) elsewhere`
	if f.Message != want {
		t.Errorf("message:\n%s\nwant:\n%s", f.Message, want)
	}
	// A tie flags every target.
	delete(files, "overlays/staging/a.yaml")
	_, fs = analyze(t, []*Check{check}, nil, &analyzer.Input{Targets: renderFiles(t, files), TargetEnv: te})
	if len(fs) != 2 {
		t.Errorf("tie: %v", findingList(fs))
	}
	// Without environments the check does not run.
	res, fs = analyze(t, []*Check{check}, nil, &analyzer.Input{Targets: renderFiles(t, files)})
	if len(res.CheckResults) != 0 || len(fs) != 0 {
		t.Errorf("ran without env: %+v", res.CheckResults)
	}
}

// In a monorepo the environments of each application are compared with
// each other only (env.application): web's agree although they deploy
// other workloads than api's, api's prod is outside api's majority, and the
// targets without an application are compared among themselves. The check
// is one result, failed because one application differs; the facts of the
// targets whose application agreed are dropped like those of any target
// that passed.
func TestGroupExpectSameWithinApplications(t *testing.T) {
	check := defaultCatalog(t).Get("H10001")
	deploy := func(name string) string {
		return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s}\n---\n", name)
	}
	files := map[string]string{
		"apps/web/overlays/dev/a.yaml":     deploy("web"),
		"apps/web/overlays/prod/a.yaml":    deploy("web"),
		"apps/api/overlays/dev/a.yaml":     deploy("api"),
		"apps/api/overlays/staging/a.yaml": deploy("api"),
		"apps/api/overlays/prod/a.yaml":    deploy("api") + deploy("migrate"),
		"legacy/dev/a.yaml":                deploy("old"),
		"legacy/prod/a.yaml":               deploy("old"),
	}
	te := map[string]map[string]any{
		"legacy/dev": {"environment": "dev"}, "legacy/prod": {"environment": "prod"},
	}
	for _, app := range []string{"web", "api"} {
		for _, e := range []string{"dev", "staging", "prod"} {
			te["apps/"+app+"/overlays/"+e] = map[string]any{"environment": e, "application": "apps/" + app}
		}
	}
	res, fs := analyze(t, []*Check{check}, nil, &analyzer.Input{Targets: renderFiles(t, files), TargetEnv: te})
	var got []string
	for _, f := range fs {
		got = append(got, fmt.Sprintf("%s:%d %s %s", f.Location.File, f.Location.Line, f.Object.Target, f.Message))
	}
	want := []string{`apps/api/overlays/prod/a.yaml:1 apps/api/overlays/prod The environments do not deploy the same workloads: ` +
		`["Deployment/api","Deployment/migrate"] here, but ["Deployment/api"] (2 of 3) elsewhere in application "apps/api"`}
	if !slices.Equal(got, want) {
		t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.CheckResults) != 1 {
		t.Fatalf("results: %+v", res.CheckResults)
	}
	cr := res.CheckResults[0]
	if cr.Result != Warning || len(cr.ExpectationResults) != 1 || cr.ExpectationResults[0].Result != false || cr.AgentsCheckResults.Len() != 7 {
		t.Errorf("check result %s, expectations %+v, %d targets", cr.Result, cr.ExpectationResults, cr.AgentsCheckResults.Len())
	}
	var kept []string
	for a := range cr.AgentsCheckResults.All() {
		if len(a.Facts) > 0 {
			kept = append(kept, a.AgentID)
		}
	}
	if want := []string{"apps/api/overlays/dev", "apps/api/overlays/prod", "apps/api/overlays/staging"}; !slices.Equal(kept, want) {
		t.Errorf("facts kept for %v, want %v (api's, which differ)", kept, want)
	}
	// Every application agrees: the check passes and nothing is reported,
	// though the applications deploy different workloads.
	files["apps/api/overlays/prod/a.yaml"] = deploy("api")
	res, fs = analyze(t, []*Check{check}, nil, &analyzer.Input{Targets: renderFiles(t, files), TargetEnv: te})
	if len(fs) != 0 || res.CheckResults[0].Result != Passing || res.CheckResults[0].ExpectationResults[0].Result != true {
		t.Errorf("agreeing applications: %+v\n%s", res.CheckResults[0].ExpectationResults, findingList(fs))
	}
	// One application for the whole repository (--env application=...,
	// which the built-in rule then leaves alone): all seven are compared,
	// and api's three outnumber web's two and legacy's two.
	for _, v := range te {
		delete(v, "application")
	}
	_, fs = analyze(t, []*Check{check}, nil, &analyzer.Input{Targets: renderFiles(t, files), TargetEnv: te, Env: map[string]any{"application": "all"}})
	if len(fs) != 4 || fs[0].Message != `The environments do not deploy the same workloads: ["Deployment/web"] here, `+
		`but ["Deployment/api"] (3 of 7), ["Deployment/old"] (2 of 7) elsewhere in application "all"` {
		t.Errorf("one application: %s", findingList(fs))
	}
}

func TestGroupFindingsRelateTheObjects(t *testing.T) {
	cat := catalogOf(t, map[string]string{"G1": `metadata: {target_type: group}
facts:
  - {name: cms, gatherer: objects@v1, argument: kind=ConfigMap}
expectations:
  - {name: few, expect: size(facts.cms) < 2, failure_message: "${size(facts.cms)} ConfigMaps"}
`})
	targets := renderFiles(t, map[string]string{"t/a.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"})
	_, fs := analyze(t, cat.Usable(), nil, &analyzer.Input{Targets: targets})
	// Each ConfigMap alone passes, so there is one finding, at the first
	// ConfigMap (not at the Namespace, the render target's first object),
	// with the other one related.
	if len(fs) != 1 || fs[0].Location.Line != 5 || len(fs[0].Related) != 1 || fs[0].Related[0].Line != 9 || fs[0].Related[0].Message != "ConfigMap b" ||
		fs[0].Message != "2 ConfigMaps" || fs[0].Object.Target != "t" {
		t.Fatalf("findings: %+v", fs)
	}
}

// H10002 in plain files (kustomize output committed to the repository):
// a trailing kustomize hash is not part of the name, but a name that only
// looks like one to a loose pattern ("-production", ten letters) is.
func TestConfigMapNamesInPlainFiles(t *testing.T) {
	check := defaultCatalog(t).Get("H10002")
	cm := func(name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {A: v}\n", name)
	}
	files := map[string]string{
		"dev/cm.yaml":     cm("app-config-5f6g7h8k9m"),
		"staging/cm.yaml": cm("app-config-production"),
		"prod/cm.yaml":    cm("app-config"),
	}
	te := map[string]map[string]any{"dev": {"environment": "dev"}, "staging": {"environment": "staging"}, "prod": {"environment": "prod"}}
	_, fs := analyze(t, []*Check{check}, nil, &analyzer.Input{Targets: renderFiles(t, files), TargetEnv: te})
	want := `The environments do not configure the same ConfigMap keys: ["app-config-production:A"] here, but ["app-config:A"] (2 of 3) elsewhere`
	if len(fs) != 1 || fs[0].Object.Target != "staging" || fs[0].Message != want {
		t.Errorf("findings:\n%s", findingList(fs))
	}
}

func TestValuesFollowTheTargetEnv(t *testing.T) {
	cat := defaultCatalog(t)
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n"
	targets := renderFiles(t, map[string]string{"dev/a.yaml": deploy, "staging/a.yaml": deploy, "prod/a.yaml": deploy})
	in := &analyzer.Input{Targets: targets, Env: map[string]any{"environment": "dev"}, TargetEnv: map[string]map[string]any{
		"staging": {"environment": "staging"}, "prod": {"environment": "prod"},
	}}
	res, fs := analyze(t, []*Check{cat.Get("E10001")}, nil, in)
	if len(fs) != 1 || fs[0].Object.Target != "prod" || fs[0].Message != "runs 2 replica(s) but prod needs at least 3" {
		t.Fatalf("findings: %v", findingList(fs))
	}
	values := map[string]any{}
	for a := range res.CheckResults[0].AgentsCheckResults.All() {
		values[a.AgentID] = a.Values[0].Value
	}
	if values["dev:apps/v1/Deployment//web"] != int64(1) || values["staging:apps/v1/Deployment//web"] != int64(2) || values["prod:apps/v1/Deployment//web"] != int64(3) {
		t.Errorf("values per target: %v", values)
	}
	// A customization wins over the env.
	_, fs = analyze(t, []*Check{cat.Get("E10001")}, Customizations{"E10001": {"min_replicas": int64(2)}}, in)
	if len(fs) != 0 {
		t.Errorf("customized: %v", findingList(fs))
	}
}

// TestSecretValuesNeverLeak runs checks that read Secrets every way they
// can; no Secret value may appear in findings or in the report section.
func TestSecretValuesNeverLeak(t *testing.T) {
	const secretValue = "hunter2-the-secret"
	cat := catalogOf(t, map[string]string{
		"S1": `metadata: {target_type: object, kind: Secret}
facts:
  - {name: whole, gatherer: manifest@v1}
  - {name: data, gatherer: manifest@v1, argument: stringData}
expectations:
  - {name: e, expect: facts.data.password == "x", failure_message: "${facts.whole} ${facts.data}"}
`,
		"S2": `metadata: {target_type: group}
facts:
  - {name: secrets, gatherer: objects@v1, argument: kind=Secret}
expectations:
  - {name: e, expect: size(facts.secrets) == 0, failure_message: "${facts.secrets}"}
  - {name: same, expect_same: facts.secrets}
`,
		// Credentials outside Secrets: a ConfigMap key, an environment
		// variable, a properties file's password.
		"S3": `metadata: {target_type: object, kind: [ConfigMap, Deployment]}
facts:
  - {name: containers, gatherer: containers@v1}
  - name: password
    gatherer: manifest@v1
    argument: data.password?
expectations:
  - {name: e, expect: "false", failure_message: "${facts.containers} ${facts.password}"}
`,
		"S4": `metadata: {target_type: object, kind: ConfigMap}
facts:
  - {name: props, gatherer: configmap_file@v1, argument: $self/app.properties}
  - {name: text, gatherer: configmap_file@v1, argument: $self/app.properties:text}
expectations:
  - {name: e, expect: "false", failure_message: "${facts.props} ${facts.text}"}
`,
	})
	checks := append(cat.Usable(), defaultCatalog(t).Usable()...)
	targets := renderFiles(t, map[string]string{
		"a/s.yaml":  "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: " + secretValue + "}\ndata: {token: " + secretValue + "}\n",
		"b/s.yaml":  "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: other}\n",
		"c/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  password: " + secretValue + "\n  app.properties: |\n    db.password=" + secretValue + "\n",
		"c/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: c\n          env: [{name: DB_PASSWORD, value: " + secretValue + "}]\n",
	})
	res, fs := analyze(t, checks, nil, &analyzer.Input{Targets: targets})
	out, err := json.Marshal(struct {
		R *Result
		F []finding.Finding
	}{res, fs})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), secretValue) || strings.Contains(string(out), `"password":"other"`) {
		t.Fatalf("a Secret value leaked:\n%s", out)
	}
	if len(fs) == 0 || !strings.Contains(string(out), `\u003credacted\u003e`) {
		t.Errorf("the checks did not run on the Secrets: %s", out)
	}
	ran := map[string]int{}
	for _, f := range fs {
		ran[f.RuleID]++
	}
	if ran["check/S3"] != 2 || ran["check/S4"] != 1 || ran["check/D10012"] != 1 || ran["check/G10002"] == 0 {
		t.Errorf("the checks reading credentials outside Secrets did not all fail: %v", ran)
	}
}

// TestEachExpressionIsCompiledOncePerRun loads the default catalog, counts
// its expressions, and checks that loading compiled each exactly once and
// that analysing many objects compiles nothing more.
func TestEachExpressionIsCompiledOncePerRun(t *testing.T) {
	before := compiles.Load()
	cat := Load(DefaultSource())
	loaded := compiles.Load() - before
	exprs := 0
	for _, c := range cat.Checks {
		for _, e := range []*Expr{c.When, c.Exclude} {
			if e != nil {
				exprs++
			}
		}
		for _, v := range c.Values {
			exprs += len(v.Conditions)
		}
		for _, e := range c.Expectations {
			exprs++
			for _, m := range []*Message{e.FailureMessage, e.WarningMessage} {
				if m != nil {
					for _, p := range m.parts {
						if p.expr != nil {
							exprs++
						}
					}
				}
			}
		}
	}
	if loaded != int64(exprs) {
		t.Errorf("loading compiled %d times for %d expressions", loaded, exprs)
	}
	targets := benchTargets(t, 200)
	before = compiles.Load()
	for i := 0; i < 2; i++ {
		if _, err := NewAnalyzer(cat.Usable(), nil).Analyze(context.Background(), &analyzer.Input{Targets: targets, Env: map[string]any{"environment": "prod"}}); err != nil {
			t.Fatal(err)
		}
	}
	if n := compiles.Load() - before; n != 0 {
		t.Errorf("analysing compiled %d expressions", n)
	}
}

func TestAnalysisIsDeterministic(t *testing.T) {
	cat := defaultCatalog(t)
	targets := benchTargets(t, 100)
	var first []byte
	for i := 0; i < 3; i++ {
		res, fs := analyze(t, cat.Usable(), nil, &analyzer.Input{Targets: targets})
		b, err := json.Marshal(struct {
			R *Result
			F []finding.Finding
		}{res, fs})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Fatal("two runs differ")
		}
	}
}

// TestNewReportsCatalogAndConfigurationProblems: a catalog file that does
// not lint, a rejected customization and an unknown selected id are input
// errors naming their file and line; the good checks still run.
func TestNewReportsCatalogAndConfigurationProblems(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/good1.yaml", "id: good1\nname: G\ngroup: g\ndescription: d\nremediation: r\n"+body)
	writeFile(t, dir+"/bad1.yaml", "id: bad1\nname: B\ngroup: g\ndescription: d\nremediation: r\n"+strings.Replace(body, "facts.f == 1", "facts.f ==", 1))
	cfg := config.Checks{
		DefaultCatalog: true,
		Dirs:           []config.CatalogDir{{Path: dir, Display: "my-checks"}},
		Select:         []string{"good1", "E10001", "NOPE"},
		SelectSource:   ".plumb.yaml",
		SelectAt:       map[string]config.SelectedCheck{"NOPE": {ID: "NOPE", Line: 3, Column: 30}},
		Customizations: map[string]map[string]config.CustomValue{
			"E10001": {"min_replicas": {Value: "three", Line: 7, Column: 21}},
		},
	}
	a, problems := New(cfg, ".plumb.yaml")
	var got []string
	for _, p := range problems {
		if !p.InputError || p.Level != finding.Error {
			t.Errorf("not an input error: %+v", p)
		}
		got = append(got, fmt.Sprintf("%s [%s] %s", manifest.FormatLocation(p.Location), p.RuleID, p.Message))
	}
	want := []string{
		"my-checks/bad1.yaml:14:23 [checks/lint] check bad1: expectations[0].expect: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER} (the check is not run)",
		`.plumb.yaml:3:30 [checks/select] select: there is no check "NOPE" in the catalog (see plumb checks list)`,
		".plumb.yaml:7:21 [checks/customization] checks.customizations: value min_replicas of check E10001 is an integer (default 1), so the custom value must be an integer too, not a string three",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := ids(a.checks); !slices.Equal(got, []string{"E10001", "good1"}) {
		t.Errorf("checks that run: %v", got)
	}
}

// benchTargets builds n objects over 10 render targets in which every
// workload breaks about half of the default checks (the worst case).
func benchTargets(t testing.TB, n int) []*render.Target {
	return benchTargetsMixed(t, n, 1)
}

// benchTargetsMixed builds n objects over 10 render targets of 50-object
// blocks: Deployments, the Services selecting them, ConfigMaps they read,
// and Namespaces or PodDisruptionBudgets. One Deployment in badEvery (and
// its neighbours) is written carelessly and fails about half of the checks;
// the others follow every default check.
func benchTargetsMixed(t testing.TB, n, badEvery int) []*render.Target {
	t.Helper()
	files := map[string]string{}
	for i := 0; i < n; i++ {
		dir := fmt.Sprintf("t%02d", (i/50)%10)
		ns := fmt.Sprintf("ns%d", (i/5)%7)
		bad := (i/5)%badEvery == 0
		var doc string
		switch {
		case i%5 <= 1 && bad:
			doc = fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: app%d, namespace: %s, labels: {app.kubernetes.io/name: app%d}}
spec:
  replicas: %d
  selector: {matchLabels: {app: app%d}}
  template:
    metadata: {labels: {app: app%d}}
    spec:
      securityContext: {runAsNonRoot: true}
      containers:
        - name: main
          image: registry.example.com/app%d:1.%d
          envFrom: [{configMapRef: {name: cfg%d}}]
          resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {memory: 256Mi}}
          readinessProbe: {httpGet: {path: /ready, port: 8080}}
        - name: sidecar
          image: proxy:latest
`, i, ns, i, 1+i%4, i, i, i, i, i-1)
		case i%5 <= 1:
			doc = fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: app%d, namespace: %s, labels: {app.kubernetes.io/name: app%d}}
spec:
  replicas: 3
  selector: {matchLabels: {app: app%d}}
  template:
    metadata: {labels: {app: app%d, app.kubernetes.io/part-of: shop}}
    spec:
      securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
      containers:
        - name: main
          image: registry.example.com/app%d:1.%d
          envFrom: [{configMapRef: {name: cfg%d}}]
          resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {cpu: "1", memory: 256Mi}}
          livenessProbe: {httpGet: {path: /healthz, port: 8080}}
          readinessProbe: {httpGet: {path: /ready, port: 8080}}
          securityContext:
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities: {drop: [ALL]}
`, i, ns, i, i, i, i, i, i-i%5+3)
		case i%5 == 2:
			doc = fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: svc%d, namespace: %s}\nspec:\n  selector: {app: app%d}\n  ports: [{port: 80}]\n", i, ns, i-2)
		case i%5 == 3:
			doc = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg%d, namespace: %s}\ndata:\n  LOG_LEVEL: info\n  app.properties: |\n    a=b\n    db.password=x%d\n", i, ns, i)
			if !bad {
				doc = strings.Replace(doc, "db.password=", "db.user=", 1)
			}
		case bad:
			doc = fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: n%d}\n", i)
		default:
			doc = fmt.Sprintf("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb%d, namespace: %s}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app.kubernetes.io/part-of: shop}}\n", i, ns)
		}
		files[fmt.Sprintf("%s/o%05d.yaml", dir, i)] = doc
	}
	return renderFiles(t, files)
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Whole numbers written as floats (replicas: 3.0) are integers to the
// checks, as Wanda types facts: type() says int, messages print 3, and
// expect_same finds 3.0 and 3 equal. Fractions stay doubles, and the
// rendered object itself is not changed.
func TestWholeNumbersAreIntegers(t *testing.T) {
	cat := catalogOf(t, map[string]string{
		"W1": `metadata: {target_type: object, kind: Deployment}
facts:
  - {name: r, gatherer: manifest@v1, argument: spec.replicas}
  - {name: all, gatherer: objects@v1, argument: "kind=Deployment,field=spec.replicas"}
  - {name: whole, gatherer: manifest@v1}
expectations:
  - name: ints
    expect: type(facts.r) == int && facts.all.all(x, type(x) == int) && type(facts.whole.spec.replicas) == int
    failure_message: "replicas ${facts.r} is ${type(facts.r)}"
  - name: fraction
    expect: facts.r < 3
    failure_message: "replicas ${facts.r}"
`,
		"W2": `metadata: {target_type: group}
facts:
  - {name: replicas, gatherer: objects@v1, argument: "kind=Deployment,field=spec.replicas"}
expectations:
  - {name: same, expect_same: facts.replicas}
`,
	})
	targets := renderFiles(t, map[string]string{
		"a/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3.0\n  x: [1.0, {y: 2.5}]\n",
		"b/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n",
	})
	res, fs := analyze(t, cat.Usable(), nil, &analyzer.Input{Targets: targets})
	var msgs []string
	for _, f := range fs {
		msgs = append(msgs, fmt.Sprintf("%s:%d %s", f.Location.File, f.Location.Line, f.Message))
	}
	want := []string{"a/d.yaml:5 replicas 3", "b/d.yaml:5 replicas 3"}
	if !slices.Equal(msgs, want) {
		t.Errorf("findings %q, want %q", msgs, want)
	}
	for _, cr := range res.CheckResults {
		for _, er := range cr.ExpectationResults {
			if want := er.Name != "fraction"; er.Result != want {
				t.Errorf("%s %s = %v, want %v", cr.CheckID, er.Name, er.Result, want)
			}
		}
	}
	// The rendered object keeps what was written.
	if v := targets[0].Objects[0].Content["spec"].(map[string]any)["x"].([]any); v[0] != 1.0 || v[1].(map[string]any)["y"] != 2.5 {
		t.Errorf("the object was changed: %#v", v)
	}
	g := gatherOn(t, targets, "manifest@v1", "spec.x", TargetObject, "web")
	if fmt.Sprintf("%#v", g.value) != fmt.Sprintf("%#v", []any{int64(1), map[string]any{"y": 2.5}}) {
		t.Errorf("spec.x = %#v", g.value)
	}
}

// One problem, one finding: a ConfigMap file that does not parse is
// G10001's finding, in the parser's words; G10002, which reads the same
// files, does not report it again. redis.conf is no INI file and is not
// parsed at all.
func TestAFileThatDoesNotParseIsReportedOnce(t *testing.T) {
	cat := defaultCatalog(t)
	files := map[string]string{"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n" +
		"  app.ini: |\n    [broken\n  redis.conf: |\n    maxmemory 64mb\n"}
	_, fs := analyze(t, []*Check{cat.Get("G10001"), cat.Get("G10002")}, nil, &analyzer.Input{Targets: renderFiles(t, files)})
	want := `Configuration files in ConfigMaps parse: ConfigMap app key "app.ini": invalid ini at line 1: section header "[broken" has no closing ]`
	if len(fs) != 1 || fs[0].RuleID != "check/G10001" || fs[0].Message != want || fs[0].Location.Line != 5 {
		t.Errorf("findings:\n%s", findingList(fs))
	}
}

// A YAML configuration file in a ConfigMap may use {{ }} placeholders as
// keys (a collector's template): YAML allows it, only manifests must not.
func TestConfigFilesMayHaveMappingKeys(t *testing.T) {
	files := map[string]string{"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\ndata:\n" +
		"  collector.yaml: |\n    exporters:\n      {{ .exporter }}: {}\n"}
	_, fs := analyze(t, []*Check{defaultCatalog(t).Get("G10001")}, nil, &analyzer.Input{Targets: renderFiles(t, files)})
	if len(fs) != 0 {
		t.Errorf("findings:\n%s", findingList(fs))
	}
}
