package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// plainValuesManifest has values under credential names that are no
// credentials (the mysql image's flags, a file path, an OpenShift EAP
// template's Secret name, a Recyclarr reference, a commented-out line) beside
// two that are.
const plainValuesManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: shop}
spec:
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
        - name: mysql
          image: docker.io/library/mysql:8.0.36
          env:
            - name: MYSQL_ALLOW_EMPTY_PASSWORD
              value: "true"
            - name: MYSQL_PASSWORD
              value: /run/secrets/mysql-password
            - name: JGROUPS_ENCRYPT_SECRET
              value: eap7-app-secret
            - name: MYSQL_ROOT_PASSWORD
              value: hunter2
      volumes:
        - name: keystore
          secret: {secretName: eap7-app-secret}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: recyclarr, namespace: shop}
data:
  recyclarr.yml: |
    # api_key: 0123456789abcdef
    sonarr:
      main:
        api_key: !env_var SONARR_API_KEY
  api_token: s3cr3t-t0ken
`

// TestPlainValuesAreNoCredentials: check reports the two credentials only,
// and render prints everything else as written.
func TestPlainValuesAreNoCredentials(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(plainValuesManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errOut := plumb(t, "check", "--root", dir, "--fail-on", "never", "--select", "D10012,G10002", dir)
	var got []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "[check/D10012]") || strings.Contains(line, "[check/G10002]") {
			loc, _, _ := strings.Cut(line, ": ")
			got = append(got, loc+" "+line[strings.LastIndex(line, "[")+1:len(line)-1])
		}
	}
	want := []string{"app.yaml:21:15 check/D10012", "app.yaml:36:3 check/G10002"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %v, want %v\n%s%s", got, want, out, errOut)
	}

	code, out, errOut := plumb(t, "render", "--root", dir, dir)
	if code != 0 {
		t.Fatalf("render: exit %d\n%s", code, errOut)
	}
	for _, kept := range []string{
		`value: "true"`, "value: /run/secrets/mysql-password", "value: eap7-app-secret",
		"# api_key: 0123456789abcdef", "api_key: !env_var SONARR_API_KEY",
	} {
		if !strings.Contains(out, kept) {
			t.Errorf("render changed %q:\n%s", kept, out)
		}
	}
	for _, gone := range []string{"hunter2", "s3cr3t-t0ken"} {
		if strings.Contains(out, gone) {
			t.Errorf("render printed the credential %q:\n%s", gone, out)
		}
	}
}
