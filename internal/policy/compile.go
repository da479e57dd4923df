package policy

import (
	"fmt"
	"sync"

	celast "github.com/google/cel-go/common/ast"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// baseEnv is the API server's CEL environment for admission policies: the
// base environment of the library's default compatibility version, with
// strict cost, as the ValidatingAdmissionPolicy plugin builds it. Building
// it is expensive and it is immutable, so it is built once per process.
var baseEnv = sync.OnceValue(func() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
})

// compiled is one ValidatingAdmissionPolicy ready to evaluate.
type compiled struct {
	validator validating.Validator
	// problems are the expressions that do not compile, each with its
	// field path in the policy object; a policy with any is not evaluated
	// (the API server refuses to store it).
	problems []exprProblem
	// clusterOnly names what the policy reads that only a live cluster
	// has ("authorizer", Kyverno's resource.Get, ...); such a policy is
	// not evaluated.
	clusterOnly string
	// unimplemented names a function a Kyverno policy calls that plumb's
	// environment lacks (its compile errors are then not the policy's
	// fault); such a policy is not evaluated.
	unimplemented string
	// clusterAt and unimplementedAt are the expressions that use them.
	clusterAt, unimplementedAt manifest.Path
	// validations are the parsed validation expressions, by index, for
	// locating the field a failure is about (nil where it does not parse).
	validations []*celast.AST
	// fields reads the fields of the object the expressions read.
	fields *fieldReader
}

// exprProblem is an expression that does not compile.
type exprProblem struct {
	path    manifest.Path
	message string
}

// compilePolicy compiles a policy as the API server's ValidatingAdmissionPolicy
// plugin does (k8s.io/apiserver validating.compilePolicy, which is not
// exported: this is the same sequence of the library's exported calls), and
// compiles each expression once more on its own, in the environment the API
// server checks new policies with (environment.NewExpressions), to report
// each error at its expression.
//
// A Kyverno policy (kyverno) is compiled in the same environment extended
// with Kyverno's cluster-free functions (kyvernolib.go).
func compilePolicy(p *admissionv1.ValidatingAdmissionPolicy, kyverno bool) *compiled {
	c := &compiled{}
	env := baseEnv()
	if kyverno {
		env = kyvernoEnv()
	}
	hasParam := p.Spec.ParamKind != nil
	optionalVars := plugincel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: true}
	messageVars := plugincel.OptionalVariableDeclarations{HasParams: hasParam, HasAuthorizer: false}
	failurePolicy := p.Spec.FailurePolicy

	c.problems = checkExpressions(env, p, optionalVars, messageVars)
	c.clusterOnly, c.clusterAt, c.validations, c.fields = parseExpressions(env, p, kyverno)
	if kyverno {
		for _, prob := range c.problems {
			if c.unimplemented = kyvernoUnimplemented(prob.message); c.unimplemented != "" {
				c.unimplementedAt = prob.path
				break
			}
		}
	}

	filter, err := plugincel.NewCompositedCompiler(env)
	if err != nil {
		c.validator = validating.NewValidator(nil, nil, nil, nil, failurePolicy, err)
		return c
	}
	filter.CompileAndStoreVariables(variables(p.Spec.Variables), optionalVars, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if conds := p.Spec.MatchConditions; len(conds) > 0 {
		accessors := make([]plugincel.ExpressionAccessor, len(conds))
		for i := range conds {
			accessors[i] = (*matchconditions.MatchCondition)(&conds[i])
		}
		matcher = matchconditions.NewMatcher(filter.CompileCondition(accessors, optionalVars, environment.StoredExpressions), failurePolicy, "policy", "validate", p.Name)
	}
	c.validator = validating.NewValidator(
		filter.CompileCondition(validations(p.Spec.Validations), optionalVars, environment.StoredExpressions),
		matcher,
		filter.CompileCondition(auditAnnotations(p.Spec.AuditAnnotations), optionalVars, environment.StoredExpressions),
		filter.CompileCondition(messageExpressions(p.Spec.Validations), messageVars, environment.StoredExpressions),
		failurePolicy,
		nil,
	)
	return c
}

// checkExpressions compiles every expression of the policy in the
// environment for new expressions, with the variables composed as the API
// server composes them, and returns those that do not compile.
func checkExpressions(env *environment.EnvSet, p *admissionv1.ValidatingAdmissionPolicy, vars, messageVars plugincel.OptionalVariableDeclarations) []exprProblem {
	comp, err := plugincel.NewCompositedCompiler(env)
	if err != nil {
		return []exprProblem{{path: manifest.Path{manifest.Key("spec")}, message: err.Error()}}
	}
	var out []exprProblem
	check := func(res plugincel.CompilationResult, at manifest.Path) {
		if res.Error != nil {
			out = append(out, exprProblem{path: at, message: res.Error.Detail})
		}
	}
	spec := manifest.Path{manifest.Key("spec")}
	for i, v := range p.Spec.Variables {
		res := comp.CompileAndStoreVariable(&validating.Variable{Name: v.Name, Expression: v.Expression}, vars, environment.NewExpressions)
		check(res, spec.Child(manifest.Key("variables"), manifest.Index(i), manifest.Key("expression")))
	}
	for i := range p.Spec.MatchConditions {
		res := comp.CompileCELExpression((*matchconditions.MatchCondition)(&p.Spec.MatchConditions[i]), vars, environment.NewExpressions)
		check(res, spec.Child(manifest.Key("matchConditions"), manifest.Index(i), manifest.Key("expression")))
	}
	for i, v := range p.Spec.Validations {
		at := spec.Child(manifest.Key("validations"), manifest.Index(i))
		check(comp.CompileCELExpression(&validating.ValidationCondition{Expression: v.Expression}, vars, environment.NewExpressions), at.Child(manifest.Key("expression")))
		if v.MessageExpression != "" {
			check(comp.CompileCELExpression(&validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}, messageVars, environment.NewExpressions),
				at.Child(manifest.Key("messageExpression")))
		}
	}
	for i, a := range p.Spec.AuditAnnotations {
		res := comp.CompileCELExpression(&validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}, vars, environment.NewExpressions)
		check(res, spec.Child(manifest.Key("auditAnnotations"), manifest.Index(i), manifest.Key("valueExpression")))
	}
	return out
}

// parseExpressions parses the policy's expressions (without type checking)
// to find what they read: the name of a variable (or, for a Kyverno
// policy, a library function) only a live cluster binds, and the
// validations' ASTs.
func parseExpressions(envSet *environment.EnvSet, p *admissionv1.ValidatingAdmissionPolicy, kyverno bool) (clusterOnly string, clusterAt manifest.Path, asts []*celast.AST, fields *fieldReader) {
	fields = &fieldReader{variables: map[string]*celast.AST{}}
	env, err := envSet.Env(environment.StoredExpressions)
	if err != nil {
		return "", nil, nil, fields
	}
	parse := func(expr string) *celast.AST {
		a, iss := env.Parse(expr)
		if iss != nil && iss.Err() != nil {
			return nil
		}
		return a.NativeRep()
	}
	spec := manifest.Path{manifest.Key("spec")}
	note := func(a *celast.AST, list string, i int, field string) {
		if a == nil || clusterOnly != "" {
			return
		}
		if readsIdent(a.Expr(), "authorizer") {
			clusterOnly = "authorizer"
		} else if kyverno {
			clusterOnly = kyvernoClusterOnly(a.Expr())
		}
		if clusterOnly != "" {
			clusterAt = spec.Child(manifest.Key(list), manifest.Index(i), manifest.Key(field))
		}
	}
	for i, v := range p.Spec.Variables {
		a := parse(v.Expression)
		note(a, "variables", i, "expression")
		if a != nil {
			fields.variables[v.Name] = a
		}
	}
	for i, m := range p.Spec.MatchConditions {
		note(parse(m.Expression), "matchConditions", i, "expression")
	}
	for i, v := range p.Spec.Validations {
		a := parse(v.Expression)
		note(a, "validations", i, "expression")
		asts = append(asts, a)
		if v.MessageExpression != "" {
			note(parse(v.MessageExpression), "validations", i, "messageExpression")
		}
	}
	for i, a := range p.Spec.AuditAnnotations {
		note(parse(a.ValueExpression), "auditAnnotations", i, "valueExpression")
	}
	return clusterOnly, clusterAt, asts, fields
}

// readsIdent reports whether the expression reads the identifier name.
func readsIdent(e celast.Expr, name string) bool {
	found := false
	visitor := celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() == celast.IdentKind && e.AsIdent() == name {
			found = true
		}
	})
	celast.PostOrderVisit(e, visitor)
	return found
}

func validations(vs []admissionv1.Validation) []plugincel.ExpressionAccessor {
	out := make([]plugincel.ExpressionAccessor, len(vs))
	for i, v := range vs {
		out[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
	}
	return out
}

func messageExpressions(vs []admissionv1.Validation) []plugincel.ExpressionAccessor {
	out := make([]plugincel.ExpressionAccessor, len(vs))
	for i, v := range vs {
		if v.MessageExpression != "" {
			out[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	return out
}

func auditAnnotations(as []admissionv1.AuditAnnotation) []plugincel.ExpressionAccessor {
	out := make([]plugincel.ExpressionAccessor, len(as))
	for i, a := range as {
		out[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return out
}

func variables(vs []admissionv1.Variable) []plugincel.NamedExpressionAccessor {
	out := make([]plugincel.NamedExpressionAccessor, len(vs))
	for i, v := range vs {
		out[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	return out
}

// applyPolicyDefaults sets the defaults the API server sets when it stores
// a policy (k8s.io/kubernetes pkg/apis/admissionregistration/v1 defaults,
// which are not importable): failurePolicy Fail, and the match resources'
// defaults.
func applyPolicyDefaults(p *admissionv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		f := admissionv1.Fail
		p.Spec.FailurePolicy = &f
	}
	if p.Spec.MatchConstraints != nil {
		defaultMatchResources(p.Spec.MatchConstraints)
	}
}

// applyBindingDefaults sets a binding's defaults as the API server does.
func applyBindingDefaults(b *admissionv1.ValidatingAdmissionPolicyBinding) {
	if b.Spec.MatchResources != nil {
		defaultMatchResources(b.Spec.MatchResources)
	}
}

// defaultMatchResources: selectors default to the empty selector (match
// everything; a nil selector would match nothing), matchPolicy to
// Equivalent, a rule's scope to "*".
func defaultMatchResources(m *admissionv1.MatchResources) {
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	if m.MatchPolicy == nil {
		e := admissionv1.Equivalent
		m.MatchPolicy = &e
	}
	for _, rules := range [][]admissionv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				s := admissionv1.AllScopes
				rules[i].Scope = &s
			}
		}
	}
}

// describeProblem is the message of an expression that does not compile.
func describeProblem(policy string, p exprProblem) string {
	return fmt.Sprintf("%s: %s does not compile: %s", policy, p.path, p.message)
}
