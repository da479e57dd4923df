package render

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/source"
)

// argoApp is a multi-source Application: the chart from repoURL, values
// from this repository through `ref: values`.
func argoApp(repoURL, revision, extra string) string {
	return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: podinfo
  namespace: argocd
spec:
  destination:
    namespace: web
  sources:
    - repoURL: https://github.com/example/deploy.git
      targetRevision: main
      ref: values
    - chart: podinfo
      repoURL: ` + repoURL + `
      targetRevision: "` + revision + `"
      helm:
        valueFiles:
          - $values/envs/prod/podinfo.yaml
        valuesObject:
          replicaCount: 3
` + extra
}

func fetcherFor(t *testing.T, rawURL string) *source.Fetcher {
	t.Helper()
	host := strings.TrimPrefix(strings.TrimPrefix(rawURL, "http://"), "oci://")
	host, _, _ = strings.Cut(host, "/")
	hosts, err := source.ParseHosts([]string{host})
	if err != nil {
		t.Fatal(err)
	}
	return source.New(source.Options{Hosts: hosts})
}

// An Application naming a chart in a Helm chart repository renders it at
// the version targetRevision resolves to, with the values files of its
// `ref:` source read from this repository and valuesObject over them; each
// value is at its line here, the chart's own fields at the chart line.
func TestArgoApplicationFromAHelmRepository(t *testing.T) {
	srv := chartRepo(t, "podinfo", podinfoCharts(t))
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"apps/podinfo.yaml":      argoApp(srv.URL, ">=6.0.0", ""),
		"envs/prod/podinfo.yaml": "hostnames:\n  - podinfo.prod\n",
	})
	opts := helmOpts()
	opts.Fetcher = fetcherFor(t, srv.URL)
	res := renderRepo(t, dir, opts, "apps", "envs")
	for _, p := range res.Problems {
		if p.Rule == helm.RuleNotRendered || p.Rule == helm.RuleValues {
			t.Errorf("%s: %s", manifest.FormatLocation(p.Location), p.Message)
		}
	}
	d := object(t, res, "podinfo 6.5.0[Application podinfo in apps]", "Deployment", "podinfo")
	if d.ID.Namespace != "" && d.ID.Namespace != "web" {
		t.Errorf("namespace %q", d.ID.Namespace)
	}
	for p, want := range map[string]string{
		"spec.replicas": "apps/podinfo.yaml:20:11",
		"spec.template.spec.containers[0].args[0]": "envs/prod/podinfo.yaml:2:5",
		"spec.template.spec.containers[0].image":   "apps/podinfo.yaml:13:7",
	} {
		if got := at(t, d, p); got != want {
			t.Errorf("%s at %s, want %s", p, got, want)
		}
	}
	if got := opts.Fetcher.Fetched(); len(got) != 1 || got[0].Version != "6.5.0" {
		t.Errorf("fetched %+v, want podinfo 6.5.0 once", got)
	}
}

// Argo CD's Helm-over-OCI form: repoURL is the registry without a scheme;
// the repository Secret's insecureOCIForceHttp makes it plain HTTP.
func TestArgoApplicationFromAnOCIRegistry(t *testing.T) {
	host := certManagerRegistry(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"apps/cert-manager.yaml": `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: cert-manager
  namespace: argocd
spec:
  destination:
    namespace: cert-manager
  source:
    chart: cert-manager
    repoURL: ` + host + `/jetstack/charts
    targetRevision: 1.16.2
    helm:
      parameters:
        - name: replicaCount
          value: "2"
`,
		"apps/repository.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: jetstack\n  namespace: argocd\n  labels:\n    argocd.argoproj.io/secret-type: repository\n" +
			"stringData:\n  type: helm\n  enableOCI: \"true\"\n  insecureOCIForceHttp: \"true\"\n  url: " + host + "/jetstack/charts\n",
	})
	opts := helmOpts()
	opts.Fetcher = fetcherFor(t, host)
	res := renderRepo(t, dir, opts, "apps")
	for _, p := range res.Problems {
		if p.Rule == helm.RuleNotRendered {
			t.Errorf("not rendered: %s", p.Message)
		}
	}
	d := object(t, res, "cert-manager 1.16.2[Application cert-manager in apps]", "Deployment", "cert-manager")
	if r := d.Content["spec"].(map[string]any)["replicas"]; r != int64(2) && r != 2 && r != float64(2) {
		t.Errorf("replicas %v (%T), want the parameter's 2", r, r)
	}
	if got := opts.Fetcher.Fetched(); len(got) != 1 || !strings.HasPrefix(got[0].URL, "oci://"+host+"/jetstack/charts/cert-manager@sha256:") {
		t.Errorf("fetched %+v", got)
	}
}

// What is not rendered says why, at the source's line, and fetches
// nothing it need not.
func TestArgoApplicationRemoteChartNotRendered(t *testing.T) {
	srv := chartRepo(t, "podinfo", podinfoCharts(t))
	for _, c := range []struct {
		name, app string
		fetch     bool
		level, at string
		want      string
	}{
		{"fetching off", argoApp(srv.URL, "6.5.0", ""), false, "note", "apps/app.yaml:13:7",
			"Application podinfo: chart podinfo comes from " + srv.URL + ", outside the repository; plumb fetches charts only from allowed hosts"},
		{"unknown ref", strings.Replace(argoApp(srv.URL, "6.5.0", ""), "$values/", "$other/", 1), true, "note", "apps/app.yaml:18:13",
			"values file $other/envs/prod/podinfo.yaml names source $other, which no source of the Application declares as ref"},
		{"ref file not here", strings.Replace(argoApp(srv.URL, "6.5.0", ""), "envs/prod/", "envs/qa/", 1), true, "note", "apps/app.yaml:18:13",
			"values file $values/envs/qa/podinfo.yaml is not a file of this repository (source $values may be another repository)"},
		{"no such version", argoApp(srv.URL, "9.9.9", ""), true, "warning", "apps/app.yaml:13:7",
			"Application podinfo: chart podinfo could not be fetched, so its objects are not checked"},
		{"values leave the chart", strings.Replace(argoApp(srv.URL, "6.5.0", ""), "$values/envs/prod/podinfo.yaml", "../../envs/prod/podinfo.yaml", 1), true, "note", "apps/app.yaml:18:13",
			"values file ../../envs/prod/podinfo.yaml leaves chart podinfo 6.5.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"apps/app.yaml": c.app, "envs/prod/podinfo.yaml": "hostnames: [a]\n"})
			opts := helmOpts()
			if c.fetch {
				opts.Fetcher = fetcherFor(t, srv.URL)
			} else {
				opts.Fetcher = source.New(source.Options{})
			}
			res := renderRepo(t, dir, opts, "apps", "envs")
			var got []string
			for _, p := range res.Problems {
				if p.Rule == helm.RuleNotRendered {
					got = append(got, manifest.FormatLocation(p.Location)+" "+p.Level+" "+p.Message)
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], c.at+" "+c.level+" ") || !strings.Contains(got[0], c.want) {
				t.Errorf("got %q, want one %s at %s containing %q", got, c.level, c.at, c.want)
			}
			for _, name := range targetNames(res) {
				if strings.Contains(name, "Application") {
					t.Errorf("target %s was rendered", name)
				}
			}
		})
	}
}

// ignoreMissingValueFiles skips a values file that is not there, as Argo
// CD does; the chart renders with the rest.
func TestArgoApplicationIgnoreMissingValueFiles(t *testing.T) {
	srv := chartRepo(t, "podinfo", podinfoCharts(t))
	dir := t.TempDir()
	app := strings.Replace(argoApp(srv.URL, "6.5.0", ""), "        valueFiles:\n", "        ignoreMissingValueFiles: true\n        valueFiles:\n          - $values/envs/qa/podinfo.yaml\n", 1)
	writeTree(t, dir, map[string]string{"apps/app.yaml": app, "envs/prod/podinfo.yaml": "hostnames: [podinfo.prod]\n"})
	opts := helmOpts()
	opts.Fetcher = fetcherFor(t, srv.URL)
	res := renderRepo(t, dir, opts, "apps", "envs")
	d := object(t, res, "podinfo 6.5.0[Application podinfo in apps]", "Deployment", "podinfo")
	if got := at(t, d, "spec.template.spec.containers[0].args[0]"); got != "envs/prod/podinfo.yaml:1:13" {
		t.Errorf("args[0] at %s", got)
	}
}

// A `$ref/` values file that leaves the repository is refused at its
// entry, and nothing outside is read or fetched.
func TestArgoApplicationRefValuesOutsideTheRepository(t *testing.T) {
	srv := chartRepo(t, "podinfo", podinfoCharts(t))
	for _, written := range []string{"$values/../../../etc/passwd", "$values//etc/hostname"} {
		dir := t.TempDir()
		writeTree(t, dir, map[string]string{"apps/app.yaml": strings.Replace(argoApp(srv.URL, "6.5.0", ""), "$values/envs/prod/podinfo.yaml", written, 1)})
		opts := helmOpts()
		opts.Fetcher = fetcherFor(t, srv.URL)
		res := renderRepo(t, dir, opts, "apps")
		var got []string
		for _, p := range res.Problems {
			if p.Rule == helm.RuleValues {
				got = append(got, manifest.FormatLocation(p.Location)+" "+p.Level+" "+p.Message)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "apps/app.yaml:18:13 error Application podinfo: values file \""+written+"\" is outside the repository") {
			t.Errorf("%s: got %q", written, got)
		}
		for _, name := range targetNames(res) {
			if strings.Contains(name, "Application") {
				t.Errorf("target %s was rendered", name)
			}
		}
	}
}
