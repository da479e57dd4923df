package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/renderdiff"
	"github.com/plumb-ci/plumb/internal/report"
)

// latestTag is a field-level engine for tests: every container image
// without a pinned tag is an error at the image field.
type latestTag struct{}

func (latestTag) Name() string { return "latest-tag" }

func (latestTag) Analyze(_ context.Context, in *analyzer.Input) (*analyzer.Output, error) {
	out := &analyzer.Output{Rules: []finding.Rule{{ID: "test/latest-tag", Name: "Image tag not pinned", Level: finding.Error}}}
	for _, t := range in.Targets {
		for _, o := range t.Objects {
			containers, _ := o.Get(manifest.MustParsePath("spec.template.spec.containers"))
			list, _ := containers.([]any)
			for i, c := range list {
				m, _ := c.(map[string]any)
				image, _ := m["image"].(string)
				if image == "" || (strings.Contains(image, ":") && !strings.HasSuffix(image, ":latest")) {
					continue
				}
				p := manifest.MustParsePath(fmt.Sprintf("spec.template.spec.containers[%d].image", i))
				loc, _ := o.Locate(p)
				f := finding.Finding{Source: finding.SourceCheck, RuleID: "test/latest-tag", Level: finding.Error,
					Message: fmt.Sprintf("image %s is not pinned", image), Object: o.ID, Path: p, Location: loc}
				f.SetFingerprint()
				out.Findings = append(out.Findings, f)
			}
		}
	}
	return out, nil
}

func withLatestTag(ctx context.Context, cfg *config.Config, fsys fs.FS) ([]analyzer.Analyzer, []finding.Finding) {
	engines, setup := Analyzers(ctx, cfg, fsys)
	return append(engines, latestTag{}), setup
}

// testConfig resolves a configuration for the repository in dir as the CLI
// would, with a fixed clock and reproducible output.
func testConfig(t testing.TB, dir string, file *config.File, args ...string) *config.Config {
	t.Helper()
	fset := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := config.BindCheckFlags(fset)
	if err := fset.Parse(args); err != nil {
		t.Fatal(err)
	}
	fl.Paths = fset.Args()
	cfg, err := config.Resolve(file, fl, dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.File = ".plumb.yaml"
	cfg.Reproducible = true
	cfg.Now = func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }
	return cfg
}

func deployment(name, image string, extra ...string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
  namespace: shop
%sspec:
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
        - name: main
          image: %[3]s
`, name, strings.Join(extra, ""), image)
}

// status finds the status and location of the finding of rule on the
// object named name.
type key struct{ rule, name, status string }

func statuses(fs []finding.Finding) map[key]finding.Finding {
	out := map[key]finding.Finding{}
	for _, f := range fs {
		out[key{f.RuleID, f.Object.Name, f.Status}] = f
	}
	return out
}

func TestPullRequestModeClassifiesFindings(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"apps/web/deploy.yaml":  deployment("web", "nginx:latest"),
		"apps/web/cache.yaml":   deployment("cache", "redis"),
		"apps/api/deploy.yaml":  deployment("api", "api:latest"),
		"apps/api/config.yaml":  "kind: ConfigMap\nmetadata: {name: api, namespace: shop}\n",
		"apps/jobs/worker.yaml": deployment("worker", "worker"),
		"apps/jobs/other.yaml":  deployment("other", "other:1.0"),
		"apps/web/secret.yaml":  "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop}\nstringData: {password: hunter2}\n",
	})
	base := r.Commit("base")

	// The pull request:
	r.Write(map[string]string{
		// unrelated edit above the finding: same finding, new line
		"apps/web/deploy.yaml": deployment("web", "nginx:latest", "  labels: {team: shop}\n  annotations: {owner: a}\n"),
		// the object is renamed: its finding is fixed, the new one is new
		"apps/web/cache.yaml": deployment("cache-v2", "redis"),
		// pinned: fixed
		"apps/api/deploy.yaml": deployment("api", "api:2.3.1"),
		// apiVersion added: the hygiene finding is fixed
		"apps/api/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: api, namespace: shop}\n",
		// a new problem
		"apps/web/sidecar.yaml": deployment("sidecar", "busybox"),
		"apps/web/secret.yaml":  "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: shop}\nstringData: {password: correct-horse}\n",
	})
	// a moved file with a comment on top: same findings
	r.Git("mv", "apps/jobs/worker.yaml", "apps/jobs/workers.yaml")
	r.Write(map[string]string{"apps/jobs/workers.yaml": "# the workers\n" + deployment("worker", "worker")})
	r.Commit("head")

	// The default checks would add findings of their own: this test is
	// about the classification (TestGateNewIgnoresExistingFindings and
	// TestPathsAddedByThePullRequest classify the checks' findings).
	cfg := testConfig(t, r.Dir, nil, "--base-ref", base, "--no-default-checks")
	res, err := check(context.Background(), cfg, withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(res.Report.Findings)
	want := []struct {
		rule, name, status string
		file               string
		line               int
	}{
		{"test/latest-tag", "web", finding.StatusUnchanged, "apps/web/deploy.yaml", 17},
		{"test/latest-tag", "worker", finding.StatusUnchanged, "apps/jobs/workers.yaml", 16},
		{"test/latest-tag", "cache", finding.StatusFixed, "apps/web/cache.yaml", 15},
		{"test/latest-tag", "cache-v2", finding.StatusNew, "apps/web/cache.yaml", 15},
		{"test/latest-tag", "api", finding.StatusFixed, "apps/api/deploy.yaml", 15},
		{manifest.RuleMissingAPI, "api", finding.StatusFixed, "apps/api/config.yaml", 1},
		{"test/latest-tag", "sidecar", finding.StatusNew, "apps/web/sidecar.yaml", 15},
	}
	for _, w := range want {
		f, ok := got[key{w.rule, w.name, w.status}]
		if !ok {
			t.Errorf("no %s finding %s on %s", w.status, w.rule, w.name)
			continue
		}
		if f.Location.File != w.file || f.Location.Line != w.line {
			t.Errorf("%s %s on %s at %s:%d, want %s:%d", w.status, w.rule, w.name, f.Location.File, f.Location.Line, w.file, w.line)
		}
	}
	if len(res.Report.Findings) != len(want) {
		for _, f := range res.Report.Findings {
			t.Logf("%s %s", f.Status, f.String())
		}
		t.Errorf("%d findings, want %d", len(res.Report.Findings), len(want))
	}
	sum := res.Report.Summarize()
	if sum.Statuses["new"] != 2 || sum.Statuses["unchanged"] != 2 || sum.Statuses["fixed"] != 3 {
		t.Errorf("statuses %v", sum.Statuses)
	}

	// The gate: new errors fail the run.
	if code := res.ExitCode(config.FailOnError); code != ExitFindings {
		t.Errorf("exit %d with new errors", code)
	}

	// The rendered diff: the changed targets, not the moved file.
	sec := res.Report.Sections[renderdiff.SectionName].(*renderdiff.Section)
	if sec.BaseCommit != base || sec.BaseRef != base {
		t.Errorf("diff base %s %s", sec.BaseRef, sec.BaseCommit)
	}
	var names []string
	for _, tg := range sec.Targets {
		names = append(names, tg.Name)
	}
	if strings.Join(names, " ") != "apps/api apps/web" {
		t.Errorf("diffed targets %v", names)
	}
	web := sec.Targets[1]
	if !strings.Contains(web.Diff, "-  password: <redacted>\n+  password: <redacted> (changed)\n") {
		t.Errorf("secret change not shown masked:\n%s", web.Diff)
	}
	if !strings.Contains(web.Diff, "+    team: shop\n") || !strings.Contains(web.Diff, "--- base/Deployment.apps/shop/cache\n+++ /dev/null\n") {
		t.Errorf("web diff:\n%s", web.Diff)
	}
	js, err := report.MarshalJSON(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hunter2", "correct-horse"} {
		if bytes.Contains(js, []byte(secret)) {
			t.Errorf("the JSON report leaks %q", secret)
		}
	}
}

func TestGateNewIgnoresExistingFindings(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"apps/web/deploy.yaml": deployment("web", "nginx:latest")})
	base := r.Commit("base")
	// The pull request touches the file without fixing the finding.
	r.Write(map[string]string{"apps/web/deploy.yaml": deployment("web", "nginx:latest", "  labels: {a: b}\n")})

	cfg := testConfig(t, r.Dir, nil, "--base-ref", base)
	res, err := check(context.Background(), cfg, withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	// The test engine's error and the default checks' findings on web are
	// all there at the base already.
	sources := map[string]int{}
	for _, f := range res.Report.Findings {
		sources[f.Source]++
		if f.Status != finding.StatusUnchanged || f.Object.Name != "web" {
			t.Errorf("%s %s", f.Status, f.String())
		}
	}
	if len(res.Report.Findings) < 2 || sources[finding.SourceCheck] < 2 || statuses(res.Report.Findings)[key{"test/latest-tag", "web", finding.StatusUnchanged}].RuleID == "" {
		t.Fatalf("findings %+v", res.Report.Findings)
	}
	if code := res.ExitCode(config.FailOnError); code != ExitOK {
		t.Errorf("gate new: exit %d for an existing finding", code)
	}
	cfg = testConfig(t, r.Dir, nil, "--base-ref", base, "--gate", "all")
	if res, err = check(context.Background(), cfg, withLatestTag); err != nil {
		t.Fatal(err)
	}
	if code := res.ExitCode(config.FailOnError); code != ExitFindings {
		t.Errorf("gate all: exit %d", code)
	}
	// Without --base-ref every finding counts.
	cfg = testConfig(t, r.Dir, nil)
	if res, err = check(context.Background(), cfg, withLatestTag); err != nil {
		t.Fatal(err)
	}
	if code := res.ExitCode(config.FailOnError); code != ExitFindings || res.Report.Findings[0].Status != "" {
		t.Errorf("single revision: exit %d, status %q", code, res.Report.Findings[0].Status)
	}
}

func TestFixedInputErrorsDoNotFailTheRun(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"apps/a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a\n"})
	base := r.Commit("base")
	r.Write(map[string]string{"apps/a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})

	res, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", base), Analyzers)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Report.Findings) != 1 || res.Report.Findings[0].Status != finding.StatusFixed || !res.Report.Findings[0].InputError {
		t.Fatalf("findings %+v", res.Report.Findings)
	}
	if code := res.ExitCode(config.FailOnError); code != ExitOK {
		t.Errorf("exit %d for a fixed syntax error", code)
	}
}

func TestPathsAddedByThePullRequest(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"README.md": "x\n"})
	base := r.Commit("base")
	r.Write(map[string]string{"apps/new/deploy.yaml": deployment("n", "n:1")})
	res, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", base, "apps/new", "apps/**/*.yaml"), Analyzers)
	if err != nil {
		t.Fatal(err)
	}
	// The default checks find problems in the new Deployment: all new, none
	// "fixed" because the base lacks the path.
	if len(res.Report.Findings) == 0 {
		t.Error("no findings on the new Deployment")
	}
	for _, f := range res.Report.Findings {
		if f.Status != finding.StatusNew || f.InputError || f.Source != finding.SourceCheck || f.Location.File != "apps/new/deploy.yaml" {
			t.Errorf("a path the PR adds: %s %s", f.Status, f.String())
		}
	}
	sec := res.Report.Sections[renderdiff.SectionName].(*renderdiff.Section)
	if len(sec.Targets) != 1 || sec.Targets[0].Status != renderdiff.TargetAdded {
		t.Errorf("diff %+v", sec.Targets)
	}
}

func TestMissingBaseRevisionIsAClearError(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"})
	base := r.Commit("base")
	r.Write(map[string]string{"a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"})
	r.Commit("head")
	clone := t.TempDir()
	gittest.Run(t, clone, "clone", "-q", "--depth=1", "file://"+r.Dir, ".")

	_, err := Check(context.Background(), testConfig(t, clone, nil, "--base-ref", base))
	if err == nil {
		t.Fatal("a missing base was accepted")
	}
	if !strings.HasPrefix(err.Error(), "--base-ref: base revision") || !strings.Contains(err.Error(), "git fetch --no-tags --depth=1 origin "+base) {
		t.Errorf("message: %v", err)
	}
}

func TestSuppressionsInPullRequestMode(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"apps/web/deploy.yaml": deployment("web", "nginx:latest"),
		"apps/api/deploy.yaml": deployment("api", "api:latest"),
	})
	base := r.Commit("base")
	r.Write(map[string]string{
		"apps/web/deploy.yaml": deployment("web", "nginx:latest",
			"  annotations:\n    plumb.dev/ignore: test/latest-tag,test/typo\n    plumb.dev/ignore-reason: pinned by the operator\n"),
		"apps/api/deploy.yaml": deployment("api", "api:latest",
			"  annotations:\n    plumb.dev/ignore: test/latest-tag\n    plumb.dev/ignore-until: \"2025-05-31\"\n"),
		"apps/db/deploy.yaml": deployment("db", "postgres"),
	})
	file := &config.File{Suppressions: []config.Suppression{
		{Object: &config.ObjectSelector{Name: "db"}, Reason: "vendored chart", Line: 2, Column: 5},
	}}
	res, err := check(context.Background(), testConfig(t, r.Dir, file, "--base-ref", base), withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(res.Report.Findings)
	web := got[key{"test/latest-tag", "web", finding.StatusUnchanged}]
	if web.Suppressed == nil || web.Suppressed.Reason != "pinned by the operator" || web.Suppressed.Source.Line != 7 {
		t.Errorf("web: %+v", web.Suppressed)
	}
	db := got[key{"test/latest-tag", "db", finding.StatusNew}]
	if db.Suppressed == nil || db.Suppressed.Kind != "config" {
		t.Errorf("db: %+v", db)
	}
	api := got[key{"test/latest-tag", "api", finding.StatusUnchanged}]
	if api.Suppressed != nil {
		t.Error("an expired annotation still suppresses")
	}
	if _, ok := got[key{"suppression/unused", "web", finding.StatusNew}]; !ok {
		t.Error("no note for the unused id")
	}
	if _, ok := got[key{"suppression/expired", "api", finding.StatusNew}]; !ok {
		t.Error("no note for the expired annotation")
	}
	// The new db finding is suppressed and api's is not new: exit 0.
	if code := res.ExitCode(config.FailOnError); code != ExitOK {
		t.Errorf("exit %d", code)
	}
}

// Inspection rules in pull-request mode: one rules engine, read from the
// working tree, judges both revisions, so a rule the pull request adds
// reports the base's objects too and their findings classify like any
// other: fixed when the pull request fixes them, unchanged, new.
func TestRulesFindingsClassifyInPullRequestMode(t *testing.T) {
	cm := func(name, mode string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: shop}\ndata: {mode: %s}\n", name, mode)
	}
	r := gittest.New(t)
	r.Write(map[string]string{"apps/a.yaml": cm("a", "debug"), "apps/b.yaml": cm("b", "debug"), "apps/c.yaml": cm("c", "prod")})
	base := r.Commit("base")
	r.Write(map[string]string{
		"apps/a.yaml": cm("a", "prod"),
		"apps/c.yaml": cm("c", "debug"),
		"rules/no-debug.yaml": `- uuid: no-debug
  description: Nothing runs in debug mode
  phase: preprocess
  conditions:
    - {op: eq, args: {values: ["{node.data.mode}", debug]}}
  actions:
    - {op: fail, args: {msg: "{node.metadata.name} runs in debug mode"}}
`,
	})
	res, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", base, "--no-default-checks", "--rules", "rules/no-debug.yaml", "apps"), Analyzers)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range findingsOf(res.Report.Findings, "rule/no-debug") {
		got[f.Object.Name] = fmt.Sprintf("%s %s %s:%d", f.Status, f.Message, f.Location.File, f.Location.Line)
	}
	want := map[string]string{
		"a": "fixed a runs in debug mode apps/a.yaml:1",
		"b": "unchanged b runs in debug mode apps/b.yaml:1",
		"c": "new c runs in debug mode apps/c.yaml:1",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rule findings:\n got %v\nwant %v", got, want)
	}
	// The section is the head's: the rule matched b and c there.
	var matched []string
	for _, e := range sectionObjects(t, res.Report) {
		for _, a := range e.Rules {
			if a.UUID == "no-debug" {
				matched = append(matched, e.Object.Name)
			}
		}
	}
	if strings.Join(matched, " ") != "b c" {
		t.Errorf("the rules section lists the rule on %v, want the head's b and c", matched)
	}
	if code := res.ExitCode(config.FailOnError); code != ExitFindings {
		t.Errorf("exit %d with a new rule error", code)
	}
}
