package manifest

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestIsCredentialName(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "DB_PASSWORD": true, "db.password": true, "db-passwd": true, "clientSecret": true,
		"client_secret": true, "auth_token": true, "GITHUB_TOKEN": true, "API_KEY": true, "apiKey": true, "apikey": true,
		"private-key": true, "privateKey": true, "AWS_CREDENTIALS": true, "gpg.passphrase": true,
		"PASSWORD_POLICY": false, "token_ttl": false, "tokenizer": false, "key": false, "ssh_key_path": false,
		"secretName": false, "LOG_LEVEL": false, "": false, "monkey": false,
		// The names issue 18 found unmasked.
		"AWS_SECRET_ACCESS_KEY": true, "PGPASSWORD": true, "MYSQL_PWD": true, "SECRET_KEY": true, "DB_PASS": true,
		"GITHUB_PAT": true, "SSH_KEY": true, "djangoSecretKey": true, "signing.key": true,
		"AWS_ACCESS_KEY_ID": false, "PUBLIC_KEY": false, "BYPASS": false, "PATH": false, "passport": false,
	} {
		if got := IsCredentialName(name); got != want {
			t.Errorf("IsCredentialName(%q) = %v, want %v", name, got, want)
		}
	}
}

// secretDocs are objects with every kind of secret value plumb knows.
const secretDocs = `apiVersion: v1
kind: Secret
metadata:
  name: s
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"stringData":{"pw":"LAST"}}'
data: {b: QkFTRTY0}
stringData: {pw: PLAIN}
binaryData: AAAA
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data:
  password: CM-PW
  db.password: ""
  mode: fast
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"env":"ENV-PW"}'
spec:
  template:
    spec:
      initContainers:
        - name: i
          env:
            - {name: API_TOKEN, value: ENV-TOKEN}
      containers:
        - name: c
          env:
            - {name: LOG_LEVEL, value: info}
            - {name: DB_PASSWORD, value: ENV-PW}
            - {name: EMPTY_PASSWORD, value: ""}
            - name: FROM_SECRET_PASSWORD
              valueFrom: {secretKeyRef: {name: s, key: pw}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: plain
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"data":{"mode":"fast"}}'
data: {mode: fast}
`

func TestSecretPaths(t *testing.T) {
	objs, _ := objectsOf(t, secretDocs)
	want := [][]string{
		{"data.b", "stringData.pw", "binaryData", `metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]`},
		{"data.password"},
		{"spec.template.spec.containers[0].env[1].value", "spec.template.spec.initContainers[0].env[0].value",
			`metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]`},
		nil,
	}
	for i, o := range objs {
		var got []string
		for _, p := range SecretPaths(o.Content) {
			got = append(got, p.String())
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s: secret paths %q, want %q", o.ID, got, want[i])
		}
	}
}

// Every secret value is masked, in the content and in the node (comments
// kept); the originals are not changed; nothing else is.
func TestMaskSecretContentAndNode(t *testing.T) {
	objs, _ := objectsOf(t, secretDocs)
	for _, o := range objs {
		before, _ := yaml.Marshal(o.Content)
		masked := MaskSecretContent(o.Content)
		n, ok := MaskSecretNode(o.Content, o.Node)
		if !ok {
			t.Fatalf("%s: node not masked", o.ID)
		}
		var fromNode bytes.Buffer
		if err := yaml.NewEncoder(&fromNode).Encode(n); err != nil {
			t.Fatal(err)
		}
		fromContent, _ := yaml.Marshal(masked)
		for _, text := range []string{fromNode.String(), string(fromContent)} {
			for _, secret := range []string{"QkFTRTY0", "PLAIN", "AAAA", "LAST", "CM-PW", "ENV-PW", "ENV-TOKEN"} {
				if strings.Contains(text, secret) {
					t.Errorf("%s: %q not masked:\n%s", o.ID, secret, text)
				}
			}
			for _, kept := range []string{"info", "fast", "secretKeyRef"} {
				if strings.Contains(string(before), kept) && !strings.Contains(text, kept) {
					t.Errorf("%s: %q masked too:\n%s", o.ID, kept, text)
				}
			}
		}
		if after, _ := yaml.Marshal(o.Content); !bytes.Equal(before, after) {
			t.Errorf("%s: masking changed the object", o.ID)
		}
		if len(SecretPaths(o.Content)) == 0 && (n != o.Node || !reflect.DeepEqual(masked, o.Content)) {
			t.Errorf("%s: nothing to mask, but a copy was made", o.ID)
		}
	}
	// An empty credential is shown: a check may test that it is empty.
	if !strings.Contains(func() string { b, _ := yaml.Marshal(MaskSecretContent(objs[1].Content)); return string(b) }(), `db.password: ""`) {
		t.Error("an empty credential was masked")
	}
}

// A secret value that is an alias is replaced like any value; one that
// holds an anchor cannot be (an alias elsewhere would dangle), and the
// caller prints the masked content instead.
func TestMaskSecretNodeAndAnchors(t *testing.T) {
	objs, _ := objectsOf(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s, labels: {x: &pw hunter2}}\nstringData: {pw: *pw}\n")
	n, ok := MaskSecretNode(objs[0].Content, objs[0].Node)
	if !ok {
		t.Fatal("an aliased secret value was not masked in the node")
	}
	if _, v := NodeAt(n, MustParsePath("stringData.pw")); v == nil || v.Value != Redacted {
		t.Errorf("stringData.pw is %v", v)
	}
	objs, _ = objectsOf(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {pw: &pw hunter2}\ntype: *pw\n")
	if _, ok := MaskSecretNode(objs[0].Content, objs[0].Node); ok {
		t.Error("an anchored secret was masked in the node: *pw would dangle")
	}
}

func TestMaskCredentialKeys(t *testing.T) {
	in := map[string]any{
		"db":   map[string]any{"user": "app", "password": "hunter2", "token_ttl": "5m"},
		"auth": []any{map[string]any{"client_secret": "abc", "empty_secret": ""}},
		"url":  "http://x",
	}
	got := MaskCredentialKeys(in)
	want := map[string]any{
		"db":   map[string]any{"user": "app", "password": Redacted, "token_ttl": "5m"},
		"auth": []any{map[string]any{"client_secret": Redacted, "empty_secret": ""}},
		"url":  "http://x",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v", got)
	}
	if in["db"].(map[string]any)["password"] != "hunter2" {
		t.Error("the input was changed")
	}
	plain := map[string]any{"a": "b"}
	if got := MaskCredentialKeys(plain); reflect.ValueOf(got).Pointer() != reflect.ValueOf(plain).Pointer() {
		t.Error("nothing to mask, but a copy was made")
	}
}

func TestRedactCredentialText(t *testing.T) {
	for in, want := range map[string]string{
		"db.url=jdbc:x\ndb.password=hunter2\nmode=fast\n":                      "db.url=jdbc:x\ndb.password=<redacted>\nmode=fast\n",
		`{"user": "app", "password": "p\"w", "nested": {"apiKey": "k1"}}`:      `{"user": "app", "password": "<redacted>", "nested": {"apiKey": "<redacted>"}}`,
		"db:\n  password: 'x y'\n  host: h\n":                                  "db:\n  password: '<redacted>'\n  host: h\n",
		"-Xmx1g -Ddb.password=s3cret -Dother=1":                                "-Xmx1g -Ddb.password=<redacted> -Dother=1",
		"export PGPASSWORD=pw1\nDATABASE_URL=postgres://app:pw2@db:5432/app\n": "export PGPASSWORD=<redacted>\nDATABASE_URL=postgres://app:<redacted>@db:5432/app\n",
	} {
		got, changed := RedactCredentialText(in)
		if got != want || !changed {
			t.Errorf("RedactCredentialText(%q) = %q, %v\nwant %q", in, got, changed, want)
		}
	}
	for _, in := range []string{
		"mode=fast\ntimeout: 3s\n", "password=\n", "password: ${DB_PASSWORD}\n", "url=postgres://app:$(PW)@db/app",
		"http://example.com:8080/x", "password_policy=strict",
	} {
		if got, changed := RedactCredentialText(in); changed || got != in {
			t.Errorf("RedactCredentialText(%q) = %q, %v; want it unchanged", in, got, changed)
		}
	}
}

// A ConfigMap file keeps its text with only its credentials redacted; a
// value that is a URL with a password, and an environment variable that
// holds one, are secret whole.
func TestCredentialsInsideValues(t *testing.T) {
	docs, _ := Parse("f.yaml", []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data:
  app.properties: |
    db.password=hunter2
    mode=fast
  DATABASE_URL: postgres://app:pw@db/app
  plain: hello
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: c
      env:
        - {name: DATABASE_URL, value: "postgres://app:pw@db/app"}
        - {name: OTHER_URL, value: "postgres://app:$(PW)@db/app"}
`), DefaultLimits)
	cm := MaskSecretContent(docs[0].Value.(map[string]any))["data"].(map[string]any)
	if cm["app.properties"] != "db.password=<redacted>\nmode=fast\n" || cm["DATABASE_URL"] != Redacted || cm["plain"] != "hello" {
		t.Errorf("ConfigMap data masked as %q", cm)
	}
	var got []string
	for _, p := range SecretPaths(docs[1].Value.(map[string]any)) {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "spec.containers[0].env[0].value" {
		t.Errorf("Pod secret paths %v", got)
	}
}
