package fix

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// plainObject reads the document of file that holds an object named name,
// as the loader does for a plain manifest (the document is its own
// provenance).
func plainObject(t *testing.T, file, text, name string) *manifest.Object {
	t.Helper()
	docs, problems := manifest.Parse(file, []byte(text), manifest.Limits{})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	for _, d := range docs {
		m, _ := d.Value.(map[string]any)
		if md, _ := m["metadata"].(map[string]any); md != nil && md["name"] == name {
			kind, _ := m["kind"].(string)
			return &manifest.Object{ID: manifest.ObjectID{Kind: kind, Name: name}, Content: m, Origin: d, Doc: d}
		}
	}
	t.Fatalf("no object %s", name)
	return nil
}

func set(path string, v any) finding.Change {
	return finding.Change{Op: finding.ChangeSet, Path: manifest.MustParsePath(path), Value: v}
}

// fixText resolves changes on the object named name of a one-file
// repository and returns the file after the edits.
func fixText(t *testing.T, file, text, name string, changes ...finding.Change) (string, error) {
	t.Helper()
	r := newResolver(Options{FS: fstest.MapFS{file: {Data: []byte(text)}}})
	ops, err := r.ops(plainObject(t, file, text, name), changes)
	if err != nil {
		return "", err
	}
	drafts, err := r.makeAll(ops, true)
	if err != nil {
		return "", err
	}
	return drafts[file].text(), nil
}

const container = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
        - name: web   # the shop front
          image: nginx:1.25
`

func TestEditsKeepTheFilesStyle(t *testing.T) {
	c0 := "spec.template.spec.containers[0]."
	for _, c := range []struct {
		name, file, in string
		changes        []finding.Change
		want           string
	}{
		{"a container without securityContext: after its name", "d.yaml", container,
			[]finding.Change{set(c0+"securityContext.runAsNonRoot", true)},
			strings.Replace(container, "# the shop front\n", "# the shop front\n          securityContext:\n            runAsNonRoot: true\n", 1)},
		{"several settings, one after another", "d.yaml", container,
			[]finding.Change{set(c0+"securityContext.runAsNonRoot", true), set(c0+"securityContext.capabilities.drop", []any{"ALL"}),
				set(c0+"securityContext.seccompProfile.type", "RuntimeDefault")},
			strings.Replace(container, "front\n", "front\n          securityContext:\n            seccompProfile:\n              type: RuntimeDefault\n            capabilities:\n              drop: [ALL]\n            runAsNonRoot: true\n", 1)},
		{"an existing block securityContext: first in it", "d.yaml",
			container + "          securityContext:\n            runAsUser: 1000 # uid\n",
			[]finding.Change{set(c0+"securityContext.allowPrivilegeEscalation", false)},
			container + "          securityContext:\n            allowPrivilegeEscalation: false\n            runAsUser: 1000 # uid\n"},
		{"a flow securityContext stays flow", "d.yaml",
			container + "          securityContext: {runAsUser: 1000}\n",
			[]finding.Change{set(c0+"securityContext.seccompProfile.type", "RuntimeDefault")},
			container + "          securityContext: {seccompProfile: {type: RuntimeDefault}, runAsUser: 1000}\n"},
		{"an empty flow mapping", "d.yaml",
			container + "          securityContext: {}\n",
			[]finding.Change{set(c0+"securityContext.readOnlyRootFilesystem", true)},
			container + "          securityContext: {readOnlyRootFilesystem: true}\n"},
		{"a wrong value is replaced, its comment kept", "d.yaml",
			container + "          securityContext:\n            allowPrivilegeEscalation: true # for now\n",
			[]finding.Change{set(c0+"securityContext.allowPrivilegeEscalation", false)},
			container + "          securityContext:\n            allowPrivilegeEscalation: false # for now\n"},
		{"a quoted string keeps its quotes", "d.yaml",
			container + "          imagePullPolicy: \"Always\"\n",
			[]finding.Change{set(c0+"imagePullPolicy", "IfNotPresent")},
			container + "          imagePullPolicy: \"IfNotPresent\"\n"},
		{"an empty securityContext: gets its keys", "d.yaml",
			container + "          securityContext:\n          ports: []\n",
			[]finding.Change{set(c0+"securityContext.runAsNonRoot", true)},
			container + "          securityContext:\n            runAsNonRoot: true\n          ports: []\n"},
		{"a null securityContext: ~", "d.yaml",
			container + "          securityContext: ~ # later\n",
			[]finding.Change{set(c0+"securityContext.runAsNonRoot", true)},
			container + "          securityContext: # later\n            runAsNonRoot: true\n"},
		{"a flow list is replaced in flow", "d.yaml",
			container + "          securityContext:\n            capabilities:\n              drop: [NET_RAW] # raw sockets\n",
			[]finding.Change{set(c0+"securityContext.capabilities.drop", []any{"ALL"})},
			container + "          securityContext:\n            capabilities:\n              drop: [ALL] # raw sockets\n"},
		{"a block list is replaced in block", "d.yaml",
			container + "          securityContext:\n            capabilities:\n              drop:\n              - NET_RAW\n              - CHOWN\n",
			[]finding.Change{set(c0+"securityContext.capabilities.drop", []any{"ALL"})},
			container + "          securityContext:\n            capabilities:\n              drop:\n              - ALL\n"},
		{"four-space indentation and block lists", "d.yaml",
			"apiVersion: v1\nkind: Pod\nmetadata:\n    name: web\nspec:\n    containers:\n        -   name: web\n            args:\n                - run\n",
			[]finding.Change{set("spec.containers[0].securityContext.capabilities.drop", []any{"ALL"})},
			"apiVersion: v1\nkind: Pod\nmetadata:\n    name: web\nspec:\n    containers:\n        -   name: web\n            securityContext:\n                capabilities:\n                    drop:\n                        - ALL\n            args:\n                - run\n"},
		{"the second document of a file", "d.yaml",
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n---\n" + container,
			[]finding.Change{set(c0+"securityContext.runAsNonRoot", true)},
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n---\n" + strings.Replace(container, "front\n", "front\n          securityContext:\n            runAsNonRoot: true\n", 1)},
		{"pretty-printed JSON", "d.json",
			"{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"web\"},\n  \"spec\": {\n    \"containers\": [\n      {\n        \"name\": \"web\",\n        \"image\": \"nginx\"\n      }\n    ]\n  }\n}\n",
			[]finding.Change{set("spec.containers[0].securityContext.runAsNonRoot", true)},
			"{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"metadata\": {\"name\": \"web\"},\n  \"spec\": {\n    \"containers\": [\n      {\n        \"securityContext\": {\"runAsNonRoot\": true},\n        \"name\": \"web\",\n        \"image\": \"nginx\"\n      }\n    ]\n  }\n}\n"},
		{"a key renamed", "d.yaml",
			container + "          imagePulPolicy: Always\n",
			[]finding.Change{{Op: finding.ChangeRename, Path: manifest.MustParsePath(c0 + "imagePulPolicy"), To: "imagePullPolicy"}},
			container + "          imagePullPolicy: Always\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := fixText(t, c.file, c.in, "web", c.changes...)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// Where an edit would not be exact, there is none.
func TestNoEditWhereItWouldNotBeExact(t *testing.T) {
	c0 := "spec.template.spec.containers[0]."
	for _, c := range []struct {
		name, in string
		change   finding.Change
		why      string
	}{
		{"an anchored container", strings.Replace(container, "- name: web", "- &web\n          name: web", 1),
			set(c0+"securityContext.runAsNonRoot", true), "anchor"},
		{"a parameter, not a value", container + "          imagePullPolicy: ${PULL_POLICY}\n",
			set(c0+"imagePullPolicy", "IfNotPresent"), "parameter"},
		{"a Helm template", container + "          imagePullPolicy: \"{{ .Values.pullPolicy }}\"\n",
			set(c0+"imagePullPolicy", "IfNotPresent"), "template"},
		{"CRLF line ends", strings.ReplaceAll(container, "\n", "\r\n"), set(c0+"securityContext.runAsNonRoot", true), "CRLF"},
		{"a merge key", "base: &b {runAsUser: 1}\n" + container + "          securityContext:\n            <<: *b\n",
			set(c0+"securityContext.runAsNonRoot", true), "merge key"},
		{"a list item that is not there", container, set("spec.template.spec.containers[3].securityContext.runAsNonRoot", true), "list item"},
		{"a multi-line value", container + "          command: >\n            run\n            now\n", set(c0+"command", "go"), "several lines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := fixText(t, "d.yaml", c.in, "web", c.change)
			if err == nil {
				t.Fatalf("edited:\n%s", got)
			}
			if !strings.Contains(err.Error(), c.why) {
				t.Errorf("err = %v, want it to say %q", err, c.why)
			}
		})
	}
}

func TestLineEdit(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		avoid map[int]bool
		want  finding.Edit
	}{
		{"a\nb\nc\n", "a\nb\nX\nc\n", nil, finding.Edit{File: "f", StartLine: 2, EndLine: 2, Old: "b\n", New: "b\nX\n"}},
		{"a\nb\n", "X\na\nb\n", nil, finding.Edit{File: "f", StartLine: 1, EndLine: 1, Old: "a\n", New: "X\na\n"}},
		{"a\nb", "a\nB", nil, finding.Edit{File: "f", StartLine: 2, EndLine: 2, Old: "b", New: "B"}},
		{"a\nb\n", "a\nb\nc\n", nil, finding.Edit{File: "f", StartLine: 2, EndLine: 2, Old: "b\n", New: "b\nc\n"}},
		// The line before an insertion holds a credential: the line after
		// carries the edit instead.
		{"a\nb\nc\n", "a\nb\nX\nc\n", map[int]bool{2: true}, finding.Edit{File: "f", StartLine: 3, EndLine: 3, Old: "c\n", New: "X\nc\n"}},
	} {
		got, changed, ok := lineEdit("f", c.a, c.b, c.avoid)
		if !ok || !changed || got != c.want {
			t.Errorf("lineEdit(%q, %q) = %+v, want %+v", c.a, c.b, got, c.want)
		}
	}
	if _, _, ok := lineEdit("f", "a\nb\n", "a\nB\n", map[int]bool{2: true}); ok {
		t.Error("an edit of a credential's line")
	}
}

// A container whose environment holds a credential: the edit is not
// allowed to carry the credential's line, nor the span to a finding.
func TestEditsNeverCarryACredential(t *testing.T) {
	in := strings.Replace(container, "        - name: web   # the shop front\n          image: nginx:1.25\n",
		"        - env:\n            - name: DB_PASSWORD\n              value: hunter2\n          name: web\n          image: nginx:1.25\n", 1)
	r := newResolver(Options{FS: fstest.MapFS{"d.yaml": {Data: []byte(in)}}})
	obj := plainObject(t, "d.yaml", in, "web")
	ops, err := r.ops(obj, []finding.Change{set("spec.template.spec.containers[0].securityContext.runAsNonRoot", true)})
	if err != nil {
		t.Fatal(err)
	}
	edits, err := r.edits(ops, true, secretLines(obj))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		if strings.Contains(e.Old+e.New, "hunter2") {
			t.Errorf("the edit carries the credential: %+v", e)
		}
	}
	loc, _ := obj.Locate(manifest.MustParsePath("spec.template.spec.containers[0]"))
	if sp := r.span(edits, loc, secretLines(obj)); sp != nil {
		t.Errorf("a span over the credential: %+v", sp)
	}
}
