package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/renderdiff"
	"github.com/plumb-ci/plumb/internal/report"
)

const kBase = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25
        - name: cache
          image: redis:latest
`

// kustomizeRepo commits a base rendered by three overlays: prod patches the
// replicas and the web image, staging adds a Secret from a generator, dev
// uses the base as it is.
func kustomizeRepo(t *testing.T) (*gittest.Repo, string) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"base/kustomization.yaml":          "resources:\n  - deployment.yaml\n",
		"base/deployment.yaml":             kBase,
		"overlays/prod/kustomization.yaml": "resources:\n  - ../../base\npatches:\n  - path: patch.yaml\n",
		"overlays/prod/patch.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25.3
`,
		"overlays/staging/kustomization.yaml": "resources:\n  - ../../base\nsecretGenerator:\n  - name: db\n    namespace: shop\n    literals:\n      - password=hunter2\n",
		"overlays/dev/kustomization.yaml":     "resources:\n  - ../../base\n",
	})
	return r, r.Commit("base")
}

type kFinding struct {
	name, target, status, file string
	line                       int
}

func kFindings(fs []finding.Finding) []kFinding {
	var out []kFinding
	for _, f := range fs {
		if f.RuleID != "test/latest-tag" {
			continue
		}
		out = append(out, kFinding{f.Path.String(), f.Object.Target, f.Status, f.Location.File, f.Location.Line})
	}
	return out
}

func hasFinding(t *testing.T, fs []kFinding, want kFinding) {
	t.Helper()
	for _, f := range fs {
		if f == want {
			return
		}
	}
	t.Errorf("no finding %+v among\n%+v", want, fs)
}

// An overlay patch that changes a rendered field: the finding is new on the
// overlay's object, at the patch line, though the file the base defines the
// field in did not change; the other overlays are untouched.
func TestKustomizeOverlayEditIsNew(t *testing.T) {
	r, base := kustomizeRepo(t)
	r.Write(map[string]string{"overlays/prod/patch.yaml": strings.Replace(
		r.Git("show", "HEAD:overlays/prod/patch.yaml")+"\n", "nginx:1.25.3", "nginx:latest", 1)})

	res, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", base), withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	fs := kFindings(res.Report.Findings)
	img := "spec.template.spec.containers[0].image"
	hasFinding(t, fs, kFinding{img, "overlays/prod", finding.StatusNew, "overlays/prod/patch.yaml", 12})
	cache := "spec.template.spec.containers[1].image"
	for _, target := range []string{"overlays/prod", "overlays/staging", "overlays/dev"} {
		hasFinding(t, fs, kFinding{cache, target, finding.StatusUnchanged, "base/deployment.yaml", 14})
	}
	if len(fs) != 4 {
		t.Errorf("findings %+v", fs)
	}
	// staging and dev read the same files at both revisions: built once.
	if res.reusedBuilds != 2 {
		t.Errorf("%d targets built once for both revisions, want 2 (staging, dev)", res.reusedBuilds)
	}
	sec := res.Report.Sections[renderdiff.SectionName].(*renderdiff.Section)
	if len(sec.Targets) != 1 || sec.Targets[0].Name != "overlays/prod" {
		t.Fatalf("diffed targets %+v", sec.Targets)
	}
	// Exactly the changed field.
	if d := sec.Targets[0].Diff; sec.Targets[0].LinesAdded != 1 || sec.Targets[0].LinesRemoved != 1 ||
		!strings.Contains(d, "-        - image: nginx:1.25.3\n+        - image: nginx:latest\n") {
		t.Errorf("diff:\n%s", d)
	}
}

// A change to a base every overlay renders: new findings in each overlay
// whose rendering changes (prod patches the field and keeps its value), at
// the base's line; the diff shows the change in each of them; the finding
// the change removes is fixed everywhere.
func TestKustomizeSharedBaseEdit(t *testing.T) {
	r, base := kustomizeRepo(t)
	r.Write(map[string]string{"base/deployment.yaml": strings.NewReplacer(
		"image: nginx:1.25", "image: nginx", // no tag: a new finding where not patched
		"image: redis:latest", "image: redis:7.2", // pinned: fixed
	).Replace(kBase)})

	res, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", base), withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	fs := kFindings(res.Report.Findings)
	img, cache := "spec.template.spec.containers[0].image", "spec.template.spec.containers[1].image"
	for _, target := range []string{"overlays/staging", "overlays/dev"} {
		hasFinding(t, fs, kFinding{img, target, finding.StatusNew, "base/deployment.yaml", 12})
	}
	for _, target := range []string{"overlays/prod", "overlays/staging", "overlays/dev"} {
		hasFinding(t, fs, kFinding{cache, target, finding.StatusFixed, "base/deployment.yaml", 14})
	}
	if len(fs) != 5 {
		t.Errorf("findings %+v", fs)
	}
	if res.reusedBuilds != 0 {
		t.Errorf("%d targets built once for both revisions; every overlay reads the changed base", res.reusedBuilds)
	}
	sec := res.Report.Sections[renderdiff.SectionName].(*renderdiff.Section)
	var names []string
	for _, tg := range sec.Targets {
		names = append(names, tg.Name)
		if !strings.Contains(tg.Diff, "-        - image: redis:latest\n+        - image: redis:7.2\n") {
			t.Errorf("%s diff:\n%s", tg.Name, tg.Diff)
		}
	}
	if strings.Join(names, " ") != "overlays/dev overlays/prod overlays/staging" {
		t.Errorf("diffed targets %v", names)
	}
}

// A generated Secret that changes shows as changed, masked.
func TestKustomizeSecretChangeIsMasked(t *testing.T) {
	r, base := kustomizeRepo(t)
	r.Write(map[string]string{"overlays/staging/kustomization.yaml": "resources:\n  - ../../base\nsecretGenerator:\n  - name: db\n    namespace: shop\n    literals:\n      - password=correct-horse\n"})
	res, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", base), withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	sec := res.Report.Sections[renderdiff.SectionName].(*renderdiff.Section)
	if len(sec.Targets) != 1 {
		t.Fatalf("targets %+v", sec.Targets)
	}
	d := sec.Targets[0].Diff
	for _, secret := range []string{"hunter2", "correct-horse", "aHVudGVyMg", "Y29ycmVjdC1ob3JzZ"} {
		if strings.Contains(d, secret) {
			t.Errorf("the diff leaks %q:\n%s", secret, d)
		}
	}
	if !strings.Contains(d, "<redacted>") {
		t.Errorf("diff:\n%s", d)
	}
}

// Moving an overlay's patch file keeps its findings unchanged.
func TestKustomizeRenamedPatch(t *testing.T) {
	r, base := kustomizeRepo(t)
	r.Write(map[string]string{"overlays/prod/patch.yaml": strings.Replace(
		r.Git("show", "HEAD:overlays/prod/patch.yaml")+"\n", "nginx:1.25.3", "nginx:latest", 1)})
	mid := r.Commit("prod uses latest")
	r.Git("mv", "overlays/prod/patch.yaml", "overlays/prod/web.yaml")
	r.Write(map[string]string{"overlays/prod/kustomization.yaml": "resources:\n  - ../../base\npatches:\n  - path: web.yaml\n"})
	_ = base

	res, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", mid), withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	fs := kFindings(res.Report.Findings)
	hasFinding(t, fs, kFinding{"spec.template.spec.containers[0].image", "overlays/prod", finding.StatusUnchanged, "overlays/prod/web.yaml", 12})
	for _, f := range fs {
		if f.status != finding.StatusUnchanged {
			t.Errorf("after a rename: %+v", f)
		}
	}
	if sec := res.Report.Sections[renderdiff.SectionName].(*renderdiff.Section); len(sec.Targets) != 0 {
		t.Errorf("a rename changes no rendered object: %+v", sec.Targets)
	}
}

// Kustomize targets shard and merge back byte for byte, in PR mode too.
func TestKustomizeShardsMerge(t *testing.T) {
	r, base := kustomizeRepo(t)
	r.Write(map[string]string{"base/deployment.yaml": strings.Replace(kBase, "redis:latest", "redis:7.2", 1)})
	whole, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", base), withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	want := marshal(t, whole.Report)
	for _, n := range []int{2, 3} {
		var parts []report.ShardReport
		for i := 1; i <= n; i++ {
			res, err := check(context.Background(), testConfig(t, r.Dir, nil, "--base-ref", base, "--shard", fmt.Sprintf("%d/%d", i, n)), withLatestTag)
			if err != nil {
				t.Fatal(err)
			}
			read, err := report.ReadJSON(marshal(t, res.Report))
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, report.ShardReport{Name: fmt.Sprint(i), Report: read})
		}
		merged, err := Merge(parts)
		if err != nil {
			t.Fatal(err)
		}
		if got := marshal(t, merged); !bytes.Equal(got, want) {
			t.Errorf("%d shards: %s", n, firstDifference(got, want))
		}
	}
}
