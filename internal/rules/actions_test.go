package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

func findingsOf(s *subject) []finding.Finding {
	var out []finding.Finding
	for _, f := range s.findings {
		out = append(out, f.Finding)
	}
	return out
}

func errorsOf(s *subject) []string {
	var out []string
	for _, f := range s.findings {
		if f.Title == "Inspection rule error" {
			if f.InputError || f.Level != finding.Error {
				panic("a rule error must be an error finding, not an input error: " + f.Message)
			}
			out = append(out, f.Message)
		}
	}
	return out
}

// log's levels map onto finding levels (debug and info are notes, warning
// a warning, error and critical errors; the level is case-insensitive), and
// path points the finding at a field.
func TestLogLevels(t *testing.T) {
	s := runOn(t, `
- uuid: logger
  actions:
    - {op: log, args: {msg: debug, level: DEBUG}}
    - {op: log, args: {msg: info, level: info}}
    - {op: log, args: {msg: careful, level: warning}}
    - {op: log, args: {msg: bad, level: error}}
    - {op: log, args: {msg: worse, level: critical, path: driver_info.ipmi_address}}
`, Options{}, ironicNode(), nil, nil)
	fs := findingsOf(s)
	want := []finding.Level{finding.Note, finding.Note, finding.Warning, finding.Error, finding.Error}
	if len(fs) != len(want) {
		t.Fatalf("findings:\n%s", messages(fs))
	}
	for i, w := range want {
		if fs[i].Level != w || fs[i].InputError {
			t.Errorf("finding %d: %v %q", i, fs[i].Level, fs[i].Message)
		}
	}
	if fs[4].Path.String() != "driver_info.ipmi_address" || fs[4].Key == fs[3].Key {
		t.Errorf("log path %v, keys %s %s", fs[4].Path, fs[3].Key, fs[4].Key)
	}
	if s.stopped {
		t.Error("an error-level log stopped the subject")
	}
}

// Lists inside objects: JSON-pointer indexes, "-" to append, ~1 for "/".
func TestAttributePathsIntoLists(t *testing.T) {
	node := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "a", "image": "nginx:1"}, map[string]any{"name": "b"}}},
	}
	s := runOn(t, `
- actions:
    - {op: set-attribute, args: {path: /spec/containers/0/image, value: "nginx:2"}}
    - {op: set-attribute, args: {path: /spec/containers/-, value: {name: c}}}
    - {op: del-attribute, args: {path: /spec/containers/1}}
    - {op: set-attribute, args: {path: /metadata/labels/app.kubernetes.io~1name, value: shop}}
`, Options{}, node, nil, nil)
	if errs := errorsOf(s); len(errs) > 0 {
		t.Fatal(errs)
	}
	containers := s.content["spec"].(map[string]any)["containers"].([]any)
	if len(containers) != 2 || containers[0].(map[string]any)["image"] != "nginx:2" || containers[1].(map[string]any)["name"] != "c" {
		t.Errorf("containers %v", containers)
	}
	if s.content["metadata"].(map[string]any)["labels"].(map[string]any)["app.kubernetes.io/name"] != "shop" {
		t.Errorf("labels %v", s.content["metadata"])
	}
	for _, bad := range []struct{ path, want string }{
		{"/spec/containers/7/image", "index 7 is out of range: /spec/containers has 2 items"},
		{"/spec/containers/x/image", `/spec/containers is a list: "x" is not an index`},
		{"/metadata/name/x", "/metadata/name is a string, not a mapping"},
	} {
		s := runOn(t, "- actions: [{op: set-attribute, args: {path: '"+bad.path+"', value: 1}}]\n", Options{}, deepCopy(node).(map[string]any), nil, nil)
		if errs := errorsOf(s); len(errs) != 1 || !strings.Contains(errs[0], bad.want) {
			t.Errorf("%s: %v", bad.path, errs)
		}
	}
}

// Action loops beyond Ironic's tests: an error in one iteration stops the
// rest, and a loop may run over a field of the object (D18).
func TestActionLoopErrorsAndFieldLoops(t *testing.T) {
	// An error in one iteration stops the remaining iterations.
	s := runOn(t, `
- actions:
    - op: extend-plugin-data
      args: {path: "{item[p]}", value: "{item[v]}"}
      loop: [{p: seen, v: 1}, {p: plugin, v: 2}, {p: seen, v: 3}]
`, Options{}, ironicNode(), nil, ironicPluginData())
	if l := s.pluginData["seen"].([]any); len(l) != 1 || len(errorsOf(s)) != 1 {
		t.Errorf("loop went on after an error: %v %v", l, errorsOf(s))
	}
	// A loop over a field of the object (D18).
	node := map[string]any{"kind": "Deployment", "spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"name": "a", "image": "a:1"}, map[string]any{"name": "b", "image": "b:1"}}}}}}
	s = runOn(t, `
- actions:
    - op: log
      args: {msg: "container {item[name]} runs {item[image]}"}
      loop: "{node.spec.template.spec.containers}"
`, Options{}, node, nil, nil)
	if fs := findingsOf(s); len(fs) != 2 || fs[1].Message != "container b runs b:1" || fs[0].Key == fs[1].Key {
		t.Errorf("findings %v", messages(fs))
	}
}

// D7: a field in an action that does not resolve is used as written, and
// the subject gets a warning.
func TestUnresolvedFieldInActionWarns(t *testing.T) {
	s := runOn(t, `
- uuid: enrich
  actions:
    - {op: set-plugin-data, args: {path: team, value: "{node.metadata.labels[team]}"}}
`, Options{}, ironicNode(), nil, nil)
	fs := findingsOf(s)
	if s.pluginData["team"] != "{node.metadata.labels[team]}" || len(fs) != 1 || fs[0].Level != finding.Warning ||
		!strings.Contains(fs[0].Message, "with {node.metadata.labels[team]} unresolved, so the text was used as written") {
		t.Errorf("%v\n%s", s.pluginData, messages(fs))
	}
}

// An edit copies the mappings and lists it writes to, once each, and
// leaves the rest shared: the object it came from (which other objects and
// the analyzers read) never changes.
func TestEditCopiesOnlyWhatItWrites(t *testing.T) {
	containers := make([]any, 1, 4) // room to append in place: an edit must not
	containers[0] = map[string]any{"name": "web"}
	shared := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"a": "1"}},
		"spec":     map[string]any{"containers": containers, "replicas": int64(1)},
	}
	original := manifest.DeepCopy(shared)
	set := func(v any) updateFunc { return func(any, bool) (any, bool, error) { return v, false, nil } }
	var cow copyOnWrite
	apply := func(root map[string]any, segs []string, fn updateFunc) map[string]any {
		t.Helper()
		e := &edit{cow: &cow, segs: segs, create: true, appendOK: true, created: -1, fn: fn}
		out, err := e.apply(root, 0)
		if err != nil {
			t.Fatal(err)
		}
		return out.(map[string]any)
	}
	root := apply(shared, []string{"metadata", "labels", "b"}, set("2"))
	if !sameNode(root["spec"], shared["spec"]) {
		t.Error("a subtree the edit did not write to was copied")
	}
	again := apply(root, []string{"metadata", "labels", "c"}, set("3"))
	if !sameNode(again, root) || !sameNode(again["metadata"], root["metadata"]) {
		t.Error("a mapping the subject already owns was copied again")
	}
	root = apply(again, []string{"spec", "containers", "-"}, set(map[string]any{"name": "sidecar"}))
	root = apply(root, []string{"spec", "containers", "0", "image"}, set("nginx"))
	root = apply(root, []string{"spec", "selector", "app"}, set("web"))
	if !reflect.DeepEqual(shared, original) || containers[:2][1] != nil {
		t.Errorf("the shared object changed: %v", shared)
	}
	want := map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"a": "1", "b": "2", "c": "3"}},
		"spec": map[string]any{"replicas": int64(1), "selector": map[string]any{"app": "web"},
			"containers": []any{map[string]any{"name": "web", "image": "nginx"}, map[string]any{"name": "sidecar"}}},
	}
	if !reflect.DeepEqual(root, want) {
		t.Errorf("edited:\n%v\nwant\n%v", root, want)
	}
}
