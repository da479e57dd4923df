package rules

import "strings"

// paramKind is what an argument must hold; literal arguments are checked
// when the rule is loaded, interpolated ones when they are resolved.
type paramKind uint8

const (
	kindAny paramKind = iota
	kindList
	kindBool
	kindString
	kindRegex
	kindLevel
	kindPath
)

func (k paramKind) String() string {
	switch k {
	case kindList:
		return "a list"
	case kindBool:
		return "true or false"
	case kindString, kindRegex, kindPath:
		return "a string"
	case kindLevel:
		return "one of " + strings.Join(logLevels, ", ")
	}
	return "a value"
}

// param is one argument of a condition or action, in signature order:
// required ones first (Ironic derives them from the Python signature).
type param struct {
	name     string
	required bool
	def      any
	// format: interpolated outside loops too (inside a loop every argument
	// is, as in Ironic).
	format bool
	kind   paramKind
}

func req(name string, format bool, kind paramKind) param {
	return param{name: name, required: true, format: format, kind: kind}
}

func opt(name string, def any, format bool, kind paramKind) param {
	return param{name: name, def: def, format: format, kind: kind}
}

// condSpec is a condition operator.
type condSpec struct {
	name   string
	params []param
	eval   func(c *condCall) (bool, error)
}

// actionSpec is an action.
type actionSpec struct {
	name   string
	params []param
	// node: the action changes the object, so it has no meaning in the
	// early phase (spec: "not available in the early phase").
	node bool
	run  func(x *actionCall) error
}

// editsContent reports whether the action changes the object's content.
func (a *actionSpec) editsContent() bool {
	switch a.name {
	case "set-attribute", "extend-attribute", "del-attribute":
		return true
	}
	return false
}

// conditionSpecs are Ironic's eleven operators (operators.py).
var conditionSpecs = map[string]*condSpec{}

// actionSpecs are the actions plumb supports.
var actionSpecs = map[string]*actionSpec{}

func init() {
	values := []param{req("values", true, kindList), opt("force_strings", false, false, kindBool)}
	one := []param{req("value", true, kindAny)}
	for _, c := range []*condSpec{
		{"eq", values, evalEq},
		{"lt", values, evalLt},
		{"gt", values, evalGt},
		{"is-empty", one, evalIsEmpty},
		{"is-none", one, evalIsNone},
		{"is-true", one, evalIsTrue},
		{"is-false", one, evalIsFalse},
		{"in-net", []param{req("address", true, kindString), req("subnet", true, kindString)}, evalInNet},
		{"matches", []param{req("value", true, kindAny), req("regex", false, kindRegex)}, evalMatches},
		{"contains", []param{req("value", true, kindAny), req("regex", false, kindRegex)}, evalContains},
		// plumb interpolates one-of's values outside loops too: typed
		// interpolation makes "{inventory[index][ConfigMap]}" a list.
		{"one-of", []param{req("value", true, kindAny), opt("values", []any{}, true, kindList)}, evalOneOf},
	} {
		conditionSpecs[c.name] = c
	}
	msg := func(level bool) []param {
		p := []param{req("msg", true, kindString)}
		if level {
			p = append(p, opt("level", "info", false, kindLevel))
		}
		// path (a plumb addition) points the finding at a field.
		return append(p, opt("path", "", true, kindPath))
	}
	for _, a := range []*actionSpec{
		{"fail", msg(false), false, runFail},
		{"log", msg(true), false, runLog},
		{"set-attribute", []param{req("path", false, kindString), req("value", true, kindAny)}, true, runSetAttribute},
		{"extend-attribute", []param{req("path", false, kindString), req("value", true, kindAny), opt("unique", false, false, kindBool)}, true, runExtendAttribute},
		{"del-attribute", []param{req("path", false, kindString)}, true, runDelAttribute},
		{"set-plugin-data", []param{req("path", false, kindString), req("value", true, kindAny)}, false, runSetPluginData},
		{"extend-plugin-data", []param{req("path", false, kindString), req("value", true, kindAny), opt("unique", false, false, kindBool)}, false, runExtendPluginData},
		{"unset-plugin-data", []param{req("path", false, kindString)}, false, runUnsetPluginData},
		{"add-trait", []param{req("name", false, kindString)}, true, runAddTrait},
		{"remove-trait", []param{req("name", false, kindString)}, true, runRemoveTrait},
	} {
		actionSpecs[a.name] = a
	}
}

// unsupportedActions are Ironic actions with no meaning for manifests.
var unsupportedActions = map[string]string{
	"set-capability":        "node capabilities have no Kubernetes counterpart; use add-trait or set-plugin-data",
	"unset-capability":      "node capabilities have no Kubernetes counterpart; use remove-trait or unset-plugin-data",
	"set-port-attribute":    "objects have no ports; use set-attribute with a path into the object",
	"extend-port-attribute": "objects have no ports; use extend-attribute with a path into the object",
	"del-port-attribute":    "objects have no ports; use del-attribute with a path into the object",
	"api-call":              "plumb makes no network calls while checking",
}

// unregisteredConditions are operators Inspector had and Ironic dropped.
var unregisteredConditions = map[string]string{
	"ne": "!eq",
	"le": "!gt",
	"ge": "!lt",
}

// logLevels are the levels log accepts (Ironic's, lower-case).
var logLevels = []string{"debug", "info", "warning", "error", "critical"}
