package render

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// TestKustomizeHelmCharts: a kustomization's helmCharts are inflated
// in-process and go through its transformers as `kustomize build
// --enable-helm` does (the expected output was made by it).
func TestKustomizeHelmCharts(t *testing.T) {
	res := renderRepo(t, "testdata/khelm", helmOpts())
	for _, p := range res.Problems {
		t.Errorf("problem: %s", p.Error())
	}
	var got []string
	for _, tg := range res.Targets {
		if tg.Name != "app" {
			t.Errorf("unexpected target %s (%s): a chart a kustomization inflates is not rendered on its own", tg.Name, tg.Kind)
			continue
		}
		for _, o := range tg.Objects {
			b, _ := json.Marshal(o.Content)
			got = append(got, string(b))
		}
	}
	data, err := os.ReadFile("testdata/khelm-expected.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		var v any
		if err := sigsyaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if v != nil {
			b, _ := json.Marshal(v)
			want = append(want, string(b))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("plumb:\n%v\nkustomize build --enable-helm:\n%v", got, want)
	}

	// Provenance: the chart's values and templates, the kustomization's
	// values files and valuesInline, then its transformers and patches.
	dep := object(t, res, "app", "Deployment", "eu-web-basic")
	for path, want := range map[string]string{
		"spec.replicas":                                            "app/kustomization.yaml:14:7",
		"spec.template.spec.containers[0].image":                   "app/values-shop.yaml:2:3",
		"spec.template.spec.nodeSelector.region":                   "app/values-eu.yaml:2:3",
		"spec.template.spec.containers[0].ports[0].containerPort":  "app/kustomization.yaml:16:9",
		"spec.template.spec.containers[0].resources.limits.memory": "app/resources-patch.yaml:12:15",
		"spec.template.spec.containers[0].resources.requests.cpu":  "app/charts/basic/values.yaml:16:5",
		"spec.template.spec.containers[0].env[0].value":            "app/charts/basic/values.yaml:10:3",
		`metadata.labels["app.kubernetes.io/managed-by"]`:          "app/charts/basic/templates/_helpers.tpl:17:34",
		"metadata.labels.team":                                     "app/kustomization.yaml:7:7",
		"metadata.name":                                            "app/kustomization.yaml:4:1",
	} {
		if got := at(t, dep, path); got != want {
			t.Errorf("%s at %s, want %s", path, got, want)
		}
	}
	svc := object(t, res, "app", "Service", "eu-web-basic")
	if got := at(t, svc, "spec.type"); got != "app/charts/basic/values.yaml:7:3" {
		t.Errorf("Service spec.type at %s", got)
	}
	if _, ok := svc.Get(manifest.MustParsePath("metadata.namespace")); ok {
		t.Error("kustomize leaves the namespace of helm's output to helm")
	}
}

// TestKustomizeHelmChartDependencies: a helmCharts chart whose enabled
// dependency is not vendored is the chart's warning, and the kustomization
// is not rendered (not rendered without the chart's objects, whose patches
// would then match nothing); a disabled one is not needed.
func TestKustomizeHelmChartDependencies(t *testing.T) {
	files := map[string]string{
		"app/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nhelmCharts:\n  - name: web\n    releaseName: web\n" +
			"resources:\n  - settings.yaml\npatches:\n  - path: web-patch.yaml\n",
		"app/settings.yaml":                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  k: v\n",
		"app/web-patch.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  extra: \"1\"\n",
		"app/charts/web/Chart.yaml":        "apiVersion: v2\nname: web\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 19.x.x\n    repository: oci://registry-1.docker.io/bitnamicharts\n    condition: redis.enabled\n",
		"app/charts/web/values.yaml":       "redis:\n  enabled: true\n",
		"app/charts/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  k: v\n",
	}
	for _, c := range []struct {
		name, values string
		objects      int
		problems     []string
	}{
		{"enabled", "redis:\n  enabled: true\n", 0, []string{"render/helm-dependency warning app/charts/web/Chart.yaml:5:5: dependency redis (oci://registry-1.docker.io/bitnamicharts) is not vendored in charts/, so the chart is not rendered with values that enable it (condition redis.enabled) and its objects are not checked: run `helm dependency build app/charts/web` and commit charts/, or let plumb fetch it (allow registry-1.docker.io with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)"}},
		{"disabled", "redis:\n  enabled: false\n", 2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files["app/charts/web/values.yaml"] = c.values
			writeTree(t, dir, files)
			res := renderRepo(t, dir, helmOpts())
			var problems []string
			for _, p := range res.Problems {
				problems = append(problems, p.Rule+" "+p.Level+" "+p.Error())
			}
			if !slices.Equal(problems, c.problems) {
				t.Errorf("problems %q, want %q", problems, c.problems)
			}
			objects := 0
			for _, tg := range res.Targets {
				objects += len(tg.Objects)
			}
			if objects != c.objects {
				t.Errorf("%d objects (targets %v), want %d", objects, targetNames(res), c.objects)
			}
		})
	}
}
