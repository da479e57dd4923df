package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// withTemplateTime shortens the execution limit for one test.
func withTemplateTime(t *testing.T, d time.Duration) {
	t.Helper()
	saved := maxTemplateTime
	maxTemplateTime = d
	t.Cleanup(func() { maxTemplateTime = saved })
}

// spin fails the test when f takes longer than limit.
func spin(t *testing.T, limit time.Duration, f func()) {
	t.Helper()
	start := time.Now()
	f()
	if d := time.Since(start); d > limit {
		t.Errorf("took %v, want under %v", d.Round(time.Millisecond), limit)
	}
}

const cmHead = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"

// Templates that would spin for hours stop at the deadline, at load time
// (the empty-data rendering) with the template's file and the line of the
// loop that ran too long.
func TestHostileTemplatesStopAtLoad(t *testing.T) {
	withTemplateTime(t, 200*time.Millisecond)
	for _, c := range []struct {
		name, template, functions, want string
	}{
		{"nested until loops", cmHead + "data:\n{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n", "",
			"ref/cm.yaml:6: failed to parse template cm.yaml with empty data: template: cm.yaml:6: execution stopped after 200ms"},
		{"range over a huge integer", cmHead + "{{ range 1000000000 }}{{ end }}\n", "",
			"ref/cm.yaml:5: failed to parse template cm.yaml with empty data: template: cm.yaml:5: execution stopped after 200ms"},
		{"a loop that prints nothing but works", cmHead + "{{ $n := 0 }}{{ range until 100000 }}{{ range until 100000 }}{{ $n = add $n 1 }}{{ end }}{{ end }}\n", "",
			"template: cm.yaml:5: execution stopped after 200ms"},
		{"branching recursion", cmHead + "{{ define \"fork\" }}{{ if lt . 60 }}{{ template \"fork\" (add . 1) }}{{ template \"fork\" (add . 1) }}{{ end }}{{ end }}\n{{ template \"fork\" 0 }}\n", "",
			"template: cm.yaml:5: execution stopped after 200ms"},
		{"loop in a function file", cmHead + "{{ template \"spin\" }}\n", "{{ define \"spin\" }}\n{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n{{ end }}\n",
			"ref/cm.yaml: failed to parse template cm.yaml with empty data: template: f.tmpl:2: execution stopped after 200ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := v2Ref("allOf", map[string]string{"cm.yaml": c.template}, "cm.yaml")
			if c.functions != "" {
				files["metadata.yaml"] += "templateFunctionFiles: [f.tmpl]\n"
				files["f.tmpl"] = c.functions
			}
			spin(t, 3*time.Second, func() {
				mustContain(t, loadProblems(t, files), c.want)
			})
		})
	}
}

// hostileOnInput renders quickly with empty data (so the reference loads)
// and spins on any real input.
const hostileOnInput = cmHead + "data:\n  x: y\n{{ if .metadata }}{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}{{ end }}\n"

// A template that spins only on real inputs fails those inputs like any
// template failure, once per input, and a whole run costs about one
// limit: after the first timeout the template is not run again.
func TestHostileTemplateStopsAtCompareTime(t *testing.T) {
	withTemplateTime(t, 200*time.Millisecond)
	ref := mustLoad(t, v2Ref("allOf", map[string]string{"cm.yaml": hostileOnInput}, "cm.yaml"))
	var inputs strings.Builder
	for i := range 20 {
		fmt.Fprintf(&inputs, "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: ns-%d}\ndata: {x: y}\n", i)
	}
	var res *Result
	spin(t, 3*time.Second, func() { res = compareInputs(t, ref, inputs.String(), Options{Workers: 2}) })
	if len(res.Errors) != 20 || len(res.Unmatched) != 20 {
		t.Fatalf("%d errors and %d unmatched, want 20 of each: %v", len(res.Errors), len(res.Unmatched), res.Errors)
	}
	mustContain(t, res.Errors[0].Error(), "ref/cm.yaml:7: template injection failed: cm.yaml on v1_ConfigMap_ns-0_cm (in.yaml:2:1): template: cm.yaml:7: execution stopped after 200ms")
	for _, e := range res.Errors {
		if !strings.Contains(e.Error(), "template: cm.yaml:7: execution stopped after 200ms: the range loop or {{template}} recursion there does not end in time") {
			t.Errorf("every input names the loop: %v", e)
		}
	}
}

// An override's go-template is bounded the same way.
func TestHostileOverrideTemplateStops(t *testing.T) {
	withTemplateTime(t, 200*time.Millisecond)
	ref := mustLoad(t, v2Ref("allOf", map[string]string{"cm.yaml": cmHead + "data:\n  x: y\n"}, "cm.yaml"))
	file := filepath.Join(t.TempDir(), "overrides.yaml")
	patch := "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}type: mergepatch\npatch: '{}'\n"
	if err := os.WriteFile(file, []byte(fmt.Sprintf("- kind: ConfigMap\n  type: go-template\n  reason: r\n  patch: %q\n", patch)), 0o644); err != nil {
		t.Fatal(err)
	}
	ov, ps := ReadOverrides(file, "overrides.yaml")
	if ov == nil {
		t.Fatal(ps)
	}
	var res *Result
	spin(t, 3*time.Second, func() {
		res = compareInputs(t, ref, cmHead+"data: {x: y}\n", Options{Overrides: ov})
	})
	if len(res.Errors) != 1 {
		t.Fatalf("errors: %v", res.Errors)
	}
	mustContain(t, res.Errors[0].Error(), "user override (", "line 1): override go-template: template: override:1: execution stopped after 200ms")
}

// On the command line a template that ran over the limit is an error (exit
// 2), and, as any error, writes no report.
func TestHostileTemplateCLI(t *testing.T) {
	withTemplateTime(t, 200*time.Millisecond)
	dir := t.TempDir()
	files := v2Ref("allOf", map[string]string{"cm.yaml": hostileOnInput, "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"}, "cm.yaml", "svc.yaml")
	files["in.yaml"] = cmHead + "data: {x: y}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out, errOut string
	var code int
	spin(t, 3*time.Second, func() {
		out, errOut, code = runCLI(t, CLIOptions{Reference: filepath.Join(dir, "metadata.yaml"), Files: []string{filepath.Join(dir, "in.yaml")}}, "")
	})
	if code != ExitError {
		t.Errorf("exit %d, want %d\n%s\n%s", code, ExitError, out, errOut)
	}
	mustContain(t, errOut, "cm.yaml:7: template injection failed: cm.yaml on v1_ConfigMap_cm", "template: cm.yaml:7: execution stopped after 200ms")
	if out != "" {
		t.Errorf("a report was written:\n%s", out)
	}
}
