package checks

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// FuzzFieldPath feeds arbitrary manifest@v1 arguments to the field path
// parser and resolves those that parse on a Deployment. The properties: a
// path that parses prints back to one that parses the same; and every
// value the path reaches is found again at the field path it reports
// (which is where findings point).
func FuzzFieldPath(f *testing.F) {
	for _, seed := range []string{
		"spec.replicas", "metadata.name?", "$pod.containers[*].image", "$pod.containers[*].ports[*].containerPort?",
		`metadata.labels["app.kubernetes.io/name"]`, `metadata.annotations["a[*]b"]`, "$pod", "$pod?", "$podx", "$x.y",
		"spec.template.spec.containers[0].env[*].name", "[*]", "[*][*]", "spec[*]", "?", "??", " spec.replicas ? ",
		"$pod.containers[*]", "$pod.volumes[*].secret.secretName?", `spec["\u00e9"]`, "a..b", "a[", "a[-1]", "a[99999999999999999999]",
	} {
		f.Add(seed)
	}
	deploy := map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app.kubernetes.io/name": "web"}, "annotations": map[string]any{"a[*]b": "x"}},
		"spec": map[string]any{"replicas": int64(3), "template": map[string]any{"spec": map[string]any{
			"containers": []any{
				map[string]any{"name": "a", "image": "nginx:1", "ports": []any{map[string]any{"containerPort": int64(80)}}, "env": []any{map[string]any{"name": "X"}}},
				map[string]any{"name": "b", "image": "busybox", "ports": "not a list"},
			},
			"volumes": []any{map[string]any{"name": "v", "secret": map[string]any{"secretName": "s"}}, "scalar"},
		}}},
	}
	obj := &manifest.Object{ID: manifest.IDOf(deploy, "t"), Content: deploy}
	f.Fuzz(func(t *testing.T, arg string) {
		fp, err := parseFieldPath(arg)
		if err != nil {
			return
		}
		printed := printFieldPath(fp)
		again, err := parseFieldPath(printed)
		if err != nil {
			t.Fatalf("%q prints as %q, which does not parse: %v", arg, printed, err)
		}
		if again.pod != fp.pod || again.optional != fp.optional || len(again.pieces) != len(fp.pieces) {
			t.Fatalf("%q prints as %q, which parses differently: %+v vs %+v", arg, printed, fp, again)
		}
		for i := range fp.pieces {
			if !again.pieces[i].Equal(fp.pieces[i]) {
				t.Fatalf("%q prints as %q: piece %d is %v, then %v", arg, printed, i, fp.pieces[i], again.pieces[i])
			}
		}
		matches, _, ferr := fp.resolve(obj, deploy, "manifest")
		if ferr != nil {
			return
		}
		for _, m := range matches {
			if !m.present {
				continue
			}
			v, ok := manifest.Lookup(deploy, m.path)
			if !ok || !reflect.DeepEqual(v, m.value) {
				t.Fatalf("%q reached %#v at %s, but that field holds %#v (%v)", arg, m.value, m.path, v, ok)
			}
		}
	})
}

// printFieldPath prints a parsed field path back as an argument.
func printFieldPath(fp *fieldPath) string {
	var parts []string
	for _, p := range fp.pieces {
		parts = append(parts, p.String())
	}
	if first := fp.pieces[0]; len(first) > 0 && !first[0].IsIndex && strings.HasPrefix(first[0].Key, "$") {
		// A key that starts with $ reads as a variable unless bracketed.
		rest := first[1:].String()
		if rest != "" && !strings.HasPrefix(rest, "[") {
			rest = "." + rest
		}
		parts[0] = "[" + strconv.Quote(first[0].Key) + "]" + rest
	}
	s := strings.Join(parts, "[*]")
	if fp.pod {
		if s != "" && !strings.HasPrefix(s, "[") {
			s = "." + s
		}
		s = "$pod" + s
	}
	if fp.optional {
		s += "?"
	}
	return s
}

// A quoted key may hold "[*]": only the [*] steps outside quotes expand
// lists.
func TestFieldPathQuotedWildcard(t *testing.T) {
	for arg, want := range map[string][]string{
		`metadata.annotations["a[*]b"]`:           {`metadata.annotations["a[*]b"]`},
		`metadata.annotations['a[*]b']`:           {`metadata.annotations["a[*]b"]`},
		`$pod.containers[*].env[*]["x[*]"]`:       {"containers", "env", `["x[*]"]`},
		`spec.items[*]["q\"[*]"][*].name`:         {"spec.items", `["q\"[*]"]`, "name"},
		`spec.items[*]`:                           {"spec.items", ""},
		`spec["unterminated[*].x`:                 nil,
		`metadata.annotations["a[*]b"].x[*].y?`:   {`metadata.annotations["a[*]b"].x`, "y"},
		`metadata.annotations['[*]'][*]['[*]']`:   {`metadata.annotations["[*]"]`, `["[*]"]`},
		`metadata.annotations["\\"][*].x`:         {`metadata.annotations["\\"]`, "x"},
		`metadata.annotations["\\\"[*]"][*].x`:    {`metadata.annotations["\\\"[*]"]`, "x"},
		`metadata.annotations["[*]\\\\"][*]["y"]`: {`metadata.annotations["[*]\\\\"]`, "y"},
	} {
		fp, err := parseFieldPath(arg)
		if want == nil {
			if err == nil {
				t.Errorf("%s: parsed as %v, want an error", arg, fp.pieces)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", arg, err)
			continue
		}
		var got []string
		for _, p := range fp.pieces {
			got = append(got, p.String())
		}
		if strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: pieces %q, want %q", arg, got, want)
		}
	}
}
