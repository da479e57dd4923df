package policy

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/warning"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
)

// recorder collects the warnings the API server's dispatcher adds.
type recorder struct {
	mu   sync.Mutex
	seen []string
}

func (r *recorder) AddWarning(_, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, text)
}

var warningText = regexp.MustCompile(`^Validation failed for ValidatingAdmissionPolicy '([^']*)' with binding '([^']*)': (.*)$`)
var denyText = regexp.MustCompile(`ValidatingAdmissionPolicy '([^']*)' with binding '([^']*)' denied request: (.*)$`)

// libraryVerdict is what the API server's own ValidatingAdmissionPolicy
// dispatcher decides for one object: whether it denies (and with which
// policy, binding and message first), the warnings, and the audit-only
// failures.
type libraryVerdict struct {
	denied   bool
	first    string // policy\x00binding\x00message
	warnings []string
	audits   []string
}

func libraryEvaluate(t *testing.T, w *world, set *policySet, target int, req *request) libraryVerdict {
	t.Helper()
	tw := w.targets[target]
	var hooks []validating.PolicyHook
	for _, p := range set.policies {
		h := validating.PolicyHook{Policy: p.vap, Evaluator: p.c.validator}
		for _, b := range p.bindings {
			h.Bindings = append(h.Bindings, b.b)
		}
		if pk := p.vap.Spec.ParamKind; pk != nil {
			key := paramKey(pk.APIVersion, pk.Kind)
			h.ParamInformer, h.ParamScope = tw.params[key], tw.paramScope[key]
		}
		hooks = append(hooks, h)
	}
	rec := &recorder{}
	ctx := warning.WithWarningRecorder(context.Background(), rec)
	attrs := &auditedAttributes{Attributes: req.attr, annotations: map[string]string{}}
	err := validating.NewDispatcher(nil, tw.matcher).Dispatch(ctx, attrs, w.oi, hooks)
	v := libraryVerdict{}
	if err != nil {
		v.denied = true
		m := denyText.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("unexpected denial %v", err)
		}
		v.first = m[1] + "\x00" + m[2] + "\x00" + m[3]
	}
	for _, s := range rec.seen {
		m := warningText.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("unexpected warning %q", s)
		}
		v.warnings = append(v.warnings, m[1]+"\x00"+m[2]+"\x00"+m[3])
	}
	type failure struct {
		Message           string                         `json:"message"`
		Policy            string                         `json:"policy"`
		Binding           string                         `json:"binding"`
		ValidationActions []admissionv1.ValidationAction `json:"validationActions"`
	}
	if raw := attrs.annotations["validation.policy.admission.k8s.io/validation_failure"]; raw != "" {
		var fs []failure
		if err := json.Unmarshal([]byte(raw), &fs); err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			if len(f.ValidationActions) == 1 && f.ValidationActions[0] == admissionv1.Audit {
				v.audits = append(v.audits, f.Policy+"\x00"+f.Binding+"\x00"+f.Message)
			}
		}
	}
	sort.Strings(v.warnings)
	sort.Strings(v.audits)
	return v
}

// TestVerdictsMatchTheAPIServerLibrary evaluates the same objects with
// plumb's analyzer and with the API server library's own dispatcher
// (validating.NewDispatcher: its matching, params, validation actions),
// and asserts they agree on every object: denied or not, the denial's
// policy and message among plumb's errors, the warnings, the audit-only
// failures.
func TestVerdictsMatchTheAPIServerLibrary(t *testing.T) {
	files := map[string]string{
		"typical.yaml":    typicalPolicies(t),
		"docs.yaml":       docsDemoPolicy,
		"params.yaml":     docsParamsPolicy,
		"limit.yaml":      docsReplicaLimit,
		"namespaces.yaml": docsNamespaces,
		"good.yaml":       strings.Replace(compliantDeployment, "name: web\n", "name: web-ok\n", 1),
		"bad.yaml":        brokenDeployment,
		"test-7.yaml":     deployment("seven", "test", 7, "registry.example.com/a:1"),
		"test-2.yaml":     deployment("two", "test", 2, "docker.io/a:latest"),
		"prod-60.yaml":    deployment("sixty", "prod", 60, "ghcr.io/example/b:2"),
		"svc.yaml":        "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: test}\nspec:\n  type: NodePort\n  ports: [{port: 80}]\n",
		"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: kube-system}\nspec:\n  hostPID: true\n  containers:\n  - name: c\n    image: nginx\n" +
			"---\napiVersion: v1\nkind: Pod\nmetadata: {name: q, namespace: apps}\nspec:\n  hostPID: true\n  volumes: [{name: h, hostPath: {path: /}}]\n  containers:\n  - name: c\n    image: nginx\n    imagePullPolicy: Never\n",
	}
	targets := renderFiles(t, files)
	a := &Analyzer{}
	out, err := a.Analyze(context.Background(), &analyzer.Input{Targets: targets})
	if err != nil {
		t.Fatal(err)
	}
	type levels struct{ errors, warnings, notes map[string]bool }
	got := map[string]*levels{}
	for _, f := range out.Findings {
		if f.Object.Kind == kindPolicy || f.Object.Kind == kindBinding {
			t.Fatalf("a finding about a policy: %s", f.String())
		}
		l := got[f.Object.Key()]
		if l == nil {
			l = &levels{map[string]bool{}, map[string]bool{}, map[string]bool{}}
			got[f.Object.Key()] = l
		}
		policy := strings.TrimPrefix(f.RuleID, "policy/")
		binding := strings.TrimSuffix(strings.SplitN(f.Title, "(binding ", 2)[1], ")")
		key := policy + "\x00" + binding + "\x00" + f.Message
		switch f.Level {
		case finding.Error:
			l.errors[key] = true
		case finding.Warning:
			l.warnings[key] = true
		case finding.Note:
			l.notes[key] = true
		}
	}
	set := collectPolicies(targets, nil, nil)
	w := newWorld(targets, set)
	checked, denied := 0, 0
	for ti, tg := range targets {
		for _, o := range tg.Objects {
			if excludedGroup(o.ID.Group()) {
				continue
			}
			checked++
			lib := libraryEvaluate(t, w, set, ti, w.newRequest(ti, o, nil))
			mine := got[o.ID.Key()]
			if mine == nil {
				mine = &levels{map[string]bool{}, map[string]bool{}, map[string]bool{}}
			}
			if lib.denied != (len(mine.errors) > 0) || (lib.denied && !mine.errors[lib.first]) {
				t.Errorf("%s: the library denies %v (%q), plumb's errors %v", o.ID, lib.denied, lib.first, keys(mine.errors))
			}
			if lib.denied {
				denied++
			}
			if !equalSets(lib.warnings, mine.warnings) {
				t.Errorf("%s: the library warns %q, plumb %q", o.ID, lib.warnings, keys(mine.warnings))
			}
			if !equalSets(lib.audits, mine.notes) {
				t.Errorf("%s: the library audits %q, plumb %q", o.ID, lib.audits, keys(mine.notes))
			}
		}
	}
	if checked < 10 || denied < 4 {
		t.Fatalf("checked %d objects, %d denied: the inputs do not exercise the policies", checked, denied)
	}
}

// auditedAttributes keeps the audit annotations the dispatcher publishes.
type auditedAttributes struct {
	admission.Attributes
	annotations map[string]string
}

func (a *auditedAttributes) AddAnnotation(key, value string) error {
	a.annotations[key] = value
	return nil
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func equalSets(list []string, set map[string]bool) bool {
	seen := map[string]bool{}
	for _, s := range list {
		seen[s] = true
	}
	if len(seen) != len(set) {
		return false
	}
	for s := range seen {
		if !set[s] {
			return false
		}
	}
	return true
}
