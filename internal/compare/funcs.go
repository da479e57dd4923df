package compare

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/tmplcheck"
)

// removedSprigFuncs are the sprig functions a reference may not call: a
// reference can come from a pull request, and these read the runner's
// environment or the network.
var removedSprigFuncs = []string{"env", "expandenv", "getHostByName"}

// undefinedFunction matches text/template's parse error for a function
// the template calls and the function map lacks.
var undefinedFunction = regexp.MustCompile(`function "([^"]+)" not defined`)

// functionHint says what to change when a template calls a function it
// may not: the removed sprig functions read the runner's environment or the
// network, which a reference from a pull request must not.
func functionHint(err error) string {
	m := undefinedFunction.FindStringSubmatch(err.Error())
	if m == nil {
		return ""
	}
	if slices.Contains(removedSprigFuncs, m[1]) {
		return fmt.Sprintf(" (plumb leaves out sprig's %s: a reference cannot read the runner's environment or the network; "+
			"write the value into the template or compare it with a regex inline diff function)", strings.Join(removedSprigFuncs, ", "))
	}
	return " (plumb compare --show-template-functions lists the functions a template may call; " +
		"a template cannot read files or the environment)"
}

// Size caps for sprig functions that build values of a requested size, so a
// hostile reference cannot exhaust the runner's memory (tmplcheck.BoundSizes).
const (
	maxListLen     = 100_000
	maxRepeatBytes = 1 << 20
)

// sprigFuncs is sprig's text function map without the removed functions,
// built once.
var sprigFuncs = func() template.FuncMap {
	m := sprig.TxtFuncMap()
	for _, name := range removedSprigFuncs {
		delete(m, name)
	}
	return m
}()

// errDoNotMatch is returned by doNotMatch: the template declines the input.
type errDoNotMatch struct{ reason string }

func (e *errDoNotMatch) Error() string { return "doNotMatch: " + e.reason }

// lookupFuncs are the functions that see the run's inputs.
type lookupFuncs struct {
	inputs []map[string]any
}

func (l *lookupFuncs) lookupCRs(apiVersion, kind, namespace, name string) []any {
	out := []any{}
	for _, in := range l.inputs {
		if stringField(in, "apiVersion") != apiVersion || stringField(in, "kind") != kind {
			continue
		}
		if namespace != "" && namespace != "*" && stringField(in, "metadata", "namespace") != namespace {
			continue
		}
		if name != "" && name != "*" && stringField(in, "metadata", "name") != name {
			continue
		}
		// A copy: sprig's set and unset would otherwise change the input.
		out = append(out, copyMap(in))
	}
	return out
}

func (l *lookupFuncs) lookupCR(apiVersion, kind, namespace, name string) any {
	if found := l.lookupCRs(apiVersion, kind, namespace, name); len(found) == 1 {
		return found[0]
	}
	return nil
}

// funcMap is the template function map: sprig's text functions minus the
// removed ones, Helm's YAML/JSON/TOML helpers, and kube-compare's lookupCR,
// lookupCRs and doNotMatch. With emptyRun set (the empty-data pre-render),
// doNotMatch declines nothing so the template's fixed fields still render.
// Every function's result is size-capped (see valuecaps.go).
func funcMap(l *lookupFuncs, emptyRun bool) template.FuncMap {
	base := cappedFuncs()
	m := make(template.FuncMap, len(base)+3)
	for k, v := range base {
		m[k] = v
	}
	if l == nil {
		l = &lookupFuncs{}
	}
	m["lookupCRs"] = capped(l.lookupCRs)
	m["lookupCR"] = capped(l.lookupCR)
	m["doNotMatch"] = func(reason string) (string, error) {
		if emptyRun {
			return "", nil
		}
		return "", &errDoNotMatch{reason: reason}
	}
	return m
}

// cappedFuncs is every function that does not depend on a run, with the
// size caps, built once (wrapping costs a reflect.MakeFunc per function).
var cappedFuncs = sync.OnceValue(func() template.FuncMap {
	m := make(template.FuncMap, len(sprigFuncs)+32)
	for k, v := range sprigFuncs {
		m[k] = v
	}
	for k, v := range builtinOverrides {
		m[k] = v
	}
	for k, v := range acyclicMutators() {
		m[k] = v
	}
	tmplcheck.BoundSizes(m, maxListLen, maxRepeatBytes)
	m["toYaml"] = toYAML
	m["toToml"] = toTOML
	m["fromYaml"] = fromYAML
	m["fromYamlArray"] = fromYAMLArray
	m["fromJson"] = fromJSON
	m["fromJsonArray"] = fromJSONArray
	capFuncs(m)
	return m
})

// FunctionNames lists the template functions a reference may call
// (--show-template-functions).
func FunctionNames() []string {
	m := funcMap(nil, false)
	names := make([]string, 0, len(m))
	for n := range m {
		if _, builtin := builtinOverrides[n]; !builtin {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// toYAML is Helm's toYaml: the value through sigs.k8s.io/yaml with the
// trailing newline trimmed, "" when it cannot be converted.
func toYAML(v any) string {
	data, err := sigsyaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func toTOML(v any) string {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return err.Error()
	}
	return b.String()
}

// fromYAML is Helm's fromYaml: a mapping, or {"Error": message}.
func fromYAML(s string) map[string]any {
	v, err := parseYAMLValue("fromYaml", s)
	if err != nil {
		return map[string]any{"Error": err.Error()}
	}
	switch t := v.(type) {
	case nil:
		return map[string]any{}
	case map[string]any:
		return t
	}
	return map[string]any{"Error": fmt.Sprintf("the YAML is a %s, not a mapping", kindName(v))}
}

// fromYAMLArray is Helm's fromYamlArray: a list, or [message].
func fromYAMLArray(s string) []any {
	v, err := parseYAMLValue("fromYamlArray", s)
	if err != nil {
		return []any{err.Error()}
	}
	switch t := v.(type) {
	case nil:
		return []any{}
	case []any:
		return t
	}
	return []any{fmt.Sprintf("the YAML is a %s, not a list", kindName(v))}
}

func fromJSON(s string) map[string]any {
	v, err := decodeJSON([]byte(s))
	if err != nil {
		return map[string]any{"Error": err.Error()}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return map[string]any{"Error": fmt.Sprintf("the JSON is a %s, not an object", kindName(v))}
	}
	return m
}

func fromJSONArray(s string) []any {
	v, err := decodeJSON([]byte(s))
	if err != nil {
		return []any{err.Error()}
	}
	l, ok := v.([]any)
	if !ok {
		return []any{fmt.Sprintf("the JSON is a %s, not an array", kindName(v))}
	}
	return l
}

// isDoNotMatch reports whether a template error is a doNotMatch call.
func isDoNotMatch(err error) (string, bool) {
	var d *errDoNotMatch
	if errors.As(err, &d) {
		return d.reason, true
	}
	return "", false
}
