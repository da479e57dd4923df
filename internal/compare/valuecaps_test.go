package compare

import (
	"strings"
	"testing"
	"time"
)

// Templates that would crash the process (a map that contains itself, a
// value doubled in a loop) fail with an error at the call that would do
// it, in bounded time.
func TestHostileValuesAreRefused(t *testing.T) {
	// The size cap, not the time limit, must stop these, however slow
	// the machine (the race detector makes walking a value ten times
	// slower).
	withTemplateTime(t, time.Minute)
	for _, c := range []struct {
		name, body, want string
	}{
		{"a map set into itself", `{{ $d := dict }}{{ $_ := set $d "self" $d }}{{ $d }}`,
			`error calling set: set "self": the value holds the map it would be stored in`},
		{"a cycle through another map", `{{ $a := dict }}{{ $b := dict "a" (list $a) }}{{ $_ := set $a "b" $b }}{{ toToml $a }}`,
			`error calling set: set "b": the value holds the map it would be stored in`},
		{"a map merged into itself", `{{ $d := dict "x" 1 }}{{ $_ := merge $d (dict "self" $d) }}{{ $d | toString }}`,
			`error calling merge: merge: the value holds the map it would be stored in`},
		{"mustMergeOverwrite", `{{ $d := dict "x" 1 }}{{ $_ := mustMergeOverwrite $d (dict "self" (dict "again" $d)) }}`,
			`error calling mustMergeOverwrite: mustMergeOverwrite: the value holds the map it would be stored in`},
		{"a string doubled in a loop", `{{ $x := "ab" }}{{ range until 40 }}{{ $x = printf "%s%s" $x $x }}{{ end }}`,
			"error calling printf: the result would be over 64 MiB"},
		{"a list nested in itself", `{{ $l := list "x" }}{{ range until 40 }}{{ $l = list $l $l }}{{ end }}{{ $l }}`,
			"error calling list: the result would be over 64 MiB"},
		{"a builtin that concatenates", `{{ $x := "ab" }}{{ range until 40 }}{{ $x = print $x $x }}{{ end }}`,
			"error calling print: the result would be over 64 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := v2Ref("allOf", map[string]string{"cm.yaml": cmHead + c.body + "\n"}, "cm.yaml")
			spin(t, 30*time.Second, func() {
				mustContain(t, loadProblems(t, files), "ref/cm.yaml:5: failed to parse template cm.yaml with empty data: template: cm.yaml:5:", c.want)
			})
		})
	}
}

// The guards leave ordinary uses of set, merge and the string functions
// alone.
func TestGuardedFunctionsStillWork(t *testing.T) {
	ref := mustLoad(t, v2Ref("allOf", map[string]string{"cm.yaml": cmHead + `{{ $d := dict -}}
{{ $_ := set $d "a" (dict "b" 1) -}}
{{ $_ := merge $d (dict "c" 2) (dict "a" (dict "z" 3)) -}}
{{ $_ := set $d "same" (get $d "a") -}}
data:
  json: {{ toJson $d | quote }}
  text: {{ printf "%s-%d" "x" 2 | js | print }}
`}, "cm.yaml"))
	res := compareInputs(t, ref, cmHead+"data:\n  json: '{\"a\":{\"b\":1,\"z\":3},\"c\":2,\"same\":{\"b\":1,\"z\":3}}'\n  text: x-2\n", Options{})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	if c := compared(t, res, "v1_ConfigMap_cm"); c.HasDiff {
		t.Errorf("unexpected diff:\n%s", c.DiffOutput())
	}
	if names := strings.Join(FunctionNames(), " "); strings.Contains(names, " printf ") || !strings.Contains(names, " set ") {
		t.Errorf("the builtins replaced by capped versions are not listed as template functions, set is: %s", names)
	}
}
