package change_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/change"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
)

// runPR commits base, then head (files set to "" are removed), and runs
// plumb check in pull-request mode against the base commit.
func runPR(t *testing.T, base, head map[string]string, args ...string) *report.Report {
	t.Helper()
	r := gittest.New(t)
	r.Write(base)
	baseCommit := r.Commit("base")
	write := map[string]string{}
	for name, content := range head {
		if content == "" {
			r.Remove(name)
		} else {
			write[name] = content
		}
	}
	r.Write(write)
	r.Commit("head")
	return checkPR(t, r.Dir, baseCommit, args...)
}

// checkPR runs plumb check on dir in pull-request mode against base,
// without the default checks (the change stage is what is tested).
func checkPR(t *testing.T, dir, base string, args ...string) *report.Report {
	t.Helper()
	fset := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := config.BindCheckFlags(fset)
	if args == nil {
		args = []string{"--no-default-checks"}
	}
	if err := fset.Parse(append([]string{"--base-ref", base}, args...)); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve(nil, fl, dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Reproducible = true
	cfg.Now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	res, err := pipeline.Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	return res.Report
}

// changeFindings are the report's findings of the change stage.
func changeFindings(r *report.Report) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Source == change.SourceChange {
			out = append(out, f)
		}
	}
	return out
}

func list(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "\n  %s", f.String())
	}
	return b.String()
}

func deploy(name, selector, labels, image string, extra string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
  namespace: shop
spec:
%s  selector:
    matchLabels: {%s}
  template:
    metadata:
      labels: {%s}
    spec:
      containers:
        - name: main
          image: %s
`, name, extra, selector, labels, image)
}

const pvc = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: shop
spec:
  storageClassName: %s
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: %s
`

func TestFindingTypes(t *testing.T) {
	web := deploy("web", "app: web", "app: web", "web:1.4.0", "")
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  selector: {app: %s}\n  ports: [{port: 80}]\n"
	cases := []struct {
		name       string
		base, head map[string]string
		rule       string
		level      finding.Level
		file       string
		line       int
		side       string
		message    string // a part of the message
	}{
		{
			name: "deployment selector",
			base: map[string]string{"app/web.yaml": web},
			head: map[string]string{"app/web.yaml": deploy("web", "app: web, tier: front", "app: web, tier: front", "web:1.4.0", "")},
			rule: change.RuleImmutable,
			file: "app/web.yaml", line: 7,
			message: "apps ValidateDeploymentUpdate",
		},
		{
			name: "statefulset serviceName",
			base: map[string]string{"db.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: shop}\nspec:\n  serviceName: db\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: db, image: 'pg:16.1'}]}\n"},
			head: map[string]string{"db.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db, namespace: shop}\nspec:\n  serviceName: db-headless\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: db, image: 'pg:16.1'}]}\n"},
			rule: change.RuleImmutable, file: "db.yaml", line: 5, message: "apps ValidateStatefulSetUpdate",
		},
		{
			name: "job template",
			base: map[string]string{"job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: shop}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: m\n          image: migrate:1.0.0\n"},
			head: map[string]string{"job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: shop}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: m\n          image: migrate:1.1.0\n"},
			rule: change.RuleImmutable, file: "job.yaml", line: 5, message: "batch ValidateJobUpdate",
		},
		{
			name: "service clusterIP",
			base: map[string]string{"svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: dns, namespace: shop}\nspec:\n  clusterIP: 10.0.0.10\n  ports: [{port: 53}]\n"},
			head: map[string]string{"svc.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: dns, namespace: shop}\nspec:\n  clusterIP: 10.0.0.11\n  ports: [{port: 53}]\n"},
			rule: change.RuleImmutable, file: "svc.yaml", line: 5, message: "core ValidateServiceUpdate",
		},
		{
			name: "pvc storage shrinks",
			base: map[string]string{"pvc.yaml": fmt.Sprintf(pvc, "fast", "10Gi")},
			head: map[string]string{"pvc.yaml": fmt.Sprintf(pvc, "fast", "5Gi")},
			rule: change.RuleImmutable, file: "pvc.yaml", line: 11, message: "from 10Gi to 5Gi",
		},
		{
			name: "pvc storage class",
			base: map[string]string{"pvc.yaml": fmt.Sprintf(pvc, "fast", "10Gi")},
			head: map[string]string{"pvc.yaml": fmt.Sprintf(pvc, "slow", "10Gi")},
			rule: change.RuleImmutable, file: "pvc.yaml", line: 7, message: "core ValidatePersistentVolumeClaimUpdate",
		},
		{
			name: "rolebinding roleRef",
			base: map[string]string{"rb.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: read, namespace: shop}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: reader\nsubjects: [{kind: Group, name: devs}]\n"},
			head: map[string]string{"rb.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: read, namespace: shop}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\nsubjects: [{kind: Group, name: devs}]\n"},
			rule: change.RuleImmutable, file: "rb.yaml", line: 4, message: "cannot change roleRef",
		},
		{
			name: "immutable configmap data",
			base: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\nimmutable: true\ndata:\n  mode: fast\n"},
			head: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\nimmutable: true\ndata:\n  mode: slow\n"},
			rule: change.RuleImmutable, file: "cm.yaml", line: 5, message: "keys mode",
		},
		{
			name: "crd storage version removed",
			base: map[string]string{"crd.yaml": crd("    - name: v1alpha1\n      served: true\n      storage: true\n")},
			head: map[string]string{"crd.yaml": crd("    - name: v1\n      served: true\n      storage: true\n")},
			rule: change.RuleImmutable, file: "crd.yaml", line: 9, message: "ValidateCustomResourceDefinitionStoredVersions",
		},
		{
			name: "pvc deleted",
			base: map[string]string{"pvc.yaml": fmt.Sprintf(pvc, "fast", "10Gi"), "keep.yaml": web},
			head: map[string]string{"pvc.yaml": ""},
			rule: change.RuleDeletion, level: finding.Warning, file: "pvc.yaml", line: 1, side: finding.SideBase, message: "its volume and the data on it",
		},
		{
			name: "deleted service an env var still names",
			base: map[string]string{
				"app/web.yaml":   deploy("web", "app: web", "app: web", "web:1.4.0", ""),
				"app/api.yaml":   strings.Replace(deploy("api", "app: api", "app: api", "api:2.0.0", ""), "          image: api:2.0.0\n", "          image: api:2.0.0\n          env:\n            - name: CACHE_URL\n              value: redis://cache:6379/0\n", 1),
				"app/cache.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: cache, namespace: shop}\nspec:\n  selector: {app: cache}\n  ports: [{port: 6379}]\n",
			},
			head: map[string]string{"app/cache.yaml": ""},
			rule: change.RuleDangling, file: "app/cache.yaml", line: 1, side: finding.SideBase, message: "Deployment shop/api (env CACHE_URL) still name it",
		},
		{
			name: "deleted configmap a volume still mounts",
			base: map[string]string{
				"app/web.yaml": strings.Replace(web, "          image: web:1.4.0\n", "          image: web:1.4.0\n      volumes:\n        - name: c\n          configMap: {name: web-config}\n", 1),
				"app/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-config, namespace: shop}\ndata: {a: b}\n",
			},
			head: map[string]string{"app/cm.yaml": ""},
			rule: change.RuleDangling, file: "app/cm.yaml", line: 1, side: finding.SideBase, message: "(volume) still name it",
		},
		{
			name:  "deployment renamed",
			base:  map[string]string{"app/web.yaml": web},
			head:  map[string]string{"app/web.yaml": deploy("web-v2", "app: web", "app: web", "web:1.4.0", "")},
			rule:  change.RuleRename,
			level: finding.Warning, file: "app/web.yaml", line: 4, message: "replaces Deployment shop/web",
		},
		{
			name: "service selector no longer matches",
			base: map[string]string{"app/web.yaml": web, "app/svc.yaml": fmt.Sprintf(svc, "web")},
			head: map[string]string{"app/svc.yaml": fmt.Sprintf(svc, "webapp")},
			rule: change.RuleSelectorOrphaned, file: "app/svc.yaml", line: 7, message: "matched the pods of Deployment shop/web",
		},
		{
			name:  "replicas to zero",
			base:  map[string]string{"app/web.yaml": deploy("web", "app: web", "app: web", "web:1.4.0", "  replicas: 3\n")},
			head:  map[string]string{"app/web.yaml": deploy("web", "app: web", "app: web", "web:1.4.0", "  replicas: 0\n")},
			rule:  change.RuleReplicasZero,
			level: finding.Warning, file: "app/web.yaml", line: 7, message: "from 3 to 0 replicas",
		},
		{
			name:  "image downgrade",
			base:  map[string]string{"app/web.yaml": web},
			head:  map[string]string{"app/web.yaml": deploy("web", "app: web", "app: web", "web:1.3.9", "")},
			rule:  change.RuleImageDowngrade,
			level: finding.Warning, file: "app/web.yaml", line: 15, message: "from web:1.4.0 to web:1.3.9",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := map[string]string{}
			for k, v := range c.base {
				head[k] = v
			}
			for k, v := range c.head {
				head[k] = v
			}
			fs := changeFindings(runPR(t, c.base, head))
			if len(fs) != 1 {
				t.Fatalf("want one %s finding, got %d:%s", c.rule, len(fs), list(fs))
			}
			f := fs[0]
			if f.RuleID != c.rule || f.Level != c.level || f.Location.File != c.file || f.Location.Line != c.line || f.Side != c.side || f.Status != finding.StatusNew {
				t.Errorf("got %s (side %q, status %s), want %s: %s at %s:%d side %q", f.String(), f.Side, f.Status, c.level, c.rule, c.file, c.line, c.side)
			}
			if !strings.Contains(f.Message, c.message) {
				t.Errorf("message %q does not say %q", f.Message, c.message)
			}
			if f.Help == "" || f.Fingerprint == "" {
				t.Errorf("finding without help or fingerprint: %+v", f)
			}
		})
	}
}

func crd(versions string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
` + versions + `      schema:
        openAPIV3Schema: {type: object}
`
}

// A harmless pull request — a rollout setting, more replicas, a newer
// image, a label, a bigger claim, a generated ConfigMap's new content —
// has no change finding, and its summary says what it does.
func TestHarmlessChangeHasNoFindingAndASummary(t *testing.T) {
	kustomization := "resources: [web.yaml, pvc.yaml]\nconfigMapGenerator:\n  - name: web-config\n    literals: [mode=%s]\n"
	withRequests := func(replicas, image, extra string) string {
		d := deploy("web", "app: web", "app: web", image, "  replicas: "+replicas+"\n"+extra)
		return strings.Replace(d, "          image: "+image+"\n", "          image: "+image+"\n          resources: {requests: {cpu: 250m, memory: 256Mi}}\n"+
			"      volumes: [{name: c, configMap: {name: web-config}}]\n", 1)
	}
	base := map[string]string{}
	head := map[string]string{}
	for _, env := range []string{"dev", "prod"} {
		base["overlays/"+env+"/kustomization.yaml"] = fmt.Sprintf("namespace: %s\nresources: [../../base]\n", env)
		head["overlays/"+env+"/kustomization.yaml"] = base["overlays/"+env+"/kustomization.yaml"]
	}
	base["base/kustomization.yaml"] = fmt.Sprintf(kustomization, "fast")
	base["base/web.yaml"] = withRequests("2", "web:1.4.0", "  minReadySeconds: 3\n")
	base["base/pvc.yaml"] = fmt.Sprintf(pvc, "fast", "10Gi")
	head["base/kustomization.yaml"] = fmt.Sprintf(kustomization, "slow")
	head["base/web.yaml"] = strings.Replace(withRequests("3", "web:1.5.0", "  minReadySeconds: 5\n"), "  namespace: shop\n", "  namespace: shop\n  labels: {team: shop}\n", 1)
	head["base/pvc.yaml"] = fmt.Sprintf(pvc, "fast", "20Gi")
	rep := runPR(t, base, head)
	if fs := changeFindings(rep); len(fs) > 0 {
		t.Fatalf("a harmless change has change findings:%s", list(fs))
	}
	sec, err := change.FromSection(rep.Sections[change.SectionName])
	if err != nil || sec == nil {
		t.Fatalf("no change section: %v", err)
	}
	if len(sec.Groups) != 1 {
		t.Fatalf("the two overlays change alike and are one group; got %+v", sec.Groups)
	}
	g := sec.Groups[0]
	if strings.Join(g.Targets, ",") != "overlays/dev,overlays/prod" || strings.Join(sec.Reached, ",") != "overlays/dev,overlays/prod" {
		t.Errorf("targets %v, reached %v", g.Targets, sec.Reached)
	}
	// The generated ConfigMap's new hash is a change, not a deletion and
	// an addition.
	if len(g.Added) != 0 || len(g.Deleted) != 0 || strings.Join(g.Changed, ",") != "ConfigMap web-config,Deployment web,PersistentVolumeClaim data" {
		t.Errorf("added %v, changed %v, deleted %v", g.Added, g.Changed, g.Deleted)
	}
	if len(g.Images) != 1 || g.Images[0].From != "web:1.4.0" || g.Images[0].To != "web:1.5.0" {
		t.Errorf("images %+v", g.Images)
	}
	if len(g.Replicas) != 1 || g.Replicas[0] != (change.ReplicaChange{Object: "Deployment web", From: "2", To: "3"}) {
		t.Errorf("replicas %+v", g.Replicas)
	}
	// One more replica of 250m and 256Mi.
	if g.CPU != "+250m" || g.Memory != "+256Mi" {
		t.Errorf("requested CPU %q memory %q, want +250m +256Mi", g.CPU, g.Memory)
	}
	md := change.Markdown(sec)
	for _, want := range []string{"#### What this change does", "**overlays/dev, overlays/prod**: 3 changed", "`web:1.4.0` → `web:1.5.0`", "Deployment web 2 → 3", "CPU `+250m`, memory `+256Mi`"} {
		if !strings.Contains(md, want) {
			t.Errorf("the summary does not say %q:\n%s", want, md)
		}
	}
}

func TestNothingRenderedChanges(t *testing.T) {
	files := map[string]string{"app/web.yaml": deploy("web", "app: web", "app: web", "web:1.4.0", "")}
	head := map[string]string{"app/web.yaml": "# a comment only\n" + files["app/web.yaml"], "README.md": "docs\n"}
	rep := runPR(t, files, head)
	sec, _ := change.FromSection(rep.Sections[change.SectionName])
	if sec == nil || len(sec.Groups) != 0 || len(sec.Reached) != 0 {
		t.Fatalf("section %+v", sec)
	}
	if md := change.Markdown(sec); !strings.Contains(md, "changes nothing rendered") || strings.Count(md, "\n") != 4 {
		t.Errorf("one line, not:\n%s", md)
	}
}

// An image the change unpins gets the base's tag back as a suggestion;
// one the base did not pin either gets none.
func TestUnpinnedImageIsPinnedToTheBaseTag(t *testing.T) {
	base := map[string]string{
		"app/web.yaml": deploy("web", "app: web", "app: web", "registry.example.com/shop/web:1.4.2", ""),
		"app/api.yaml": deploy("api", "app: api", "app: api", "api", ""),
	}
	head := map[string]string{
		"app/web.yaml": deploy("web", "app: web", "app: web", "registry.example.com/shop/web:latest", ""),
		"app/api.yaml": deploy("api", "app: api", "app: api", "api:latest", ""),
	}
	rep := runPR(t, base, head, "--select", "C10001")
	got := map[string]*finding.Finding{}
	for i := range rep.Findings {
		if f := &rep.Findings[i]; f.RuleID == change.RuleUnpinnedImage {
			got[f.Object.Name] = f
		}
	}
	web, api := got["web"], got["api"]
	if web == nil || api == nil {
		t.Fatalf("want findings on web and api, got %v", got)
	}
	if !web.Fixable() || len(web.Fix.Edits) != 1 {
		t.Fatalf("web: no edit: %+v", web.Fix)
	}
	if e := web.Fix.Edits[0]; e.File != "app/web.yaml" || e.StartLine != 15 || e.New != "          image: registry.example.com/shop/web:1.4.2\n" {
		t.Errorf("web: edit %+v", e)
	}
	if api.Fix != nil {
		t.Errorf("api was not pinned at the base either, yet has a fix: %+v", api.Fix)
	}
}

// A Service deleted while a container's argument still addresses it.
func TestDeletedServiceAnArgumentAddresses(t *testing.T) {
	api := strings.Replace(deploy("api", "app: api", "app: api", "api:2.0.0", ""), "          image: api:2.0.0\n",
		"          image: api:2.0.0\n          command: [./api]\n          args: [--port=8080, --cache-server=tcp://cache:6379, cache]\n", 1)
	base := map[string]string{
		"app/api.yaml":   api,
		"app/cache.yaml": "apiVersion: v1\nkind: Service\nmetadata: {name: cache, namespace: shop}\nspec:\n  selector: {app: cache}\n  ports: [{port: 6379}]\n",
	}
	fs := changeFindings(runPR(t, base, map[string]string{"app/cache.yaml": ""}))
	if len(fs) != 1 || fs[0].RuleID != change.RuleDangling || !strings.Contains(fs[0].Message, "Deployment shop/api (args) still name it") {
		t.Fatalf("want one %s finding naming the argument, got:%s", change.RuleDangling, list(fs))
	}
	if r := fs[0].Related; len(r) != 1 || r[0].File != "app/api.yaml" || r[0].Line != 17 {
		t.Errorf("related %+v, want the argument's line app/api.yaml:17", r)
	}
}

// An image a kustomize base unpins for two overlays: pinned back in the
// base when both ran the same version at the base revision, and the edit
// makes both findings go; not when production ran another one (its
// kustomization set the tag), since the one edit would pin both.
func TestUnpinnedImageInASharedBase(t *testing.T) {
	kust := func(images string) string {
		return "resources: [../../base]\n" + images
	}
	files := func(image, prodImages string) map[string]string {
		return map[string]string{
			"base/kustomization.yaml":          "resources: [deploy.yaml]\n",
			"base/deploy.yaml":                 deploy("web", "app: web", "app: web", image, ""),
			"overlays/dev/kustomization.yaml":  kust("nameSuffix: -dev\n"),
			"overlays/prod/kustomization.yaml": kust(prodImages),
		}
	}
	pins := func(rep *report.Report) map[string]*finding.Finding {
		out := map[string]*finding.Finding{}
		for i := range rep.Findings {
			if f := &rep.Findings[i]; f.RuleID == change.RuleUnpinnedImage && report.IsOpen(f) {
				out[f.Object.Target] = f
			}
		}
		return out
	}
	t.Run("the same version", func(t *testing.T) {
		head := files("registry.example.com/shop/web:latest", "")
		got := pins(runPR(t, files("registry.example.com/shop/web:1.4.2", ""), head, "--select", "C10001"))
		dev, prod := got["overlays/dev"], got["overlays/prod"]
		if dev == nil || prod == nil || !dev.Fixable() || !prod.Fixable() || dev.Fix.Edits[0] != prod.Fix.Edits[0] {
			t.Fatalf("want the same edit for both overlays, got %v", got)
		}
		e := dev.Fix.Edits[0]
		if e.File != "base/deploy.yaml" || e.New != "          image: registry.example.com/shop/web:1.4.2\n" {
			t.Fatalf("edit %+v", e)
		}
		fixed := map[string]string{}
		for k, v := range head {
			fixed[k] = v
		}
		fixed["base/deploy.yaml"] = strings.Replace(head["base/deploy.yaml"], e.Old, e.New, 1)
		if after := pins(runPR(t, head, fixed, "--select", "C10001")); len(after) != 0 {
			t.Errorf("after the edit, still %v", after)
		}
	})
	t.Run("production ran another version", func(t *testing.T) {
		base := files("registry.example.com/shop/web:1.4.2", "images:\n  - name: registry.example.com/shop/web\n    newTag: 1.3.0\n")
		got := pins(runPR(t, base, files("registry.example.com/shop/web:latest", ""), "--select", "C10001"))
		dev := got["overlays/dev"]
		if dev == nil || dev.Fix == nil || dev.Fixable() || !strings.Contains(dev.Fix.NoEdit, "overlays/prod") {
			t.Fatalf("want dev's fix without an edit, naming production, got %+v", dev)
		}
	})
}
