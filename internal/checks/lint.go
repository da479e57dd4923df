package checks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"

	"github.com/plumb-ci/plumb/internal/re2"
)

// lint compiles every expression of a parsed check, prepares its gatherers
// and applies tlint's rules plus plumb's stricter ones (research §1.6,
// §7.4). Problems are added to c.Diagnostics.
func (c *Check) lint() {
	tt := c.TargetType
	if tt == "" {
		tt = TargetObject
	}
	factNames := map[string]bool{}
	for i, f := range c.Facts {
		factNames[f.Name] = true
		if f.Gatherer == "" {
			continue
		}
		if err := prepareFact(f, tt); err != nil {
			pos := f.ArgPos
			if d, rerr := resolveGatherer(f.Gatherer); rerr != nil || tt == TargetGroup && !d.group {
				pos = f.GathererPos
			}
			c.addDiag(LevelError, pos, fmt.Sprintf("facts[%d]", i), "%v", err)
			c.broken = true
		}
	}
	valueNames := map[string]bool{}
	for _, v := range c.Values {
		valueNames[v.Name] = true
	}
	refs := refChecker{facts: factNames, values: valueNames}

	c.compileBool(c.When, scopeEnv, "when", refs)
	c.compileBool(c.Exclude, scopeHost, "exclude", refs)
	for i, v := range c.Values {
		for j, cond := range v.Conditions {
			c.compileBool(cond.When, scopeEnv, fmt.Sprintf("values[%d].conditions[%d].when", i, j), refs)
		}
	}
	for i, e := range c.Expectations {
		at := fmt.Sprintf("expectations[%d]", i)
		if e.Expr != nil {
			c.compileExpectation(e, at+"."+string(e.Type), refs)
		}
		c.lintMessage(e, e.FailureMessage, at+".failure_message", refs)
		if e.WarningMessage != nil && e.Type != ExpectEnum && e.Type != "" {
			c.addDiag(LevelError, e.WarningMessage.Pos, at+".warning_message", "warning_message is only available for expect_enum expectations")
		}
		c.lintMessage(e, e.WarningMessage, at+".warning_message", refs)
	}
}

// compileInto compiles an expression and records its compile errors.
func (c *Check) compileInto(e *Expr, s scope, at string, refs refChecker) bool {
	res := compile(s, e.Source)
	e.ast, e.prog, e.fast, e.scope, e.errs = res.ast, res.prog, res.fast, s, res.errs
	for _, ce := range res.errs {
		msg := ce.Message
		if strings.Contains(msg, "undeclared reference") {
			msg += fmt.Sprintf(" (this expression sees only %s)", s)
		}
		if strings.Contains(msg, "error parsing regexp") {
			msg += re2.Hint(msg) // the message quotes the construct RE2 rejected
		}
		c.addDiag(LevelError, e.errPos(ce), at, "%s", msg)
	}
	if e.prog == nil {
		return false
	}
	for _, u := range refs.unknown(e.ast) {
		c.addDiag(LevelError, e.text.at(e.Source, 0), at, "%s is not declared by this check (declared: %s)", u.name, strings.Join(u.known, ", "))
	}
	return true
}

// compileBool compiles a predicate: it must be able to return a boolean.
func (c *Check) compileBool(e *Expr, s scope, at string, refs refChecker) {
	if e == nil || !c.compileInto(e, s, at, refs) {
		return
	}
	if ot := e.ast.OutputType(); !canBe(ot, types.BoolType) {
		c.addDiag(LevelError, e.text.at(e.Source, 0), at, "must be a boolean expression, but it returns %s", ot)
	}
}

func canBe(ot *types.Type, want *types.Type) bool {
	return ot.Kind() == types.DynKind || ot.IsExactType(want)
}

func (c *Check) compileExpectation(e *Expectation, at string, refs refChecker) {
	if !c.compileInto(e.Expr, scopeExpect, at, refs) {
		return
	}
	e.factRefs = factReferences(e.Expr.ast, c.Facts)
	e.chains = elementChains(e.Expr.ast)
	ot := e.Expr.ast.OutputType()
	switch e.Type {
	case Expect:
		if !canBe(ot, types.BoolType) {
			c.addDiag(LevelError, e.Expr.text.at(e.Expr.Source, 0), at, "expect must return a boolean, but this expression returns %s (use expect_same to compare values across targets)", ot)
		}
	case ExpectEnum:
		if !canBe(ot, types.StringType) {
			c.addDiag(LevelError, e.Expr.text.at(e.Expr.Source, 0), at, "expect_enum must return \"passing\", \"warning\" or \"critical\", but this expression returns %s", ot)
		}
		lits := stringLiterals(e.Expr.ast)
		if !lits[Passing] {
			c.addDiag(LevelError, e.Expr.text.at(e.Expr.Source, 0), at, "passing return value not found: an expect_enum that can never return \"passing\" always fails")
		}
		if !lits[Warning] {
			c.addDiag(LevelWarning, e.Expr.text.at(e.Expr.Source, 0), at, "warning return value not found. Consider using `expect` expression if the expectation only passes or fails")
		}
	}
}

// lintMessage compiles the ${...} parts of a message.
func (c *Check) lintMessage(e *Expectation, m *Message, at string, refs refChecker) {
	if m == nil {
		return
	}
	if m.syntaxErr != "" {
		c.addDiag(LevelError, m.Pos, at, "%s", m.syntaxErr)
		return
	}
	if e.Type == ExpectSame && m.Interpolates() {
		c.addDiag(LevelError, m.Pos, at, "String interpolation is not allowed here: an expect_same message belongs to the whole result, not to one target, so it must be plain text")
		return
	}
	for _, p := range m.parts {
		if p.expr != nil {
			c.compileInto(p.expr, scopeExpect, at, refs)
		}
	}
}

// refChecker reports facts.x and values.x that the check does not declare.
type refChecker struct {
	facts, values map[string]bool
}

type unknownRef struct {
	name  string
	known []string
}

func (r refChecker) unknown(ast *cel.Ast) []unknownRef {
	var out []unknownRef
	for _, ref := range namedReferences(ast) {
		var declared map[string]bool
		switch ref.root {
		case "facts":
			declared = r.facts
		case "values":
			declared = r.values
		default:
			continue
		}
		if !declared[ref.name] {
			out = append(out, unknownRef{name: ref.root + "." + ref.name, known: sortedNames(declared, ref.root)})
		}
	}
	return out
}

func sortedNames(m map[string]bool, root string) []string {
	var out []string
	for k := range m {
		out = append(out, root+"."+k)
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	slices.Sort(out)
	return out
}

// namedRef is a static reference such as facts.x, facts["x"] or facts.?x.
type namedRef struct {
	root, name string
}

// namedReferences lists the static references of an expression to fields of
// facts and values; dynamic is true when facts is also used otherwise
// (iterated, passed to a function), so any fact may be read.
func namedReferences(ast *cel.Ast) []namedRef {
	refs, _ := references(ast)
	return refs
}

func references(ast *cel.Ast) (refs []namedRef, dynamicFacts bool) {
	if ast == nil {
		return nil, false
	}
	root := ast.NativeRep().Expr()
	idents := 0
	celast.PreOrderVisit(root, celast.NewExprVisitor(func(e celast.Expr) {
		switch e.Kind() {
		case celast.IdentKind:
			if e.AsIdent() == "facts" {
				idents++
			}
		case celast.SelectKind:
			s := e.AsSelect()
			if op := s.Operand(); op.Kind() == celast.IdentKind && (op.AsIdent() == "facts" || op.AsIdent() == "values") {
				refs = append(refs, namedRef{op.AsIdent(), s.FieldName()})
			}
		case celast.CallKind:
			call := e.AsCall()
			if (call.FunctionName() == "_[_]" || call.FunctionName() == "_?._" || call.FunctionName() == "_[?_]") && len(call.Args()) == 2 {
				op, key := call.Args()[0], call.Args()[1]
				if op.Kind() == celast.IdentKind && (op.AsIdent() == "facts" || op.AsIdent() == "values") && key.Kind() == celast.LiteralKind {
					if s, ok := key.AsLiteral().(types.String); ok {
						refs = append(refs, namedRef{op.AsIdent(), string(s)})
					}
				}
			}
		}
	}))
	static := 0
	for _, r := range refs {
		if r.root == "facts" {
			static++
		}
	}
	return refs, idents > static
}

// factReferences returns the indexes of the facts an expression reads, in
// declaration order; every fact when it reads facts dynamically.
func factReferences(ast *cel.Ast, facts []*Fact) []int {
	refs, dynamic := references(ast)
	used := map[string]bool{}
	for _, r := range refs {
		if r.root == "facts" {
			used[r.name] = true
		}
	}
	var out []int
	for i, f := range facts {
		if dynamic || used[f.Name] {
			out = append(out, i)
		}
	}
	return out
}

// stringLiterals collects the string constants of an expression.
func stringLiterals(ast *cel.Ast) map[string]bool {
	out := map[string]bool{}
	celast.PreOrderVisit(ast.NativeRep().Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() == celast.LiteralKind {
			if s, ok := e.AsLiteral().(types.String); ok {
				out[string(s)] = true
			}
		}
	}))
	return out
}
