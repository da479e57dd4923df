package compare

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A template that loops without printing never reaches the output limit,
// and text/template cannot be interrupted: its execution is bounded in
// time, reported, and not repeated for the next input. (The loops here
// take about 80 ms, eight times the limit the test sets, so that what is
// left running in the background ends soon.)
func TestEndlessTemplatesAreStopped(t *testing.T) {
	saved := renderTimeout
	renderTimeout = 10 * time.Millisecond
	t.Cleanup(func() { renderTimeout = saved })
	v2 := "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: a.yaml\n"

	// Endless at load (the empty-data pre-render).
	start := time.Now()
	problems := loadProblems(t, map[string]string{"metadata.yaml": v2,
		"a.yaml": "kind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: '{{ range 2000000 }}{{ end }}'\n"})
	mustContain(t, problems, "ref/a.yaml:5: failed to parse template a.yaml with empty data: template: a.yaml:5:15: execution stopped after 10ms: "+
		"the template loops too long (a range over a large number or list, or ranges nested over the input); bound its loops")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the load took %v", d)
	}

	// Endless on the inputs only: ranges nested over the input's list.
	ref := mustLoad(t, map[string]string{"metadata.yaml": v2,
		"a.yaml": "kind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\ndata:\n  k: '{{ range .list }}{{ range $.list }}{{ range $.list }}{{ end }}{{ end }}{{ end }}'\n"})
	in := "kind: ConfigMap\nmetadata:\n  name: NAME\nlist: [" + strings.Repeat("1, ", 130) + "1]\n"
	inputs := objects(t, strings.ReplaceAll(in, "NAME", "one")+"---\n"+strings.ReplaceAll(in, "NAME", "two"))
	start = time.Now()
	res := ref.Compare(context.Background(), inputs, Options{})
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the comparison took %v", d)
	}
	if !strings.Contains(res.Errors.Error(), "ref/a.yaml:5: template injection failed: a.yaml on _ConfigMap_one (in.yaml:1:1): template: a.yaml:5:15: execution stopped after 10ms") {
		t.Errorf("errors: %v", res.Errors)
	}
}
