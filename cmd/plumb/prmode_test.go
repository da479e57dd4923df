package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/shard"
)

func configMap(name string, extra string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n%sdata: {k: v}\n", name, extra)
}

// prRepo is a repository whose working tree (the pull request) adds an
// object without a name and fixes another one, on top of a base commit.
func prRepo(t *testing.T) (*gittest.Repo, string) {
	r := gittest.New(t)
	files := map[string]string{
		"apps/a/cm.yaml":  configMap("a", ""),
		"apps/b/cm.yaml":  "kind: ConfigMap\nmetadata: {name: b}\n", // no apiVersion
		"apps/c/cm.yaml":  configMap("c", ""),
		"apps/d/cm.yaml":  configMap("d", ""),
		"apps/e/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", // no name
		"apps/f/bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n",
	}
	r.Write(files)
	base := r.Commit("base")
	r.Write(map[string]string{
		"apps/b/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
		"apps/c/cm.yaml": configMap("c", "  labels: {tier: web}\n"),
		"apps/d/new.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n    note: x\n" +
			"data: {k: v}\n", // a new object without a name
		"apps/g/cm.yaml": configMap("g", "  annotations:\n    plumb.dev/ignore: manifest/missing-name\n"),
	})
	return r, base
}

func TestCheckWithBaseRef(t *testing.T) {
	r, base := prRepo(t)
	// The broken file is unchanged: reported, but it does not fail the
	// pull request; the new object without a name does.
	code, out, errOut := plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base, "--reproducible")
	if code != 1 {
		t.Fatalf("exit %d, want 1 for the new finding\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"apps/d/new.yaml:3:1: error: ConfigMap has no metadata.name: every object needs a name [manifest/missing-name] (new)",
		"apps/e/cm.yaml:3:1: error: ConfigMap has no metadata.name: every object needs a name [manifest/missing-name] (unchanged)",
		"apps/b/cm.yaml:1:1: error: kind ConfigMap has no apiVersion",
		"[manifest/missing-api-version] (fixed)",
		"apps/f/bad.yaml:3:1: error: YAML syntax error: did not find expected ',' or '}' [manifest/yaml-syntax] (unchanged)",
		"apps/g/cm.yaml:6:5: note: plumb.dev/ignore lists manifest/missing-name, but no finding of it is reported on ConfigMap g: remove it from the list [suppression/unused] (new)",
		"4 findings: 3 errors, 0 warnings, 1 note in 4 files; 2 new, 2 unchanged, 1 fixed;",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Without the broken file: the new error fails the run.
	r.Remove("apps/f")
	if code, out, _ := plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base); code != 1 {
		t.Errorf("a new error: exit %d\n%s", code, out)
	}
	// Without the new error, the gate passes on the existing one and fails
	// with --gate all.
	r.Remove("apps/d/new.yaml")
	if code, out, _ := plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base); code != 0 {
		t.Errorf("gate new with only existing errors: exit %d\n%s", code, out)
	}
	if code, _, _ := plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base, "--gate", "all"); code != 1 {
		t.Errorf("gate all: exit %d", code)
	}

	code, out, _ = plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base, "--format", "json")
	var rep struct {
		Findings []struct {
			RuleID string `json:"rule_id"`
			Status string `json:"status"`
		} `json:"findings"`
		Summary struct {
			Statuses map[string]int `json:"statuses"`
		} `json:"summary"`
		Diff struct {
			BaseCommit string `json:"base_commit"`
			Targets    []struct {
				Name string `json:"name"`
				Diff string `json:"diff"`
			} `json:"targets"`
		} `json:"diff"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
	if rep.Diff.BaseCommit != base || len(rep.Diff.Targets) != 3 {
		t.Errorf("diff section: %+v", rep.Diff)
	}
	if rep.Summary.Statuses["fixed"] != 2 {
		t.Errorf("statuses %v", rep.Summary.Statuses)
	}
}

func TestCheckWithAMissingBase(t *testing.T) {
	r, _ := prRepo(t)
	code, _, errOut := plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", "origin/main")
	if code != 2 || !strings.Contains(errOut, `plumb: --base-ref: base revision "origin/main" is not in this repository`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestShardsMergeIntoTheUnshardedReport(t *testing.T) {
	r, base := prRepo(t)
	out := t.TempDir()
	args := []string{"check", "--root", r.Dir, r.Dir, "--base-ref", base, "--fail-on", "never"}
	_, whole, _ := plumb(t, append(args, "--reproducible", "--format", "json")...)
	var shards []string
	for i := 1; i <= 3; i++ {
		file := filepath.Join(out, fmt.Sprintf("shard-%d.json", i))
		shards = append(shards, file)
		if code, _, errOut := plumb(t, append(args, "--shard", fmt.Sprintf("%d/3", i), "--format", "json="+file)...); code != 0 {
			t.Fatalf("shard %d: exit %d %s", i, code, errOut)
		}
	}
	code, merged, errOut := plumb(t, append([]string{"merge", "--reproducible", "--format", "json"}, shards...)...)
	if code != 1 {
		t.Errorf("merge exit %d (the merged report has a new error): %s", code, errOut)
	}
	if merged != whole {
		t.Errorf("merged report differs from the unsharded one:\n%s\n---\n%s", merged, whole)
	}
	// Every other format written from the merged report is the unsharded
	// run's too.
	for _, format := range []string{"sarif", "markdown", "text"} {
		_, want, _ := plumb(t, append(args, "--reproducible", "--format", format)...)
		_, got, _ := plumb(t, append([]string{"merge", "--reproducible", "--format", format}, shards...)...)
		if got != want {
			t.Errorf("%s from the merged report differs from the unsharded run's:\n%s\n---\n%s", format, got, want)
		}
	}
	// Text from the merged report, and the gate applied to it.
	code, text, _ := plumb(t, append([]string{"merge", "--fail-on", "never", "--format", "text"}, shards...)...)
	if code != 0 || !strings.Contains(text, "(new)") {
		t.Errorf("merge text: exit %d\n%s", code, text)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", shards[0], shards[2]}, "missing shard reports: 2/3"},
		{[]string{"merge", filepath.Join(out, "nope.json")}, "no such file"},
		{[]string{"merge", "--gate", "some", shards[0]}, `--gate: gate "some"`},
		{[]string{"merge"}, "requires at least 1 arg"},
		{[]string{"check", "--shard", "4/3"}, `--shard: shard "4/3"`},
	} {
		code, _, errOut := plumb(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
	notJSON := filepath.Join(out, "x.json")
	if err := os.WriteFile(notJSON, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := plumb(t, "merge", notJSON); code != 2 || !strings.Contains(errOut, "x.json: not a plumb JSON report") {
		t.Errorf("not JSON: exit %d %q", code, errOut)
	}
}

// TestDemoShardsMergeWithEveryEngine shards the demo repository with the
// reference comparison and the KubeVirt validations on, and every default
// check: their sections merge back into the unsharded report byte for byte.
func TestDemoShardsMergeWithEveryEngine(t *testing.T) {
	args := []string{"check", "--root", "../..", "../../fixtures/demo", "--reference", "../../fixtures/reference", "--fail-on", "never", "--reproducible"}
	_, whole, _ := plumb(t, append(args, "--format", "json")...)
	for _, section := range []string{`"compare": {`, `"kubevirt": {`, `"virtual_machines": [`, `"checks": {`, `"check_id": "C10001"`, `"check_id": "H10001"`, `"rules": {`} {
		if !strings.Contains(whole, section) {
			t.Fatalf("the unsharded report lacks %s", section)
		}
	}
	dir := t.TempDir()
	for _, n := range []int{2, 3, 4} {
		code, merged, errOut := mergeShards(t, dir, args, n)
		if code != 0 {
			t.Fatalf("merge of %d: exit %d %s", n, code, errOut)
		}
		if merged != whole {
			t.Errorf("%d shards merged differ from the unsharded report:\n%s", n, firstLineDiff(merged, whole))
		}
	}
	// Every target listed, merged as well. Shards run with other details
	// are not shards of one run.
	full := append(slices.Clip(args), "--checks-detail", "full")
	_, wholeFull, _ := plumb(t, append(full, "--format", "json")...)
	if wholeFull == whole {
		t.Fatal("--checks-detail full wrote the summary")
	}
	code, merged, errOut := mergeShards(t, dir, full, 3)
	if code != 0 || merged != wholeFull {
		t.Errorf("3 shards with --checks-detail full: exit %d %s\n%s", code, errOut, firstLineDiff(merged, wholeFull))
	}
	files := shardFiles(dir, 3)
	if code, _, errOut := plumb(t, append(slices.Clip(args), "--shard", "2/3", "--format", "json="+files[1])...); code != 0 {
		t.Fatalf("shard 2/3: exit %d %s", code, errOut)
	}
	code, _, errOut = plumb(t, append([]string{"merge", "--format", "json"}, files...)...)
	if want := "shard 2 was run with --checks-detail summary, shard 1 with full: merge the shards of one run"; code != 2 || !strings.Contains(errOut, want) {
		t.Errorf("shards of two details: exit %d %q, want %q", code, errOut, want)
	}
}

// The demo's cart environments deploy the same workload under two names
// (the dev overlay's namePrefix makes it dev-cart): the checks that compare
// environments compare the names written in the manifests and find nothing.
func TestDemoEnvironmentsDoNotDifferByNamePrefix(t *testing.T) {
	_, out, _ := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--fail-on", "never", "--format", "json", "--reproducible")
	if !strings.Contains(out, `"check_id": "H10001"`) {
		t.Fatal("H10001 did not run on the demo's environments")
	}
	if strings.Contains(out, `"rule_id": "check/H10001"`) {
		t.Errorf("the demo's environments differ only by the dev namePrefix, yet H10001 reports them:\n%s", out)
	}
}

// testdata/environments deploys one app in three environments that name
// their objects differently (namePrefix, nameSuffix) and really differ in
// production (a CronJob, a ConfigMap key): H10001 and H10002 report
// production only. Their findings count the targets returning each value,
// which no shard knows when the environments fall into different shards.
// The shards leave those findings to merge, which decides them over every
// shard's values: split or not, the merged report, and every format
// written from it, is the unsharded run's.
func TestShardsSplittingComparedEnvironments(t *testing.T) {
	const repo = "testdata/environments/shop/overlays/"
	args := []string{"check", "--root", ".", "testdata/environments", "--fail-on", "never", "--reproducible"}
	_, text, _ := plumb(t, append(args, "--format", "text")...)
	var compared []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "[check/H1000") {
			compared = append(compared, line)
		}
	}
	want := []string{
		`testdata/environments/shop/base/kustomization.yaml:4:5: warning: The environments do not configure the same ConfigMap keys: ["settings:FEATURE_X,FEATURE_Y,LOG_LEVEL"] here, but ["settings:FEATURE_X,LOG_LEVEL"] (2 of 3) elsewhere in application "testdata/environments/shop" [check/H10002]`,
		`testdata/environments/shop/overlays/prod/report.yaml:1:1: warning: The environments do not deploy the same workloads: ["CronJob/report","Deployment/shop"] here, but ["Deployment/shop"] (2 of 3) elsewhere in application "testdata/environments/shop" [check/H10001]`,
	}
	if !slices.Equal(compared, want) {
		t.Fatalf("findings of the environment checks:\n%s\nwant:\n%s", strings.Join(compared, "\n"), strings.Join(want, "\n"))
	}
	_, whole, _ := plumb(t, append(args, "--format", "json")...)
	dev, prod := repo+"dev", repo+"prod"
	dir := t.TempDir()
	split := 0
	for n := 2; n <= 6; n++ {
		if shard.Of(dev, n) != shard.Of(prod, n) {
			split++
		}
		code, merged, errOut := mergeShards(t, dir, args, n)
		if code != 0 || merged != whole {
			t.Errorf("%d shards: exit %d %s\n%s", n, code, errOut, firstLineDiff(merged, whole))
		}
	}
	if split == 0 {
		t.Fatal("2..6 shards should split the environments at least once")
	}
	// Split 3 ways, in every format.
	files := shardFiles(dir, 3)
	for _, format := range []string{"text", "sarif", "markdown"} {
		_, want, _ := plumb(t, append(args, "--format", format)...)
		code, got, errOut := plumb(t, append([]string{"merge", "--reproducible", "--fail-on", "never", "--format", format}, files...)...)
		if code != 0 || got != want {
			t.Errorf("%s from 3 merged shards: exit %d %s\n%s", format, code, errOut, firstLineDiff(got, want))
		}
	}
	if _, merged, _ := plumb(t, append([]string{"merge", "--format", "text"}, files...)...); !strings.Contains(merged, want[1]) {
		t.Errorf("the merged text lacks the H10001 finding:\n%s", merged)
	}
}

// testdata/monorepo holds two applications: web (dev, prod), whose
// environments agree, and api (dev, staging, prod), where production runs a
// CronJob and configures a key the others lack. The checks that compare
// environments compare each application's own: api's production is
// reported, counted against api's environments only, and nothing of web,
// although web and api deploy different workloads. Sharded every way, the
// merged report is the unsharded one, byte for byte.
func TestMonorepoComparesEnvironmentsPerApplication(t *testing.T) {
	args := []string{"check", "--root", ".", "testdata/monorepo", "--fail-on", "never", "--reproducible"}
	_, text, _ := plumb(t, append(args, "--format", "text")...)
	var compared []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "[check/H1000") {
			compared = append(compared, line)
		}
	}
	want := []string{
		`testdata/monorepo/apps/api/base/kustomization.yaml:4:5: warning: The environments do not configure the same ConfigMap keys: ` +
			`["api-settings:DB_POOL,FEATURE_SEARCH,LOG_LEVEL"] here, but ["api-settings:DB_POOL,LOG_LEVEL"] (2 of 3) elsewhere in application "testdata/monorepo/apps/api" [check/H10002]`,
		`testdata/monorepo/apps/api/overlays/prod/reindex.yaml:1:1: warning: The environments do not deploy the same workloads: ` +
			`["CronJob/reindex","Deployment/api"] here, but ["Deployment/api"] (2 of 3) elsewhere in application "testdata/monorepo/apps/api" [check/H10001]`,
	}
	if !slices.Equal(compared, want) {
		t.Fatalf("findings of the environment checks:\n%s\nwant:\n%s", strings.Join(compared, "\n"), strings.Join(want, "\n"))
	}

	// One Result: each check ran on the five environments and failed
	// because api's differ.
	_, whole, _ := plumb(t, append(args, "--format", "json")...)
	var rep struct {
		Findings []struct {
			RuleID string `json:"rule_id"`
			Object struct {
				Target string `json:"target"`
			} `json:"object"`
		} `json:"findings"`
		Checks struct {
			CheckResults []struct {
				CheckID            string `json:"check_id"`
				Result             string `json:"result"`
				AgentsCheckResults []struct {
					AgentID string `json:"agent_id"`
				} `json:"agents_check_results"`
				AgentsPassed       int `json:"agents_passed"`
				ExpectationResults []struct {
					Result any `json:"result"`
				} `json:"expectation_results"`
			} `json:"check_results"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(whole), &rep); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, cr := range rep.Checks.CheckResults {
		if cr.CheckID != "H10001" && cr.CheckID != "H10002" {
			continue
		}
		ran++
		if cr.Result != "warning" || len(cr.AgentsCheckResults)+cr.AgentsPassed != 5 || len(cr.ExpectationResults) != 1 || cr.ExpectationResults[0].Result != false {
			t.Errorf("%s: result %s on %d+%d targets, expectations %v", cr.CheckID, cr.Result, len(cr.AgentsCheckResults), cr.AgentsPassed, cr.ExpectationResults)
		}
		// The section lists api's environments, which differ; web's agree
		// and are counted.
		for _, a := range cr.AgentsCheckResults {
			if !strings.HasPrefix(a.AgentID, "testdata/monorepo/apps/api/") {
				t.Errorf("%s lists %s, whose application's environments agree", cr.CheckID, a.AgentID)
			}
		}
	}
	if ran != 2 {
		t.Fatalf("H10001 and H10002 ran %d times", ran)
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.RuleID, "check/H1000") && f.Object.Target != "testdata/monorepo/apps/api/overlays/prod" {
			t.Errorf("%s reported on %s", f.RuleID, f.Object.Target)
		}
	}

	// An application given for the whole repository wins over the
	// built-in rule's: every environment is compared with every other,
	// as before applications existed, and web's are reported too.
	_, text, _ = plumb(t, append(args, "--format", "text", "--env", "application=whole")...)
	if n := strings.Count(text, `elsewhere in application "whole" [check/H10001]`); n != 3 || !strings.Contains(text, "testdata/monorepo/apps/web/base/deployment.yaml:1:1: warning: "+
		`The environments do not deploy the same workloads: ["Deployment/web"] here, but ["Deployment/api"] (2 of 5), ["CronJob/reindex","Deployment/api"] (1 of 5) elsewhere in application "whole"`) {
		t.Errorf("--env application=whole: %d H10001 lines\n%s", n, text)
	}

	const apps = "testdata/monorepo/apps/"
	dir := t.TempDir()
	splitAPI, splitWeb := false, false
	for n := 2; n <= 6; n++ {
		splitAPI = splitAPI || shard.Of(apps+"api/overlays/prod", n) != shard.Of(apps+"api/overlays/dev", n) ||
			shard.Of(apps+"api/overlays/prod", n) != shard.Of(apps+"api/overlays/staging", n)
		splitWeb = splitWeb || shard.Of(apps+"web/overlays/prod", n) != shard.Of(apps+"web/overlays/dev", n)
		code, merged, errOut := mergeShards(t, dir, args, n)
		if code != 0 || merged != whole {
			t.Errorf("%d shards: exit %d %s\n%s", n, code, errOut, firstLineDiff(merged, whole))
		}
	}
	if !splitAPI || !splitWeb {
		t.Fatalf("2..6 shards should split api's environments (%v) and web's (%v) at least once", splitAPI, splitWeb)
	}
}

// firstLineDiff shows where two reports first differ.
func firstLineDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}

// shardFiles names the JSON reports mergeShards writes for n shards.
func shardFiles(dir string, n int) []string {
	var files []string
	for i := 1; i <= n; i++ {
		files = append(files, filepath.Join(dir, fmt.Sprintf("s%d-%d.json", n, i)))
	}
	return files
}

// mergeShards runs check with args as n shards and merges their JSON
// reports.
func mergeShards(t *testing.T, dir string, args []string, n int) (int, string, string) {
	t.Helper()
	files := shardFiles(dir, n)
	for i, f := range files {
		i++
		if code, _, errOut := plumb(t, append(args, "--shard", fmt.Sprintf("%d/%d", i, n), "--format", "json="+f)...); code != 0 {
			t.Fatalf("shard %d/%d: exit %d %s", i, n, code, errOut)
		}
	}
	return plumb(t, append([]string{"merge", "--reproducible", "--fail-on", "never", "--format", "json"}, files...)...)
}
