package fix_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/pipeline"
)

// fixableChecks are the default catalog's checks with a declared fix.
var fixableChecks = []string{"check/D10001", "check/D10002", "check/D10006", "check/D10007", "check/D10011"}

const workload = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app.kubernetes.io/name: web}
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        # the shop front
        - name: web
          image: registry.example.com/shop/web:1.4.2
          ports:
            - containerPort: 8080
          resources:
            requests: {cpu: 100m, memory: 64Mi}
            limits: {memory: 128Mi}
`

// scenarios are repositories where the containers of Deployment web fail
// every fixable check, each written a different way.
var scenarios = []struct {
	name  string
	files map[string]string
	// edited is the file every fix must edit.
	edited string
}{
	{"a plain file", map[string]string{"apps/web.yaml": workload}, "apps/web.yaml"},
	{"a kustomize base", map[string]string{
		"base/kustomization.yaml":          "resources: [deploy.yaml]\n",
		"base/deploy.yaml":                 workload,
		"overlays/prod/kustomization.yaml": "resources: [../../base]\nnamePrefix: prod-\npatches:\n  - path: replicas.yaml\n",
		"overlays/prod/replicas.yaml":      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 3\n",
	}, "base/deploy.yaml"},
	{"an overlay patch", map[string]string{
		"base/kustomization.yaml":          "resources: [deploy.yaml]\n",
		"base/deploy.yaml":                 workload,
		"overlays/prod/kustomization.yaml": "resources: [../../base]\npatches:\n  - path: security.yaml\n",
		"overlays/prod/security.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers:
        - name: web
          securityContext:
            privileged: false   # never
            allowPrivilegeEscalation: true
            capabilities:
              drop: [NET_RAW]
`,
	}, "overlays/prod/security.yaml"},
}

func TestEveryFixableCheckIsFixedBySuggestedEdit(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			dir := writeRepo(t, sc.files)
			before := check(t, dir)
			var fixed []*finding.Finding
			for i := range before {
				f := &before[i]
				if !slices.Contains(fixableChecks, f.RuleID) || (sc.edited == "overlays/prod/security.yaml" && f.Object.Target != "overlays/prod") {
					continue
				}
				if !f.Fixable() {
					t.Errorf("%s on %s has no edit", f.RuleID, f.Object)
					continue
				}
				for _, e := range f.Fix.Edits {
					if e.File != sc.edited {
						t.Errorf("%s edits %s, want %s", f.RuleID, e.File, sc.edited)
					}
				}
				fixed = append(fixed, f)
			}
			rules := map[string]bool{}
			for _, f := range fixed {
				rules[f.RuleID] = true
			}
			if len(rules) != len(fixableChecks) {
				t.Fatalf("fixable findings of %v, want all of %v", rules, fixableChecks)
			}
			// Each finding's own edit, alone.
			for _, f := range fixed {
				after := check(t, editedRepo(t, sc.files, f.Fix.Edits))
				assertFixed(t, f.RuleID+" alone", before, after, []*finding.Finding{f})
			}
			// All of them at once: the joint edits of findings whose edits
			// touch the same lines, the others' own.
			var together []*finding.Finding
			var all []finding.Edit
			joints := map[*finding.JointFix]bool{}
			for _, f := range fixed {
				if f.Object.Target != fixed[0].Object.Target {
					continue
				}
				together = append(together, f)
				switch j := f.Fix.Joint; {
				case j == nil:
					all = append(all, f.Fix.Edits...)
				case !joints[j]:
					joints[j] = true
					all = append(all, j.Edits...)
				}
			}
			if len(joints) == 0 {
				t.Fatal("no joint edit: the findings that add to the same container would clash")
			}
			after := check(t, editedRepo(t, sc.files, all))
			assertFixed(t, "all edits", before, after, together)
		})
	}
}

// assertFixed checks that the findings are gone and nothing new appeared.
func assertFixed(t *testing.T, what string, before, after []finding.Finding, gone []*finding.Finding) {
	t.Helper()
	had := map[string]bool{}
	for _, f := range before {
		had[f.Fingerprint] = true
	}
	for _, f := range after {
		for _, g := range gone {
			if f.Fingerprint == g.Fingerprint {
				t.Errorf("%s: %s on %s is still there: %s", what, f.RuleID, f.Object, f.Message)
			}
		}
		if !had[f.Fingerprint] {
			t.Errorf("%s: a new finding: %s", what, f.String())
		}
	}
}

func writeRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// editedRepo writes the repository with the edits made, checking each
// replaces exactly the lines it says it does.
func editedRepo(t *testing.T, files map[string]string, edits []finding.Edit) string {
	t.Helper()
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	// From the bottom up, so that each edit's lines are where it says.
	edits = slices.Clone(edits)
	slices.SortFunc(edits, func(a, b finding.Edit) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return b.StartLine - a.StartLine
	})
	for _, e := range edits {
		text, ok := out[e.File]
		if !ok {
			t.Fatalf("an edit of %s, which is not in the repository", e.File)
		}
		lines := strings.SplitAfter(text, "\n")
		if got := strings.Join(lines[e.StartLine-1:e.EndLine], ""); got != e.Old {
			t.Fatalf("%s:%d-%d is %q, the edit says %q", e.File, e.StartLine, e.EndLine, got, e.Old)
		}
		out[e.File] = strings.Join(lines[:e.StartLine-1], "") + e.New + strings.Join(lines[e.EndLine:], "")
	}
	return writeRepo(t, out)
}

// check runs plumb check on dir with the default catalog.
func check(t *testing.T, dir string) []finding.Finding {
	t.Helper()
	fset := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := config.BindCheckFlags(fset)
	fl.Root = dir
	cfg, err := config.Load(fl, dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Reproducible = true
	res, err := pipeline.Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res.Report.Findings
}
