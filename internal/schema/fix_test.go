package schema

import (
	"context"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/fix"
)

// fixedText runs the analyzer and the pipeline's fix stage on one file and
// returns the findings and the file after each finding's own edit.
func fixedText(t *testing.T, text string) ([]finding.Finding, []string) {
	t.Helper()
	fsys, targets := renderFiles(t, map[string]string{"app/object.yaml": text})
	out, err := (&Analyzer{}).Analyze(context.Background(), &analyzer.Input{Targets: targets})
	if err != nil {
		t.Fatal(err)
	}
	fs := out.Findings
	fix.Resolve(fs, targets, fix.Options{FS: fsys})
	var texts []string
	for _, f := range fs {
		if !f.Fixable() {
			texts = append(texts, "")
			continue
		}
		after, err := fix.ApplyEdits(map[string]string{"app/object.yaml": text}, f.Fix.Edits)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, after["app/object.yaml"])
	}
	return fs, texts
}

// The problems whose correction is certain carry a fix that becomes an
// exact edit of the line; guesses carry none.
func TestFixes(t *testing.T) {
	cases := []struct {
		name, old, new string
		text           string
		fixed          string // the line after the edit; "" for no fix
	}{
		{name: "misspelt field", old: "imagePullPolicy: IfNotPresent", new: "imagePulPolicy: IfNotPresent", fixed: "          imagePullPolicy: IfNotPresent"},
		{name: "quoted integer", old: "containerPort: 8080", new: `containerPort: "8080"`, fixed: "            - containerPort: 8080"},
		{name: "quoted replicas", old: "replicas: 2", new: `replicas: "5"`, fixed: "  replicas: 5"},
		{name: "quoted zero", old: "replicas: 2", new: `replicas: "0"`, fixed: "  replicas: 0"},
		{name: "quoted negative integer", old: "      containers:", new: "      priority: \"-1\"\n      containers:", fixed: "      priority: -1"},
		{name: "quoted boolean", old: "      containers:", new: "      hostNetwork: \"true\"\n      containers:", fixed: "      hostNetwork: true"},
		{name: "enum in the wrong case", old: "protocol: TCP", new: "protocol: tcp", fixed: "              protocol: TCP"},
		{name: "removed API with nothing else to change", text: "apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: ClusterRole\nmetadata:\n  name: r\nrules: []\n",
			fixed: "apiVersion: rbac.authorization.k8s.io/v1"},
		// Guesses: no fix.
		{name: "enum near miss", old: "imagePullPolicy: IfNotPresent", new: "imagePullPolicy: IfNotPresen"},
		{name: "number where a string goes", old: `value: "8080"`, new: "value: 8080"},
		{name: "removed API whose move changes fields", text: "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n"},
		// Strings that are not a plain decimal integer are no certain
		// number: no fix, and the message does not say to unquote them.
		{name: "a duration for an integer", old: "replicas: 2", new: `replicas: "5s"`},
		{name: "a fraction for an integer", old: "replicas: 2", new: `replicas: "1.5"`},
		{name: "an empty string for an integer", old: "replicas: 2", new: `replicas: ""`},
		{name: "an exponent", old: "replicas: 2", new: `replicas: "1e3"`},
		{name: "a sign", old: "replicas: 2", new: `replicas: "+5"`},
		{name: "a leading zero (octal to YAML 1.1)", old: "replicas: 2", new: `replicas: "010"`},
		{name: "not a number", old: "replicas: 2", new: `replicas: "NaN"`},
		{name: "hexadecimal", old: "containerPort: 8080", new: `containerPort: "0x1F90"`},
		{name: "misspelt field whose name is taken", old: "imagePullPolicy: IfNotPresent", new: "imagePullPolicy: IfNotPresent\n          imagePulPolicy: Always"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := c.text
			if text == "" {
				text = with(t, deployment, c.old, c.new)
			}
			fs, texts := fixedText(t, text)
			if len(fs) != 1 {
				t.Fatalf("want one finding:%s", list(fs))
			}
			if c.fixed == "" {
				if fs[0].Fix != nil {
					t.Errorf("a guess has a fix: %+v", fs[0].Fix)
				}
				if strings.Contains(fs[0].Message, "without quotes") {
					t.Errorf("a guess is advised: %s", fs[0].Message)
				}
				return
			}
			if !fs[0].Fixable() {
				t.Fatalf("no edit: %+v", fs[0].Fix)
			}
			want := strings.Replace(text, strings.Split(text, "\n")[fs[0].Location.Line-1], c.fixed, 1)
			if texts[0] != want {
				t.Errorf("after the edit:\n%s\nwant:\n%s", texts[0], want)
			}
			if after, _ := fixedText(t, texts[0]); len(after) != 0 {
				t.Errorf("after the edit, still:%s", list(after))
			}
		})
	}
}

// A quoted number in an int-or-string field is valid as it is: no
// finding, so no fix.
func TestQuotedNumberInIntOrStringIsNoFinding(t *testing.T) {
	text := with(t, deployment, "  replicas: 2\n", "  replicas: 2\n  strategy:\n    rollingUpdate:\n      maxSurge: \"5\"\n      maxUnavailable: \"25%\"\n")
	text = with(t, text, "containerPort: 8080\n", "containerPort: 8080\n              name: http\n")
	if fs, _ := fixedText(t, text); len(fs) != 0 {
		t.Errorf("want no finding:%s", list(fs))
	}
}
