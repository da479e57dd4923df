package rules

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// keyBody is a made-up key body as long as a real Ed25519 key's (real keys
// are never committed, not even to tests); shorter bodies are placeholders.
const keyBody = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n" +
	"QyNTUxOQAAACBmYWtlZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2UAAAAJjZ\n" +
	"mFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlZmFrZW\n" +
	"Zha2VmYWtlZmFrZWZha2VmYWtlZmFrZWZha2VmYWtlAAAAEXVzZXJAZXhhbXBsZS5jb20B\n"

const pemKey = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + keyBody + "-----END OPENSSH PRIVATE KEY-----\n"

func TestBuiltInPrivateKey(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIE" + keyBody + "-----END RSA PRIVATE KEY-----\n"))
	cert := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"))
	tg := target(t, "app", `apiVersion: v1
kind: Secret
metadata: {name: tls}
type: kubernetes.io/tls
data:
  tls.crt: `+cert+`
  tls.key: `+b64+`
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ssh}
data:
  id_ed25519: |
`+indent(pemKey, "    ")+`---
apiVersion: v1
kind: ConfigMap
metadata: {name: public}
data:
  ca.crt: |
    -----BEGIN CERTIFICATE-----
    MIIB
    -----END CERTIFICATE-----
  key.pub: "ssh-ed25519 AAAAC3Nza user@host"
  note: "mentions a PRIVATE KEY but holds none"
---
apiVersion: v1
kind: Secret
metadata: {name: pgp}
stringData:
  key.asc: "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: 1\n\n`+strings.ReplaceAll(keyBody, "\n", "\\n")+`=AbCd\n-----END PGP PRIVATE KEY BLOCK-----"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: documentation}
data:
  dots: "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----"
  redacted: "-----BEGIN PRIVATE KEY-----\nREDACTED\n-----END PRIVATE KEY-----"
  yours: "-----BEGIN OPENSSH PRIVATE KEY-----\n<your key>\n-----END OPENSSH PRIVATE KEY-----"
  short: "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIExample\n-----END EC PRIVATE KEY-----"
  prose: "paste your key after -----BEGIN RSA PRIVATE KEY----- here"
`)
	run := runAll(t, withBuiltIns(t, ""), Options{}, tg)
	var got []string
	for _, f := range run.Findings() {
		if f.RuleID == "rule/plumb-private-key" {
			got = append(got, f.Location.File+":"+itoa(f.Location.Line)+" "+f.Path.String())
			if strings.Contains(f.Message, "MIIE") || strings.Contains(f.Message, b64) {
				t.Errorf("the key leaked: %s", f.Message)
			}
		}
	}
	want := `app/objects.yaml:7 data["tls.key"],app/objects.yaml:13 data.id_ed25519,app/objects.yaml:36 stringData["key.asc"]`
	if strings.Join(got, ",") != want {
		t.Errorf("private keys at %v\nwant %s", got, want)
	}
}

func indent(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

func TestBuiltInEnvironmentAndImages(t *testing.T) {
	pod := `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  initContainers: [{name: init, image: "busybox:1"}]
  containers: [{name: app, image: "app:2"}, {name: side, image: "busybox:1"}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: c}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: job, image: "job:3"}]
`
	var targets []*render.Target
	for _, name := range []string{"apps/web/overlays/prod", "apps/web/base", "clusters/eu-1", "clusters/prod-eu-1", "envs/staging",
		"deploy/api/environments/dev", "apps/web/overlays/with-ingress", "apps/web/overlays/prod (plain)"} {
		targets = append(targets, target(t, name, pod))
	}
	run := runAll(t, withBuiltIns(t, ""), Options{}, targets...)
	env := run.TargetEnv()
	// The application is the directory that holds the overlays directory
	// ("." at the root); a target that is no overlay has neither, nor has
	// an overlay whose name is not an environment's (a variant such as
	// with-ingress, a cluster named by its region) or plain files left
	// beside an overlay.
	for name, want := range map[string][2]any{
		"apps/web/overlays/prod":         {"prod", "apps/web"},
		"apps/web/base":                  {nil, nil},
		"clusters/eu-1":                  {nil, nil},
		"clusters/prod-eu-1":             {"prod-eu-1", "."},
		"envs/staging":                   {"staging", "."},
		"deploy/api/environments/dev":    {"dev", "deploy/api"},
		"apps/web/overlays/with-ingress": {nil, nil},
		"apps/web/overlays/prod (plain)": {nil, nil},
	} {
		if env[name]["environment"] != want[0] || env[name]["application"] != want[1] {
			t.Errorf("%s: environment %v, application %v, want %v", name, env[name]["environment"], env[name]["application"], want)
		}
	}
	if got := compactJSON(env["apps/web/base"]["images"]); got != `["busybox:1","app:2","job:3"]` {
		t.Errorf("images %s", got)
	}
	if got := compactJSON(run.objOrder[0].pluginData["images"]); got != `["busybox:1","app:2"]` {
		t.Errorf("pod images %s", got)
	}
	if len(run.Findings()) != 0 {
		t.Errorf("findings:\n%s", messages(run.Findings()))
	}
	// An environment the user gave the checks is kept.
	run = NewEngine(withBuiltIns(t, ""), Options{Env: map[string]any{"environment": "qa"}}).NewRun()
	tg := target(t, "apps/web/overlays/prod", pod)
	run.Early(docsOf(tg))
	run.Preprocess([]*render.Target{tg})
	if env := run.TargetEnv()["apps/web/overlays/prod"]; env["environment"] != nil || env["application"] != "apps/web" {
		t.Errorf("the user's environment was overridden, or the application not set: %v", env)
	}
	// So is an application the user gave.
	run = NewEngine(withBuiltIns(t, ""), Options{Env: map[string]any{"application": "shop"}}).NewRun()
	tg = target(t, "apps/web/overlays/prod", pod)
	run.Early(docsOf(tg))
	run.Preprocess([]*render.Target{tg})
	if env := run.TargetEnv()["apps/web/overlays/prod"]; env["application"] != nil || env["environment"] != "prod" {
		t.Errorf("the user's application was overridden: %v", env)
	}
	// An environment and an application set earlier (an early user rule)
	// are kept.
	set := withBuiltIns(t, "- {phase: early, actions: [{op: set-plugin-data, args: {path: environment, value: production}}, {op: set-plugin-data, args: {path: application, value: web}}]}\n")
	run = runAll(t, set, Options{}, target(t, "apps/web/overlays/prod", pod))
	if env := run.TargetEnv()["apps/web/overlays/prod"]; env["environment"] != "production" || env["application"] != "web" {
		t.Errorf("env %v", run.TargetEnv())
	}
}

// Targets the configuration declares environments (checks.environments)
// are environments whatever their names, and keep what a user set; plain
// files beside a declared overlay are not one.
func TestBuiltInDeclaredEnvironments(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	var targets []*render.Target
	for _, name := range []string{"clusters/eu-1", "clusters/us-1", "clusters/eu-1 (plain)", "regions/eu/overlays/with-ingress", "apps/web/overlays/prod", "other/eu-2"} {
		targets = append(targets, target(t, name, cm))
	}
	opts := Options{Environments: []string{"clusters/*", "regions/**/overlays/*"}}
	env := runAll(t, withBuiltIns(t, ""), opts, targets...).TargetEnv()
	for name, want := range map[string][2]any{
		"clusters/eu-1":                    {"eu-1", "."},
		"clusters/us-1":                    {"us-1", "."},
		"clusters/eu-1 (plain)":            {nil, nil},
		"regions/eu/overlays/with-ingress": {"with-ingress", "regions/eu"},
		"apps/web/overlays/prod":           {"prod", "apps/web"},
		"other/eu-2":                       {nil, nil},
	} {
		if env[name]["environment"] != want[0] || env[name]["application"] != want[1] {
			t.Errorf("%s: environment %v, application %v, want %v", name, env[name]["environment"], env[name]["application"], want)
		}
	}
	// What the user gave the checks is kept.
	opts.Env = map[string]any{"application": "fleet"}
	env = runAll(t, withBuiltIns(t, ""), opts, target(t, "clusters/eu-1", cm)).TargetEnv()
	if e := env["clusters/eu-1"]; e["application"] != nil || e["environment"] != "eu-1" {
		t.Errorf("the user's application was overridden, or no environment: %v", e)
	}
}

func TestBuiltInPublicEndpointTraits(t *testing.T) {
	tg := target(t, "app", `apiVersion: v1
kind: Service
metadata: {name: lb}
spec: {type: LoadBalancer}
---
apiVersion: v1
kind: Service
metadata: {name: internal}
spec: {type: ClusterIP}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
`)
	run := runAll(t, withBuiltIns(t, ""), Options{}, tg)
	traits := run.Traits()
	if len(traits) != 2 || traits[tg.Objects[0].ID.Key()][0] != "public-endpoint" || traits[tg.Objects[2].ID.Key()][0] != "public-endpoint" {
		t.Errorf("traits %v", traits)
	}
}

// A private key in a file that a kustomize generator reads (not a manifest,
// so no early rule sees it) fails the rendered object, at the file. A key in
// a loaded document is the early rule's alone: no second finding.
func TestBuiltInPrivateKeyInGeneratorFiles(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte(pemKey))
	fsys := fstest.MapFS{
		"app/kustomization.yaml": {Data: []byte(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - secret.yaml
secretGenerator:
  - name: tls
    files:
      - tls.crt
      - tls.key
configMapGenerator:
  - name: ssh
    files:
      - keys/id_ed25519
`)},
		"app/secret.yaml":     {Data: []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: plain}\ndata:\n  key: " + b64 + "\n")},
		"app/tls.crt":         {Data: []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")},
		"app/tls.key":         {Data: []byte(pemKey)},
		"app/keys/id_ed25519": {Data: []byte(pemKey)},
	}
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	res := render.Render(context.Background(), fsys, set, render.Options{})
	if len(res.Targets) != 1 || len(res.Targets[0].Objects) != 3 {
		t.Fatalf("render: %d targets, problems %v", len(res.Targets), res.Problems)
	}
	run := NewEngine(withBuiltIns(t, ""), Options{}).NewRun()
	run.Early(set.Documents)
	run.Preprocess(res.Targets)
	run.Main(res.Targets, nil)
	var got []string
	for _, f := range run.Findings() {
		got = append(got, f.RuleID+" "+f.Location.File+":"+itoa(f.Location.Line)+" "+f.Path.String())
		if strings.Contains(f.Message, "b3BlbnNzaC1rZXktdjE") || strings.Contains(f.Message, b64) {
			t.Errorf("the key leaked: %s", f.Message)
		}
		if f.Level != finding.Error {
			t.Errorf("level %s: %s", f.Level, f.Message)
		}
	}
	slices.Sort(got)
	want := []string{
		"rule/plumb-private-key app/secret.yaml:5 data.key",
		`rule/plumb-private-key-generated app/keys/id_ed25519:1 data.id_ed25519`,
		`rule/plumb-private-key-generated app/tls.key:1 data["tls.key"]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// kube-prometheus's kubeadm Services select the static control-plane pods,
// which no manifest defines: a note at the selector, for kube-system only.
func TestBuiltInStaticControlPlaneService(t *testing.T) {
	tg := target(t, "app", `apiVersion: v1
kind: Service
metadata: {name: kube-scheduler-prometheus-discovery, namespace: kube-system}
spec:
  clusterIP: None
  selector: {component: kube-scheduler}
---
apiVersion: v1
kind: Service
metadata: {name: scheduler, namespace: monitoring}
spec:
  selector: {component: kube-scheduler}
---
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system}
spec:
  selector: {k8s-app: kube-dns}
`)
	run := runAll(t, withBuiltIns(t, ""), Options{}, tg)
	var got []string
	for _, f := range run.Findings() {
		got = append(got, f.RuleID+" "+f.Level.String()+" "+f.Location.File+":"+itoa(f.Location.Line))
	}
	want := []string{"rule/plumb-static-pod-service note app/objects.yaml:6"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v", got, want)
	}
}
