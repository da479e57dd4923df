package manifest

import (
	"encoding/base64"
	"strings"
	"testing"
)

const (
	shapeGHP = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
	shapePAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTU"
	shapeAWS = "AKIAIOSFODNN7EXAMPLE"
	shapePEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1234\nabcd==\n-----END RSA PRIVATE KEY-----"
)

var basicCred = base64.StdEncoding.EncodeToString([]byte("x-access-token:ghs_0123456789abcdefghijABCDEFGHIJ0123"))

func TestRedactCredentialShapes(t *testing.T) {
	for in, want := range map[string]string{
		"deploy with " + shapeGHP + " please":                                                      "deploy with <redacted> please",
		"token: " + shapePAT:                                                                       "token: <redacted>",
		"gho_0123456789abcdefghijABCDEFGHIJ, ghu_0123456789abcdefghijABCD":                         "<redacted>, <redacted>",
		"[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + basicCred + "\n": "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic <redacted>\n",
		`curl -H "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc" x`:                           `curl -H "Authorization: Bearer <redacted>" x`,
		`{"Authorization": "token 0123456789abcdef0123456789abcdef01234567"}`:                      `{"Authorization": "token <redacted>"}`,
		"aws_access_key_id = " + shapeAWS + "\n":                                                   "aws_access_key_id = <redacted>\n",
		"key: |\n" + shapePEM + "\ntail":                                                           "key: |\n-----BEGIN RSA PRIVATE KEY-----<redacted>-----END RSA PRIVATE KEY-----\ntail",
		"-----BEGIN PRIVATE KEY-----\nMIIE truncated":                                              "-----BEGIN PRIVATE KEY-----<redacted>",
		"--repo=https://bot:s3cret@git.example.com/org/repo.git":                                   "--repo=https://bot:<redacted>@git.example.com/org/repo.git",
	} {
		got, changed := RedactCredentialShapes(in)
		if got != want || !changed {
			t.Errorf("RedactCredentialShapes(%q) = %q, %v\nwant %q", in, got, changed, want)
		}
		for _, v := range credentialShapeValues(in) {
			if strings.Contains(got, v) {
				t.Errorf("%q: the value %q is still in %q", in, v, got)
			}
		}
		if len(credentialShapeValues(in)) == 0 {
			t.Errorf("%q: no values", in)
		}
	}
}

// What looks a little like a credential and is not: nothing changes.
func TestCredentialShapesPrecision(t *testing.T) {
	for _, in := range []string{
		"apiVersion: rbac.authorization.k8s.io/v1",
		"authorization: {mode: Webhook}",
		`curl -sH "Authorization: Bearer ${TOKEN}" ${PODINFO_SVC}/token/validate`,
		"Authorization: Bearer $TOKEN",
		"authorization: token required",
		"image: ghcr.io/org/app@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"uid: 3f2504e0-4f89-11d3-9a0c-0305e82c3301 and 3F2504E0-4F89-11D3-9A0C-0305E82C3301",
		"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
		"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
		"caBundle: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM1ekNDQWMrZ0F3SUJBZ0lCQVRBTkJna3Foa2lHOXcwQkFRc0ZBREFWTVJNd0VRWURWUVFERXdwdGFXNXAK",
		"ghp_short", "my_ghp_thing_is_here_and_long_enough", "ghs_", "MY_VAR_AKIA", "AKIAshort", "XAKIAIOSFODNN7EXAMPLEX",
		"https://example.com:8080/path", "git@github.com:org/repo.git", "postgres://app:$(PW)@db/app", "postgres://app:${PW}@db/app",
		"http://user@host/x",
	} {
		if got, changed := RedactCredentialShapes(in); changed || got != in {
			t.Errorf("RedactCredentialShapes(%q) = %q, %v; want it unchanged", in, got, changed)
		}
	}
}

// Any object's strings are searched: an annotation, a container's
// argument, an Argo CD source; a Secret's values stay masked whole, and
// the last-applied annotation goes whole when anything is found.
func TestCredentialShapesInAnyObject(t *testing.T) {
	docs, _ := Parse("f.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    note: "built with `+shapeGHP+`"
    kubectl.kubernetes.io/last-applied-configuration: '{"a": 1}'
spec:
  template:
    spec:
      containers:
        - name: c
          image: nginx:1.27
          imagePullPolicy: "[http]\n\textraheader = AUTHORIZATION: basic `+basicCred+`\n"
          args: ["--repo=https://bot:s3cret@git.example.com/r.git", "--verbose"]
          env:
            - {name: DB_PASSWORD, value: "`+shapeGHP+`"}
---
apiVersion: v1
kind: Secret
metadata: {name: s}
stringData:
  token: "`+shapeGHP+`"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data:
  notes: "rotate `+shapeAWS+` soon"
  plain: hello
`), DefaultLimits)
	dep := docs[0].Value.(map[string]any)
	var got []string
	for _, p := range SecretPaths(dep) {
		got = append(got, p.String())
	}
	want := "spec.template.spec.containers[0].env[0].value metadata.annotations.note spec.template.spec.containers[0].args[0] " +
		"spec.template.spec.containers[0].imagePullPolicy metadata.annotations[\"kubectl.kubernetes.io/last-applied-configuration\"]"
	if strings.Join(got, " ") != want {
		t.Errorf("SecretPaths:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	masked := MaskSecretContent(dep)
	c := masked["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	meta := masked["metadata"].(map[string]any)["annotations"].(map[string]any)
	if meta["note"] != "built with <redacted>" || meta[LastApplied] != Redacted ||
		c["imagePullPolicy"] != "[http]\n\textraheader = AUTHORIZATION: basic <redacted>\n" ||
		c["args"].([]any)[0] != "--repo=https://bot:<redacted>@git.example.com/r.git" || c["args"].([]any)[1] != "--verbose" ||
		c["env"].([]any)[0].(map[string]any)["value"] != Redacted || c["image"] != "nginx:1.27" {
		t.Errorf("masked as %v\n%v", meta, c)
	}
	if n, ok := MaskSecretNode(dep, docs[0].Node); !ok || n == nil {
		t.Errorf("the node does not mask")
	}
	if s := MaskSecretContent(docs[1].Value.(map[string]any))["stringData"].(map[string]any)["token"]; s != Redacted {
		t.Errorf("the Secret's value is %q", s)
	}
	cm := MaskSecretContent(docs[2].Value.(map[string]any))["data"].(map[string]any)
	if cm["notes"] != "rotate <redacted> soon" || cm["plain"] != "hello" {
		t.Errorf("ConfigMap data %v", cm)
	}
	values := strings.Join(SecretValues(dep), "\n")
	for _, v := range []string{shapeGHP, "s3cret", basicCred} {
		if !strings.Contains(values, v) {
			t.Errorf("SecretValues lacks %q", v)
		}
	}
}

// BenchmarkSecretPaths is the cost of the masks' walk on a workload
// without any credential, the common case.
func BenchmarkSecretPaths(b *testing.B) {
	docs, _ := Parse("f.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web, team: payments, app.kubernetes.io/part-of: shop}
  annotations: {description: "the web front end of the shop, served behind the ingress", owner: "team-payments@example.com"}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.example.com/shop/web:1.4.2@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
          args: ["--listen=:8080", "--upstream=http://api.shop.svc.cluster.local:8080", "--log-format=json"]
          env:
            - {name: LOG_LEVEL, value: info}
            - {name: API_URL, value: "http://api.shop.svc.cluster.local:8080/v1"}
          resources: {requests: {cpu: 100m, memory: 128Mi}, limits: {memory: 256Mi}}
          readinessProbe: {httpGet: {path: /healthz, port: 8080}}
`), DefaultLimits)
	dep := docs[0].Value.(map[string]any)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		SecretPaths(dep)
	}
}
