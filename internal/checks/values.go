package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// Customizations are custom values by check id, then value name.
type Customizations map[string]map[string]any

// CustomizationProblem is a customization that Wanda would reject.
type CustomizationProblem struct {
	Check, Value string
	Message      string
}

// ValidateCustomizations checks custom values as Wanda's
// checks_customizations does: the check exists and is customizable, the
// value exists and is customizable (its check and itself allow it and its
// default is a scalar), and the custom value has the default's type
// (integer, float, boolean or string; 1.5 is not an integer). It returns
// the accepted customizations and one problem per rejected entry.
func ValidateCustomizations(cat *Catalog, custom Customizations) (Customizations, []CustomizationProblem) {
	valid := Customizations{}
	var problems []CustomizationProblem
	ids := make([]string, 0, len(custom))
	for id := range custom {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		values := custom[id]
		c := cat.Get(id)
		switch {
		case c == nil:
			problems = append(problems, CustomizationProblem{Check: id, Message: fmt.Sprintf("there is no check %q in the catalog", id)})
			continue
		case c.CustomizationDisabled:
			problems = append(problems, CustomizationProblem{Check: id, Message: fmt.Sprintf("check %s is not customizable (customization_disabled: true)", id)})
			continue
		case !c.Customizable():
			problems = append(problems, CustomizationProblem{Check: id, Message: fmt.Sprintf("check %s has no customizable value", id)})
			continue
		case len(values) == 0:
			problems = append(problems, CustomizationProblem{Check: id, Message: fmt.Sprintf("the customization of check %s sets no value", id)})
			continue
		}
		names := make([]string, 0, len(values))
		for n := range values {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, name := range names {
			custom := normalizeValue(values[name])
			var v *Value
			for _, cv := range c.Values {
				if cv.Name == name {
					v = cv
				}
			}
			if v == nil {
				problems = append(problems, CustomizationProblem{Check: id, Value: name, Message: fmt.Sprintf("check %s has no value %q (values: %s)", id, name, strings.Join(valueNames(c), ", "))})
				continue
			}
			if !c.valueCustomizable(v) {
				why := "customization_disabled: true"
				if !v.CustomizationDisabled {
					why = "its default is not a scalar"
				}
				problems = append(problems, CustomizationProblem{Check: id, Value: name, Message: fmt.Sprintf("value %s of check %s is not customizable (%s)", name, id, why)})
				continue
			}
			if typeName(custom) != typeName(v.Default) {
				problems = append(problems, CustomizationProblem{Check: id, Value: name, Message: fmt.Sprintf("value %s of check %s is %s (default %s), so the custom value must be %s too, not %s %s",
					name, id, article(typeName(v.Default)), display(v.Default), article(typeName(v.Default)), article(typeName(custom)), display(custom))})
				continue
			}
			if valid[id] == nil {
				valid[id] = map[string]any{}
			}
			valid[id][name] = custom
		}
	}
	return valid, problems
}

func valueNames(c *Check) []string {
	var out []string
	for _, v := range c.Values {
		out = append(out, v.Name)
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}

// typeName names the type of a value for customization checks.
func typeName(v any) string {
	switch v.(type) {
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "list"
	case map[string]any:
		return "map"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func article(s string) string {
	if strings.IndexByte("aeiou", s[0]) >= 0 {
		return "an " + s
	}
	return "a " + s
}

// ResolvedValue is a value of one evaluation (Wanda's Value).
type ResolvedValue struct {
	Name       string `json:"name"`
	Value      any    `json:"value"`
	Customized bool   `json:"customized"`
}

// resolveValues picks each value for an env: the first condition whose when
// is exactly true (errors count as no match, later conditions are not
// evaluated), else the default; a customization replaces the result.
func (c *Check) resolveValues(envVal ref.Val, custom map[string]any) []ResolvedValue {
	out := make([]ResolvedValue, 0, len(c.Values))
	act := &activation{env: envVal}
	for _, v := range c.Values {
		rv := ResolvedValue{Name: v.Name, Value: v.Default}
		for _, cond := range v.Conditions {
			if cond.When == nil || !cond.When.Compiled() {
				continue
			}
			if r, err := cond.When.eval(act); err == nil && r == types.True {
				rv.Value = cond.Value
				break
			}
		}
		if cv, ok := custom[v.Name]; ok {
			rv.Value, rv.Customized = cv, true
		}
		out = append(out, rv)
	}
	return out
}
