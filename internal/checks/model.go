// Package checks runs best-practice checks written in the Trento checks
// format (research/trento-checks.md) over rendered Kubernetes objects, with
// CEL as the expression language. It loads and lints catalogs, gathers facts
// from objects, evaluates expectations with Wanda's semantics and returns
// both a Wanda-shaped Result and findings at the lines to edit.
package checks

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Severity is what a failing check reports (Wanda: warning or critical).
type Severity string

const (
	SeverityCritical Severity = "critical"
	SeverityWarning  Severity = "warning"
)

// Level maps a severity to the finding level.
func (s Severity) Level() finding.Level {
	if s == SeverityWarning {
		return finding.Warning
	}
	return finding.Error
}

// Check results, execution results and expect_enum outcomes (Wanda's
// result enum).
const (
	Passing  = "passing"
	Warning  = "warning"
	Critical = "critical"
)

// weight orders results: critical 2 > warning 1 > passing 0.
func weight(result string) int {
	switch result {
	case Critical:
		return 2
	case Warning:
		return 1
	}
	return 0
}

// worst returns the heavier of two results.
func worst(a, b string) string {
	if weight(b) > weight(a) {
		return b
	}
	return a
}

// levelOf maps a per-target outcome (passing, warning, critical) to a
// finding level.
func levelOf(result string) finding.Level {
	if result == Warning {
		return finding.Warning
	}
	return finding.Error
}

// TargetType says what one target of a check is.
type TargetType string

const (
	// TargetObject: each rendered object of the kinds in metadata.kind.
	TargetObject TargetType = "object"
	// TargetGroup: each render target (a directory, a kustomize overlay).
	TargetGroup TargetType = "group"
)

// ExpectationType is expect, expect_same or expect_enum.
type ExpectationType string

const (
	Expect     ExpectationType = "expect"
	ExpectSame ExpectationType = "expect_same"
	ExpectEnum ExpectationType = "expect_enum"
)

// Pos is a 1-based line and column in a catalog file.
type Pos struct {
	Line, Column int
}

// Check is one loaded check. Its expressions are compiled when it is
// loaded and never again.
type Check struct {
	ID          string
	Name        string
	Group       string
	Description string
	Remediation string
	// Severity defaults to critical.
	Severity Severity
	// Metadata is matched against the environment (Wanda's algorithm).
	Metadata   map[string]any
	TargetType TargetType
	// When is the check-level applicability predicate over env; nil when
	// absent.
	When *Expr
	// Exclude is the per-target predicate over host; nil when absent.
	Exclude               *Expr
	Facts                 []*Fact
	Values                []*Value
	Expectations          []*Expectation
	CustomizationDisabled bool
	// Fix is the check's declared mechanical fix (a plumb extension), nil
	// when it has none.
	Fix *FixDecl

	// File is where the check was read from (display path) and Pos the
	// position of its id.
	File string
	Pos  Pos
	// Diagnostics are the lint results of this check.
	Diagnostics []Diagnostic
	// broken is set when the check has structural errors that make it
	// impossible to evaluate (a missing key, an unknown gatherer). A check
	// whose only errors are in expressions can still be evaluated the way
	// Wanda does (lenient mode of `checks eval`).
	broken bool
}

// HasErrors reports whether lint found errors in the check.
func (c *Check) HasErrors() bool {
	for _, d := range c.Diagnostics {
		if d.Level == LevelError {
			return true
		}
	}
	return false
}

// Evaluable reports whether the check can be evaluated at all (see broken).
func (c *Check) Evaluable() bool { return !c.broken }

// RuleID is the id of the check's findings.
func (c *Check) RuleID() string { return "check/" + c.ID }

// Kinds returns metadata.kind as a list (nil when absent).
func (c *Check) Kinds() []string {
	switch v := c.Metadata["kind"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Customizable reports whether any value of the check can be customized.
func (c *Check) Customizable() bool {
	if c.CustomizationDisabled {
		return false
	}
	for _, v := range c.Values {
		if c.valueCustomizable(v) {
			return true
		}
	}
	return false
}

// valueCustomizable is Wanda's can_customize_value?: the check and the value
// allow it and the default is a scalar.
func (c *Check) valueCustomizable(v *Value) bool {
	if c.CustomizationDisabled || v.CustomizationDisabled {
		return false
	}
	switch v.Default.(type) {
	case []any, map[string]any, nil:
		return false
	}
	return true
}

// Fact declares one fact: a gatherer and its argument.
type Fact struct {
	Name string
	// Gatherer is the name as written, with or without @vN.
	Gatherer string
	Argument string
	Pos      Pos
	// GathererPos is the position of the gatherer name.
	GathererPos Pos
	// ArgPos is the position of the argument (or of the gatherer).
	ArgPos Pos
	// gather is the gatherer prepared with the argument at load time.
	gather gatherFunc
	// key identifies the gatherer and argument (facts with equal keys
	// gather the same value).
	key string
	// oneObject is set when the value is read from a single object, so
	// that its size is bounded by that object's (see runBounds).
	oneObject bool
}

// Value is a named value with a default and env-dependent conditions.
type Value struct {
	Name                  string
	Default               any
	Conditions            []*Condition
	CustomizationDisabled bool
	Pos                   Pos
}

// Condition picks Value when When is true.
type Condition struct {
	Value any
	When  *Expr
}

// Expectation is one assertion of a check.
type Expectation struct {
	Name           string
	Type           ExpectationType
	Expr           *Expr
	FailureMessage *Message
	WarningMessage *Message
	Pos            Pos
	// factRefs are the indexes (in declaration order) of the facts the
	// expression reads; findings point at the first of them that read a
	// field. All facts when the expression reads facts dynamically.
	factRefs []int
	// chains are the fields the expression reads in one element of each
	// list fact (see culprit).
	chains map[string][]manifest.Path
}

func (e *Expectation) String() string { return fmt.Sprintf("%s %s", e.Type, e.Name) }
