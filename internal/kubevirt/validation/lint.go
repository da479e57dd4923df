package validation

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/re2"
)

// Lint checks decoded rules statically, as the spec asks of a rule and
// beyond what the validator checks before evaluating: the four mandatory
// keys, a known rule type, unique names, numeric bounds that fit in 64 bits
// and a regex that Go's RE2 compiles.
// The validator reports some of these only when it evaluates the rule
// (unknown type, duplicate name, missing message, a bad regex), accepts a
// rule without a name, and crashes on a rule without a path.
func Lint(rules []*Rule) []Problem {
	var out []Problem
	seen := map[string]bool{}
	add := func(r *Rule, kind, format string, args ...any) {
		out = append(out, Problem{Offset: r.Offset, Rule: r.Index, Name: r.Name, Kind: kind, Message: fmt.Sprintf(format, args...)})
	}
	for _, r := range rules {
		if r.Name == "" {
			out = append(out, Problem{Offset: r.Offset, Rule: r.Index, Kind: "missing-name", Warning: true,
				Message: `missing key "name": the spec makes it mandatory (the validator accepts an unnamed rule, but a second one fails as a duplicate name)`})
		} else if seen[r.Name] {
			add(r, "duplicate-name", "duplicate Rule Name %q: the validator fails this rule (names must be unique in the annotation)", r.Name)
		}
		seen[r.Name] = true
		switch {
		case r.Rule == "":
			add(r, "missing-rule", `missing required key "rule": the validator fails the rule with "unrecognized Rule type" (want integer, string, enum or regex)`)
		case !KnownType(r.Rule):
			add(r, "unknown-rule", "unrecognized Rule type %q (want integer, string, enum or regex; the validator fails the rule, it does not ignore it as the spec says)", r.Rule)
		}
		if r.Message == "" {
			add(r, "missing-message", `missing required key "message": the validator fails the rule with "missing required key"`)
		}
		if !r.Path.IsSet() {
			add(r, "missing-path", `missing required key "path": the template validator's webhook crashes on such a rule, so the cluster rejects every VM that carries it`)
		}
		for _, b := range []struct {
			key string
			arg *IntOrPath
		}{{"min", r.Min}, {"max", r.Max}, {"minLength", r.MinLength}, {"maxLength", r.MaxLength}} {
			if b.arg != nil && b.arg.OutOfRange != "" {
				add(r, "out-of-range", "%s %s does not fit in a 64-bit integer: the validator converts it to %d, so the rule does not check what it says", b.key, b.arg.OutOfRange, b.arg.Int)
			}
		}
		if r.Rule == TypeRegex && r.regexErr != nil {
			add(r, "regex", "regex %q does not compile with Go's RE2 (the validator's engine, not PCRE): %v%s", r.Regex, r.regexErr, re2.Hint(r.Regex))
		}
	}
	return out
}

// Evaluated reports whether the validator itself finds this problem when it
// evaluates the rule (a duplicate name, an unknown or missing type, no
// message, no path, a regex RE2 rejects): such a rule is reported as a
// failing rule (kubevirt/<name>) with the validator's cause, not as a
// configuration problem.
func (p Problem) Evaluated() bool {
	switch p.Kind {
	case "duplicate-name", "missing-rule", "unknown-rule", "missing-message", "missing-path", "regex":
		return true
	}
	return false
}
