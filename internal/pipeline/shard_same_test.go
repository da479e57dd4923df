package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/checks"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/shard"
	"github.com/plumb-ci/plumb/internal/suppress"
)

// envRepo is a kustomize repository with five environments (one overlay
// each, so the default catalog's H10001 and H10002 compare them) that
// differ. At the base revision dev deploys a debug Deployment and qa a
// migration Job; the pull request removes dev's (fixed), keeps qa's
// (unchanged) and gives perf a CronJob (new). prod and staging configure
// ConfigMap keys a and b, qa and perf only a, dev none: no value of H10002
// has a strict majority, so every environment is reported, and values with
// as many targets are named in target order (perf's before prod's).
//
// A second application, apps/billing, runs in dev and prod with other workloads
// and keys than the root application's; its environments agree with each
// other at both revisions (the pull request adds a key to both), so it has
// no finding and does not count in the root application's.
func envRepo(t *testing.T) (*gittest.Repo, string) {
	r := gittest.New(t)
	workload := func(kind, name string) string {
		return fmt.Sprintf("apiVersion: batch/v1\nkind: %s\nmetadata:\n  name: %s\n  namespace: shop\n", kind, name)
	}
	overlay := func(extra string) string {
		return "resources:\n  - ../../base\n" + extra
	}
	keys := func(ks ...string) string {
		out := "configMapGenerator:\n  - name: settings\n    literals:\n"
		for _, k := range ks {
			out += "      - " + k + "=1\n"
		}
		return out
	}
	r.Write(map[string]string{
		"base/kustomization.yaml":                       "resources:\n  - deployment.yaml\n",
		"base/deployment.yaml":                          deployment("web", "nginx:1.25"),
		"overlays/prod/kustomization.yaml":              overlay(keys("a", "b")),
		"overlays/staging/kustomization.yaml":           overlay(keys("a", "b")),
		"overlays/dev/kustomization.yaml":               overlay("  - debug.yaml\n"),
		"overlays/dev/debug.yaml":                       deployment("debug", "busybox:1.36"),
		"overlays/qa/kustomization.yaml":                overlay("  - migrate.yaml\n" + keys("a")),
		"overlays/qa/migrate.yaml":                      workload("Job", "migrate"),
		"overlays/perf/kustomization.yaml":              overlay(keys("a")),
		"apps/billing/base/kustomization.yaml":          "resources:\n  - deployment.yaml\n",
		"apps/billing/base/deployment.yaml":             deployment("billing", "billing:1.0"),
		"apps/billing/overlays/dev/kustomization.yaml":  overlay(keys("x")),
		"apps/billing/overlays/prod/kustomization.yaml": overlay(keys("x")),
	})
	base := r.Commit("base")
	r.Write(map[string]string{
		"apps/billing/overlays/dev/kustomization.yaml":  overlay(keys("x", "y")),
		"apps/billing/overlays/prod/kustomization.yaml": overlay(keys("x", "y")),
		"overlays/dev/kustomization.yaml":               overlay(""),
		"overlays/perf/kustomization.yaml":              overlay("  - load.yaml\n" + keys("a")),
		"overlays/perf/load.yaml":                       workload("CronJob", "load"),
	})
	r.Remove("overlays/dev/debug.yaml")
	return r, base
}

// envSuppressions accept qa's difference, name perf's with an expired date
// (so perf's finding is reported with a note), and select prod's H10001
// finding, which does not exist: that entry stays unused.
func envSuppressions() *config.File {
	return &config.File{Suppressions: []config.Suppression{
		{Rule: "check/H10001", Object: &config.ObjectSelector{Target: "overlays/qa"}, Reason: "qa runs migrations", Line: 2, Column: 5},
		{Rule: "check/H10001", Object: &config.ObjectSelector{Target: "overlays/perf"}, Reason: "load tests", Until: "2025-01-01", Line: 6, Column: 5},
		{Rule: "check/H10001", Object: &config.ObjectSelector{Target: "overlays/prod"}, Reason: "never needed", Line: 10, Column: 5},
	}}
}

// shardReports runs n shards with args and reads their JSON reports back,
// as plumb merge does.
func shardReports(t *testing.T, dir string, file *config.File, n int, args ...string) []report.ShardReport {
	t.Helper()
	var parts []report.ShardReport
	for i := 1; i <= n; i++ {
		res, err := check(context.Background(), testConfig(t, dir, file, append([]string{"--shard", fmt.Sprintf("%d/%d", i, n)}, args...)...), Analyzers)
		if err != nil {
			t.Fatal(err)
		}
		read, err := report.ReadJSON(marshal(t, res.Report))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, report.ShardReport{Name: fmt.Sprintf("shard-%d.json", i), Report: read})
	}
	return parts
}

// Environments that differ, in shards that split them every way: the
// merged report is the unsharded one, byte for byte — H10001's and H10002's
// findings with their counts, their statuses against the base revision,
// the suppressions they select, and the checks section.
func TestShardsDecideComparedEnvironments(t *testing.T) {
	r, base := envRepo(t)
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"single revision", nil},
		{"pull request", []string{"--base-ref", base}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			whole, err := check(context.Background(), testConfig(t, r.Dir, envSuppressions(), mode.args...), Analyzers)
			if err != nil {
				t.Fatal(err)
			}
			want := marshal(t, whole.Report)
			for _, n := range []int{1, 2, 3, 4, 5} {
				parts := shardReports(t, r.Dir, envSuppressions(), n, mode.args...)
				for _, p := range parts {
					for _, f := range p.Report.Findings {
						if strings.HasPrefix(f.RuleID, "check/H1000") {
							t.Fatalf("%d shards: %s reports an expect_same finding no shard can decide: %s", n, p.Name, f.Message)
						}
					}
				}
				merged, err := Merge(parts)
				if err != nil {
					t.Fatalf("%d shards: %v", n, err)
				}
				if got := marshal(t, merged); !bytes.Equal(got, want) {
					t.Errorf("%d shards merged differ from the unsharded report:\n%s", n, firstDifference(got, want))
				}
			}
		})
	}
	// The shard counts above split the environments.
	if shard.Of("overlays/qa", 2) == shard.Of("overlays/perf", 2) && shard.Of("overlays/qa", 3) == shard.Of("overlays/perf", 3) {
		t.Fatal("no shard count separates qa from perf")
	}
	billingSplit := false
	for n := 2; n <= 5; n++ {
		billingSplit = billingSplit || shard.Of("apps/billing/overlays/dev", n) != shard.Of("apps/billing/overlays/prod", n)
	}
	if !billingSplit {
		t.Fatal("no shard count separates billing's environments")
	}
}

// What the unsharded run reports, so that the test above compares real
// findings.
func TestComparedEnvironmentsFindings(t *testing.T) {
	r, base := envRepo(t)
	res, err := check(context.Background(), testConfig(t, r.Dir, envSuppressions(), "--base-ref", base), Analyzers)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Report.Findings {
		if !strings.HasPrefix(f.RuleID, "check/H1000") {
			continue
		}
		s := fmt.Sprintf("%s %s %s: %s", f.RuleID, f.Object.Target, f.Status, f.Message)
		if f.Suppressed != nil {
			s += " [suppressed: " + f.Suppressed.Reason + "]"
		}
		for _, rel := range f.Related {
			if strings.Contains(rel.Message, "expired") {
				s += fmt.Sprintf(" [%s:%d %s]", rel.File, rel.Line, rel.Message)
			}
		}
		got = append(got, s)
	}
	slices.Sort(got)
	const workloads = "The environments do not deploy the same workloads: "
	const keys = "The environments do not configure the same ConfigMap keys: "
	want := []string{
		`check/H10001 overlays/dev fixed: ` + workloads + `["Deployment/debug","Deployment/web"] here, but ["Deployment/web"] (3 of 5), ["Deployment/web","Job/migrate"] (1 of 5) elsewhere`,
		`check/H10001 overlays/perf new: ` + workloads + `["CronJob/load","Deployment/web"] here, but ["Deployment/web"] (3 of 5), ["Deployment/web","Job/migrate"] (1 of 5) elsewhere` +
			` [.plumb.yaml:6 a suppression of this finding expired after 2025-01-01 (reason given: load tests)]`,
		`check/H10001 overlays/qa unchanged: ` + workloads + `["Deployment/web","Job/migrate"] here, but ["Deployment/web"] (3 of 5), ["CronJob/load","Deployment/web"] (1 of 5) elsewhere [suppressed: qa runs migrations]`,
		`check/H10002 overlays/dev unchanged: ` + keys + `[] here, but ["settings:a"] (2 of 5), ["settings:a,b"] (2 of 5) elsewhere`,
		`check/H10002 overlays/perf unchanged: ` + keys + `["settings:a"] here, but ["settings:a,b"] (2 of 5), [] (1 of 5) elsewhere`,
		`check/H10002 overlays/prod unchanged: ` + keys + `["settings:a,b"] here, but ["settings:a"] (2 of 5), [] (1 of 5) elsewhere`,
		`check/H10002 overlays/qa unchanged: ` + keys + `["settings:a"] here, but ["settings:a,b"] (2 of 5), [] (1 of 5) elsewhere`,
		`check/H10002 overlays/staging unchanged: ` + keys + `["settings:a,b"] here, but ["settings:a"] (2 of 5), [] (1 of 5) elsewhere`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// apps/billing took part, in H10001 and H10002, with no finding.
	for _, cr := range res.Report.Sections["checks"].(*checks.Result).CheckResults {
		if !strings.HasPrefix(cr.CheckID, "H1000") {
			continue
		}
		var agents []string
		for a := range cr.AgentsCheckResults.All() {
			agents = append(agents, a.AgentID)
		}
		if !slices.Contains(agents, "apps/billing/overlays/dev") || !slices.Contains(agents, "apps/billing/overlays/prod") || len(agents) != 7 {
			t.Errorf("%s ran on %v", cr.CheckID, agents)
		}
	}
	sec := res.Report.Sections[suppress.SectionName].(*suppress.Section)
	var used []bool
	for _, e := range sec.Config {
		used = append(used, e.Used)
	}
	if !slices.Equal(used, []bool{true, true, false}) {
		t.Errorf("suppressions used %v, want qa's and perf's", used)
	}
	if findingCount(res.Report.Findings, finding.StatusFixed) != 1 {
		t.Errorf("want dev's fixed finding")
	}
}

func findingCount(fs []finding.Finding, status string) int {
	n := 0
	for _, f := range fs {
		if f.Status == status && strings.HasPrefix(f.RuleID, "check/H1000") {
			n++
		}
	}
	return n
}

// An expect_same check over objects whose values differ across shards
// cannot be merged: its findings are on objects, which each shard's
// inspection rules and annotations have already seen (or not). merge says
// so; shards that keep the differing objects together still merge exactly.
func TestShardsRefuseObjectsComparedAcrossShards(t *testing.T) {
	files := map[string]string{
		"checks/X10001.yaml": `id: X10001
name: Every Deployment runs the same image
group: Test
description: Images agree.
remediation: Use one image.
severity: warning
metadata:
  target_type: object
  kind: Deployment
facts:
  - name: containers
    gatherer: containers@v1
    argument: all
expectations:
  - name: same_image
    expect_same: facts.containers.map(c, c.image)
`,
	}
	var apps []string
	for i := 0; i < 6; i++ {
		app := fmt.Sprintf("apps/app%d", i)
		apps = append(apps, app)
		image := "nginx:1.25"
		if i == 0 {
			image = "nginx:1.27"
		}
		files[app+"/deploy.yaml"] = deployment(fmt.Sprintf("app%d", i), image)
	}
	r := gittest.New(t)
	r.Write(files)
	args := []string{"--checks", "checks", "--no-default-checks", "apps"}
	whole, err := check(context.Background(), testConfig(t, r.Dir, nil, args...), Analyzers)
	if err != nil {
		t.Fatal(err)
	}
	if findingCount := len(findingsOf(whole.Report.Findings, "check/X10001")); findingCount != 1 {
		t.Fatalf("the unsharded run has %d X10001 findings, want app0's", findingCount)
	}
	want := marshal(t, whole.Report)
	refused, merged := 0, 0
	for _, n := range []int{1, 2, 3, 4} {
		out, err := Merge(shardReports(t, r.Dir, nil, n, args...))
		together := true
		for _, app := range apps[1:] {
			together = together && shard.Of(app, n) == shard.Of(apps[0], n)
		}
		if together {
			merged++
			if err != nil {
				t.Fatalf("%d shards: %v", n, err)
			}
			if got := marshal(t, out); !bytes.Equal(got, want) {
				t.Errorf("%d shards: %s", n, firstDifference(got, want))
			}
			continue
		}
		refused++
		if err == nil || !strings.Contains(err.Error(), `merging the "checks" sections: check X10001: expect_same same_image returns different values on objects of render targets in different shards`) {
			t.Errorf("%d shards split the objects: %v", n, err)
		}
	}
	if refused == 0 || merged == 0 {
		t.Fatalf("merged %d, refused %d: want both", merged, refused)
	}
}
