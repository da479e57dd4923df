package pipeline

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
)

// releaseNamespaceChart is the pattern of many charts: the workload names
// no namespace, the ConfigMap, Secret and Service it uses name
// {{ .Release.Namespace }}. helm install creates them all in the release
// namespace, so the references resolve; only the ConfigMap that is really
// missing is reported.
var releaseNamespaceChart = map[string]string{
	"charts/app/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
	"charts/app/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: registry.example.com/web:1.0.0
          envFrom:
            - configMapRef: {name: web}
            - secretRef: {name: web}
            - configMapRef: {name: absent}
`,
	"charts/app/templates/config.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: web
  namespace: {{ .Release.Namespace }}
data: {LOG_LEVEL: info}
---
apiVersion: v1
kind: Secret
metadata:
  name: web
  namespace: {{ .Release.Namespace | quote }}
stringData: {TOKEN: x}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: {{ .Release.Namespace }}
spec:
  selector: {app: web}
  ports: [{port: 80}]
`,
}

// TestChartObjectsWithoutNamespaceAreInTheReleaseNamespace runs the chart
// with helm's default namespace and with --namespace: the relation checks
// report exactly the missing ConfigMap, at its line.
func TestChartObjectsWithoutNamespaceAreInTheReleaseNamespace(t *testing.T) {
	root := repo(t, releaseNamespaceChart)
	for _, ns := range []string{"", "prod"} {
		fl := &config.Flags{Paths: []string{"charts/app"}}
		fl.Namespace = ns
		res, err := Check(context.Background(), configFor(t, root, nil, fl))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range res.Report.Findings {
			if strings.HasPrefix(f.RuleID, "check/F1000") {
				got = append(got, f.RuleID+" "+f.Location.File+":"+itoa(f.Location.Line))
			}
		}
		want := []string{"check/F10002 charts/app/templates/deployment.yaml:18"}
		if !slices.Equal(got, want) {
			t.Errorf("--namespace %q: relation findings %v, want %v", ns, got, want)
		}
	}
}
