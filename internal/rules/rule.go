// Package rules implements inspection rules, the Ironic rule language over
// Kubernetes manifests: rules with conditions and actions, run in three
// phases (early on source documents, preprocess on rendered objects before
// the analyzers, main after them), ordered by priority, limited by scope,
// with typed interpolation of {node...}, {inventory[...]}, {plugin_data[...]}
// and {item}, and with secrets masked from what rules read and redacted from
// everything they print.
//
// Semantics follow research/inspection-rules.md: Ironic's implementation,
// adjusted where §9 (D1–D20) decides, mapped to manifests as §10 says.
package rules

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Phase is when a rule runs.
type Phase string

const (
	// PhaseEarly runs on source documents before rendering; rules see no
	// node.
	PhaseEarly Phase = "early"
	// PhasePreprocess runs on rendered objects before the analyzers: what
	// it changes is what they check.
	PhasePreprocess Phase = "preprocess"
	// PhaseMain runs after the analyzers (the default).
	PhaseMain Phase = "main"
)

// Phases in running order.
var Phases = []Phase{PhaseEarly, PhasePreprocess, PhaseMain}

// ParsePhase validates a phase name.
func ParsePhase(s string) (Phase, error) {
	for _, p := range Phases {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("invalid phase %q: valid phases are early, preprocess, main", s)
}

// Priority bounds for user rules; built-in rules may go beyond them.
const (
	MinUserPriority = 0
	MaxUserPriority = 9999
)

// Rule is one validated inspection rule.
type Rule struct {
	UUID        string
	Description string
	Priority    int
	Phase       Phase
	// Scope as written ("" for none); Engine applies default_scope.
	Scope      string
	Sensitive  bool
	BuiltIn    bool
	Conditions []*Condition
	Actions    []*Action
	// Source is where the rule starts (file:line of its first key).
	Source manifest.Location
	// SyntheticUUID is set when the file gave no uuid.
	SyntheticUUID bool

	// order is the load position (files in the order given, rules in file
	// order); it breaks priority ties.
	order int
	// help is the findings' help text, built once.
	help string
}

// ID is the rule's finding rule id.
func (r *Rule) ID() string { return "rule/" + r.UUID }

// Title is what findings and listings call the rule.
func (r *Rule) Title() string {
	if r.Description != "" {
		return r.Description
	}
	return "Inspection rule " + r.UUID
}

// Condition is one compiled condition.
type Condition struct {
	// Op is the operator without the inversion mark.
	Op     string
	Invert bool
	// Args are the arguments as written, by name (list-form arguments are
	// mapped onto names).
	Args map[string]any
	// Loop is the loop as written (nil for none); Multiple its aggregation.
	Loop     any
	HasLoop  bool
	Multiple string
	Location manifest.Location

	spec *condSpec
	args []*value // in spec.params order, defaults filled in
	loop *value
}

// OpString prints the operator with its inversion mark.
func (c *Condition) OpString() string {
	if c.Invert {
		return "!" + c.Op
	}
	return c.Op
}

// Action is one compiled action.
type Action struct {
	Op       string
	Args     map[string]any
	Loop     any
	HasLoop  bool
	Location manifest.Location

	spec *actionSpec
	args []*value
	loop *value
	// pathSegs is a literal path argument, split once.
	pathSegs []string
}

// Loop aggregation modes.
const (
	MultipleAny   = "any"
	MultipleAll   = "all"
	MultipleFirst = "first"
	MultipleLast  = "last"
)
