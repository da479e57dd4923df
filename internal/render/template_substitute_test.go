package render

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ocSubstitute is oc process's string substitution, as written there:
// each reference in turn replaces the first occurrence of its text.
func ocSubstitute(in string, values map[string]string) string {
	out := in
	for _, m := range stringParamExp.FindAllStringSubmatch(in, -1) {
		if v, ok := values[m[1]]; ok {
			out = strings.Replace(out, m[0], v, 1)
		}
	}
	return out
}

// The one-pass substitution gives oc's result, also when values hold '$'
// (oc's rescan is kept for those).
func TestSubstituteIsOcs(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	pieces := []string{"${A}", "${B}", "${U}", "$", "{", "}", "x", "${", "A}", "-"}
	valueSets := []map[string]string{
		{"A": "a", "B": "bee"},
		{"A": "", "B": "${A}"},
		{"A": "$", "B": "{A}"},
		{"A": "${B}", "B": "${A}"},
	}
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for j := r.Intn(8); j >= 0; j-- {
			b.WriteString(pieces[r.Intn(len(pieces))])
		}
		in := b.String()
		values := valueSets[r.Intn(len(valueSets))]
		x := &expansion{values: values}
		if got, want := func() string { s, _ := x.substitute(in); return s }(), ocSubstitute(in, values); got != want {
			t.Fatalf("substitute(%q, %v) = %q, oc gives %q", in, values, got, want)
		}
	}
}

// A parameter bomb — a megabyte value referenced two thousand times — is
// refused at once instead of writing two gigabytes quadratically.
func TestParameterBombIsRefused(t *testing.T) {
	dir := t.TempDir()
	doc := "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\nparameters:\n  - name: P\n    value: " +
		strings.Repeat("x", 1<<20) + "\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: c\n    data:\n      k: \"" +
		strings.Repeat("${P}", 2000) + "\"\n"
	must(t, os.WriteFile(filepath.Join(dir, "t.yaml"), []byte(doc), 0o644))
	start := time.Now()
	res := renderRepo(t, dir, Options{})
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("render took %v", d)
	}
	if len(res.Objects()) != 0 || len(res.Problems) != 1 {
		t.Fatalf("objects %d, problems %v", len(res.Objects()), res.Problems)
	}
	want := fmt.Sprintf("t.yaml:9:5: template t: parameter substitution writes more than %d MiB (a large value referenced many times): "+
		"reference large values less often, or put them in the objects directly", maxExpandedBytes>>20)
	if got := res.Problems[0].Error(); got != want {
		t.Errorf("problem:\n%s\nwant:\n%s", got, want)
	}
}
