package compare

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// The telco RAN DU reference (kube-compare metadata v2, 98 templates) from
// the shared corpus. Its CI renders the reference with the default values
// in hack/default_value.yaml (through kube-compare's helm-convert) and
// expects the result to be the conforming source CRs; ranInputs does the
// same rendering in-process.

func ranDir(tb testing.TB) string {
	tb.Helper()
	return testcorpus.Dir(tb, "telco-ran-reference")
}

func loadRAN(tb testing.TB) *Reference {
	tb.Helper()
	ref, ps := LoadPath(filepath.Join(ranDir(tb), "metadata.yaml"), "telco-ran-reference")
	if len(ps.Errors()) > 0 {
		tb.Fatalf("the RAN reference does not load:\n%v", ps.Errors())
	}
	return ref
}

// ranValuesKey is helm-convert's values key of a template: its path
// without the extension, with '/', '-' and '.' turned into '_'.
func ranValuesKey(p string) string {
	p = strings.TrimSuffix(p, filepath.Ext(p))
	return strings.NewReplacer("/", "_", "-", "_", ".", "_").Replace(p)
}

// ranExtraValues render the reference-only templates that the upstream
// values leave out (they are excluded from its source-CR comparison): a
// cluster at the reference's OpenShift version, and a PerformanceProfile
// for x86_64 (hack/arch/x86_64.yaml, merged below).
var ranExtraValues = map[string][]any{
	"version_check_ClusterVersionOperator": {map[string]any{
		"status": map[string]any{"desired": map[string]any{"version": "4.22.3"}},
	}},
}

// ranNode is the Node the PerformanceProfile's architecture detection
// (lookupCRs) finds; the fetch-only Node template accepts any Node.
const ranNode = `apiVersion: v1
kind: Node
metadata:
  name: du-node-0
  labels:
    kubernetes.io/arch: amd64
    node-role.kubernetes.io/$mcp: ""
spec:
  podCIDR: 10.128.0.0/23
`

func readValues(tb testing.TB, file string) map[string]any {
	tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		tb.Fatal(err)
	}
	v, err := parseYAMLValue(file, string(data))
	if err != nil {
		tb.Fatal(err)
	}
	return v.(map[string]any)
}

// ranInputs renders one conforming input set: every template of every
// component with its default values (the first template of oneOf and
// anyOneOf components, nothing for noneOf), capture groups replaced by
// their defaults, plus the Node.
func ranInputs(tb testing.TB, ref *Reference) []*manifest.Object {
	tb.Helper()
	dir := ranDir(tb)
	values := readValues(tb, filepath.Join(dir, "hack", "default_value.yaml"))
	for k, v := range readValues(tb, filepath.Join(dir, "hack", "arch", "x86_64.yaml")) {
		values[k] = v
	}
	for k, v := range ranExtraValues {
		values[k] = v
	}
	subst, _ := lookupPath(values, []string{"global", "lookup_substitutions", "lookupCRs_v1_Node"}, false)
	funcs := template.FuncMap{
		"lookupCRs": func(string, string, string, string) []any { l, _ := subst.([]any); return l },
		"lookupCR":  func(string, string, string, string) any { return nil },
	}
	var out []*manifest.Object
	for _, p := range ref.Parts {
		for _, c := range p.Components {
			ts := c.Templates
			switch c.Group {
			case OneOf, AnyOneOf:
				ts = ts[:1]
			case NoneOf:
				ts = nil
			}
			for _, t := range ts {
				if t.fixed.Kind == "Node" && t.fixed.Name == "" {
					continue // the fetch-only catch-all; ranNode stands in
				}
				entries, _ := values[ranValuesKey(t.Path)].([]any)
				if len(entries) == 0 {
					entries = []any{map[string]any{}}
				}
				for i, e := range entries {
					out = append(out, renderRANInput(tb, t, funcs, e.(map[string]any), fmt.Sprintf("%s#%d", t.Path, i)))
				}
			}
		}
	}
	node, err := parseYAMLObject("node", ranNode)
	if err != nil {
		tb.Fatal(err)
	}
	return append(out, &manifest.Object{ID: manifest.IDOf(node, ""), Content: node})
}

func renderRANInput(tb testing.TB, t *Template, funcs template.FuncMap, entry map[string]any, name string) *manifest.Object {
	tb.Helper()
	data := copyMap(entry)
	defaults, _ := data["captureGroup_defaults"].(map[string]any)
	delete(data, "captureGroup_defaults")
	tmpl, err := t.tmpl.Clone()
	if err != nil {
		tb.Fatal(err)
	}
	obj, _, err := renderTemplate(boundedForTest(tmpl.Funcs(funcs)), data, t.Path)
	if err != nil {
		tb.Fatalf("rendering %s with its default values: %v", name, err)
	}
	for _, pf := range t.perField {
		v, ok := lookupPath(obj, pf.segs, true)
		s, isString := v.(string)
		if !ok || !isString {
			continue
		}
		segs, err := parseCaptureGroups(s)
		if err != nil {
			tb.Fatal(err)
		}
		var b strings.Builder
		for _, seg := range segs {
			if !seg.group {
				b.WriteString(seg.literal)
				continue
			}
			d, ok := defaults[seg.name]
			if !ok {
				tb.Fatalf("%s: no captureGroup_defaults value for %s", name, seg.name)
			}
			v := dedent(evalDefault(tb, fmt.Sprint(d)))
			if !regexp.MustCompile("^" + seg.text + "$").MatchString(v) {
				// A placeholder such as $percent_number that the group's
				// own pattern rejects: kube-compare would report it.
				if v, ok = ranCaptureValues[seg.name]; !ok {
					tb.Fatalf("%s: the default %q of %s does not match %s", name, fmt.Sprint(d), seg.name, seg.text)
				}
			}
			b.WriteString(v)
		}
		setPath(obj, pf.segs, b.String())
	}
	return &manifest.Object{ID: manifest.IDOf(obj, ""), Content: obj}
}

// ranCaptureValues stand in for capture-group defaults that are
// placeholders rejected by the group's own pattern.
var ranCaptureValues = map[string]string{
	"cpufreq_max_perf_percent": "80",
	"cpufreq_governor":         "performance",
}

// dedent removes the indentation common to the second and later lines of a
// multi-line default: the values file indents them for the helm template
// they were written for, relative to the first line.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) < 2 {
		return s
	}
	common := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	for i := 1; i < len(lines) && common > 0; i++ {
		if len(lines[i]) >= common {
			lines[i] = lines[i][common:]
		}
	}
	return strings.Join(lines, "\n")
}

// evalDefault renders a default that is itself a Go template expression
// (the ACM hub templates in the monitoring defaults are written escaped as
// {{ `...` }}).
func evalDefault(tb testing.TB, s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	t, err := template.New("default").Parse(s)
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	if err := t.Execute(&b, nil); err != nil {
		tb.Fatal(err)
	}
	return b.String()
}

func TestRANConformingInputsHaveNoDrift(t *testing.T) {
	ref := loadRAN(t)
	inputs := ranInputs(t, ref)
	res := ref.Compare(context.Background(), inputs, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("template errors:\n%v", res.Errors)
	}
	for _, c := range res.Compared {
		if c.HasDiff {
			t.Errorf("%s against %s differs:\n%s", c.Identity(), c.Template.Path, c.DiffOutput())
		}
	}
	for _, u := range res.Unmatched {
		t.Errorf("unmatched: %s", u.ID)
	}
	for _, is := range res.Issues {
		var names []string
		for _, tp := range is.Templates {
			names = append(names, tp.Path)
		}
		t.Errorf("validation issue in %s/%s: %s: %v", is.Part.Name, is.Component.Name, is.Msg, names)
	}
	t.Logf("%d inputs, %d compared, TotalCRs %d", len(inputs), len(res.Compared), res.TotalCRs)
}

// findInput returns the input of a kind and name.
func findInput(tb testing.TB, inputs []*manifest.Object, kind, name string) (int, *manifest.Object) {
	tb.Helper()
	for i, o := range inputs {
		if o.ID.Kind == kind && o.ID.Name == name {
			return i, o
		}
	}
	tb.Fatalf("no %s %s in the conforming inputs", kind, name)
	return 0, nil
}

func TestRANInjectedChanges(t *testing.T) {
	ref := loadRAN(t)
	inputs := ranInputs(t, ref)
	edit := func(kind, name string, path []string, change func(any) any) {
		_, o := findInput(t, inputs, kind, name)
		v, ok := lookupPath(o.Content, path, true)
		if !ok {
			t.Fatalf("%s %s has no %v", kind, name, path)
		}
		setPath(o.Content, path, change(v))
	}
	edit("PerformanceProfile", "openshift-node-performance-profile", []string{"spec", "workloadHints", "realTime"}, func(any) any { return false })
	edit("Subscription", "cluster-logging", []string{"spec", "channel"}, func(any) any { return "stable-6.4" })
	edit("PtpConfig", "gnrd-tgm", []string{"spec", "profile", "0", "ptp4lConf"}, func(v any) any {
		return strings.Replace(v.(string), "clockClass 6\n", "clockClass 7\n", 1)
	})
	remove := func(kind, name string) {
		i, _ := findInput(t, inputs, kind, name)
		inputs = append(inputs[:i], inputs[i+1:]...)
	}
	remove("OperatorGroup", "cluster-logging")
	remove("Namespace", "openshift-lifecycle-agent")
	remove("ServiceAccount", "collector") // still referenced by the logging ClusterRoleBindings

	res := ref.Compare(context.Background(), inputs, Options{})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	want := map[string][]string{
		"performance.openshift.io/v2_PerformanceProfile_openshift-node-performance-profile": {"-    realTime: true", "+    realTime: false"},
		"operators.coreos.com/v1alpha1_Subscription_openshift-logging_cluster-logging":      {"-  channel: stable-6.5", "+  channel: stable-6.4"},
		"ptp.openshift.io/v1_PtpConfig_openshift-ptp_gnrd-tgm":                              {"-      clockClass 6", "+      clockClass 7"},
	}
	for _, c := range res.Compared {
		var changed []string
		for _, l := range c.Lines {
			if l.op != opEqual {
				changed = append(changed, string(l.op)+l.text)
			}
		}
		if strings.Join(changed, "\n") != strings.Join(want[c.Identity()], "\n") {
			t.Errorf("%s (%s): changed lines\n%s\nwant\n%s", c.Identity(), c.Template.Path, strings.Join(changed, "\n"), strings.Join(want[c.Identity()], "\n"))
		}
	}
	if res.NumDiffCRs != len(want) {
		t.Errorf("NumDiffCRs %d, want %d", res.NumDiffCRs, len(want))
	}
	var issues []string
	for _, is := range res.Issues {
		var names []string
		for _, tp := range is.Templates {
			names = append(names, tp.Path)
		}
		issues = append(issues, fmt.Sprintf("%s/%s: %s: %s", is.Part.Name, is.Component.Name, is.Msg, strings.Join(names, ",")))
	}
	wantIssues := []string{
		"required-cluster-logging/cluster-logging: Missing CRs: cluster-logging/ClusterLogOperGroup.yaml",
		"optional-lca/lca: Missing CRs: lca/LcaSubscriptionNS.yaml",
	}
	if strings.Join(issues, "\n") != strings.Join(wantIssues, "\n") || res.NumMissing != 2 {
		t.Errorf("issues (NumMissing %d):\n%s\nwant\n%s", res.NumMissing, strings.Join(issues, "\n"), strings.Join(wantIssues, "\n"))
	}
	if len(res.Inferred) != 1 || res.Inferred[0].Path != "cluster-logging/ClusterLogServiceAccount.yaml" {
		t.Errorf("inferred %v", res.Inferred)
	}
	if !res.Report(ReportOptions{}).HasDrift() {
		t.Error("drift must exit 1")
	}
}

// ranFormats checks that every report format says the same thing: exactly
// the inputs of wantDiffs differ (each diff holding its lines), and
// exactly wantIssues (part/component: templates) are raised.
func ranFormats(t *testing.T, res *Result, wantDiffs map[string][]string, wantIssues []string) {
	t.Helper()
	out := res.Report(ReportOptions{})
	var text, js, ym, ju strings.Builder
	for _, w := range []struct {
		f func(io.Writer) error
		b *strings.Builder
	}{{out.Text, &text}, {out.JSON, &js}, {out.YAML, &ym}, {out.JUnit, &ju}} {
		if err := w.f(w.b); err != nil {
			t.Fatal(err)
		}
	}
	// Text: one block per differing input, and the summary.
	blocks := strings.Count(text.String(), "Cluster CR: ")
	if blocks != len(wantDiffs) {
		t.Errorf("text: %d diff blocks, want %d", blocks, len(wantDiffs))
	}
	mustContain(t, text.String(), fmt.Sprintf("CRs with diffs: %d/%d\n", len(wantDiffs), res.TotalCRs))
	if len(wantIssues) == 0 {
		mustContain(t, text.String(), "No validation issues with the cluster\n")
	}
	for id, lines := range wantDiffs {
		mustContain(t, text.String(), "Cluster CR: "+id+"\n")
		mustContain(t, text.String(), lines...)
	}
	// JSON and YAML: the same shape.
	for name, decode := range map[string]func() (*Output, error){
		"json": func() (*Output, error) { var o Output; return &o, json.Unmarshal([]byte(js.String()), &o) },
		"yaml": func() (*Output, error) { var o Output; return &o, sigsyaml.Unmarshal([]byte(ym.String()), &o) },
	} {
		o, err := decode()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		differing := map[string]string{}
		for _, d := range o.Diffs {
			if d.DiffOutput != "" {
				differing[d.CRName] = d.DiffOutput
			}
			if d.Description == "" && res.Ref.Template(d.CorrelatedTemplate).Description != "" {
				t.Errorf("%s: %s lacks its template's description", name, d.CRName)
			}
		}
		if len(differing) != len(wantDiffs) || o.Summary.NumDiffCRs != len(wantDiffs) || len(o.Diffs) != len(res.Compared) {
			t.Errorf("%s: %d differing of %d diffs (NumDiffCRs %d), want %d of %d", name, len(differing), len(o.Diffs), o.Summary.NumDiffCRs, len(wantDiffs), len(res.Compared))
		}
		for id, lines := range wantDiffs {
			mustContain(t, differing[id], lines...)
		}
		var issues []string
		for part, comps := range o.Summary.ValidationIssues {
			for comp, vi := range comps {
				issues = append(issues, fmt.Sprintf("%s/%s: %s: %s", part, comp, vi.Msg, strings.Join(vi.CRs, ",")))
			}
		}
		slices.Sort(issues)
		want := slices.Sorted(slices.Values(wantIssues))
		if strings.Join(issues, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s issues:\n%s\nwant\n%s", name, strings.Join(issues, "\n"), strings.Join(want, "\n"))
		}
	}
	// JUnit: a failing case per differing input and per issue.
	var suites junitSuites
	if err := xml.Unmarshal([]byte(ju.String()), &suites); err != nil {
		t.Fatal(err)
	}
	if f := suites.Suites[0].Failures; f != len(wantDiffs) {
		t.Errorf("junit: %d difference failures, want %d", f, len(wantDiffs))
	}
	for _, c := range suites.Suites[0].Cases {
		_, differs := wantDiffs[strings.TrimPrefix(c.Name, "CR: ")]
		if (c.Failure != nil) != differs {
			t.Errorf("junit: case %s failure %v", c.Name, c.Failure != nil)
		}
	}
	if f := suites.Suites[1].Failures; f != len(wantIssues) {
		t.Errorf("junit: %d validation failures, want %d", f, len(wantIssues))
	}
}

func TestRANReportFormats(t *testing.T) {
	ref := loadRAN(t)
	inputs := ranInputs(t, ref)
	res := ref.Compare(context.Background(), inputs, Options{})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	t.Run("conforming", func(t *testing.T) { ranFormats(t, res, nil, nil) })

	perturbed := ranInputs(t, ref)
	_, o := findInput(t, perturbed, "Subscription", "cluster-logging")
	setPath(o.Content, []string{"spec", "channel"}, "stable-6.4")
	i, _ := findInput(t, perturbed, "OperatorGroup", "cluster-logging")
	perturbed = append(perturbed[:i], perturbed[i+1:]...)
	res = ref.Compare(context.Background(), perturbed, Options{})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	t.Run("perturbed", func(t *testing.T) {
		ranFormats(t, res,
			map[string][]string{"operators.coreos.com/v1alpha1_Subscription_openshift-logging_cluster-logging": {"-  channel: stable-6.5", "+  channel: stable-6.4"}},
			[]string{"required-cluster-logging/cluster-logging: Missing CRs: cluster-logging/ClusterLogOperGroup.yaml"})
	})
}
