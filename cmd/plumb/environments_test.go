package main

import (
	"strings"
	"testing"
)

// Clusters named by region are no environments by their names; declared in
// .plumb.yaml (checks.environments) they are, and the checks that compare
// environments compare them: the cluster that deploys an extra workload is
// reported. Without the declaration, nothing is compared.
func TestDeclaredEnvironmentsAreCompared(t *testing.T) {
	files := map[string]string{
		"base/kustomization.yaml": "resources: [deploy.yaml]\n",
		"base/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.example.com/web:1.2.3
`,
		"clusters/eu-1/kustomization.yaml": "resources: [../../base, job.yaml]\n",
		"clusters/eu-1/job.yaml": `apiVersion: batch/v1
kind: CronJob
metadata: {name: reindex}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: reindex
              image: registry.example.com/reindex:1.0.0
`,
		"clusters/us-1/kustomization.yaml": "resources: [../../base]\n",
		"clusters/ap-1/kustomization.yaml": "resources: [../../base]\n",
	}
	compared := func(config string) []string {
		root := t.TempDir()
		writeTree(t, root, files)
		if config != "" {
			writeTree(t, root, map[string]string{".plumb.yaml": config})
		}
		_, out, _ := plumb(t, "check", "--root", root, root, "--fail-on", "never", "--format", "text", "--select", "H10001")
		var lines []string
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "[check/H10001]") {
				lines = append(lines, line)
			}
		}
		return lines
	}
	if got := compared(""); len(got) != 0 {
		t.Errorf("undeclared clusters were compared:\n%s", strings.Join(got, "\n"))
	}
	got := compared("checks:\n  environments: [clusters/*]\n")
	if len(got) != 1 || !strings.HasPrefix(got[0], "clusters/eu-1/job.yaml:1:1: warning: The environments do not deploy the same workloads") {
		t.Errorf("declared clusters: H10001 findings\n%s\nwant one at clusters/eu-1/job.yaml:1:1", strings.Join(got, "\n"))
	}
}
