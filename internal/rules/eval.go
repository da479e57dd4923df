package rules

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
)

// evalCtx evaluates one rule on one subject.
type evalCtx struct {
	e    *Engine
	s    *subject
	rule *Rule
	// mask: this rule reads secrets as "***" (mask_secrets).
	mask    bool
	item    any
	hasItem bool
	// explain: record lines (never for sensitive rules); recording: keep
	// them for this rule (--explain).
	explain   bool
	recording bool
	lines     []string
	// missing collects fields that did not resolve while running actions.
	missing     []string
	inActions   bool
	missingSeen map[string]bool
	// argText is the last evaluation's arguments, for --explain; notes are
	// printed after the line they belong to.
	argText string
	notes   []string
	// argBuf and listBuf are scratch space for condition arguments, reused
	// from one evaluation to the next (conditions keep nothing).
	argBuf  []any
	listBuf []any
	lists   [][]any
	call    condCall
	// actionArgs and act are an action's arguments and call, reused
	// likewise.
	actionArgs []any
	act        actionCall
	// scratch is the subject's while the phase runs (subject.scratch).
	scratch phaseScratch
}

// reset prepares the context for the next rule.
func (x *evalCtx) reset(r *Rule) {
	x.rule = r
	x.mask = x.e.opts.Mask.masks(r)
	x.item, x.hasItem = nil, false
	x.explain, x.recording, x.lines = false, false, nil
	x.missing, x.missingSeen = x.missing[:0], nil
	x.inActions = false
	x.argText = ""
	x.notes = x.notes[:0]
}

// errStop ends a subject's rules after a fail action.
var errStop = errors.New("stopped by fail")

// resolve reads a field, through the mask when the rule reads masked data
// (D10: node included).
func (x *evalCtx) resolve(r *ref) (any, bool) {
	var v any
	level := levelPlain
	fromNode := false
	switch r.root {
	case rootNode:
		fromNode = true
		if x.s.content == nil {
			return nil, false
		}
		v = x.s.content
		if x.mask {
			// Every value plumb never prints (a last-applied annotation
			// that repeats a Secret, credential variables and files),
			// not only a Secret's data.
			v = x.s.maskedContent()
		}
		if x.s.secret {
			level = levelSecretRoot
		}
	case rootInventory:
		v = inventoryRoot{x.s}
	case rootPluginData:
		v = x.s.pluginData
	case rootItem:
		if !x.hasItem {
			return nil, false
		}
		v = x.item
	}
	for _, a := range r.path {
		var next any
		var ok bool
		switch t := v.(type) {
		case map[string]any:
			next, ok = t[a.key]
		case lazyMap:
			next, ok = t.field(a.key)
		}
		switch t := v.(type) {
		case map[string]any, lazyMap:
			if !ok {
				return nil, false
			}
			if x.mask {
				if x.e.masker.isMaskedKey(a.key) {
					level = levelSecret
				} else {
					level = level.child(a.key)
				}
			}
			v = next
		case []any:
			if !a.isIndex || a.index >= len(t) {
				return nil, false
			}
			if level != levelSecret {
				level = levelPlain
			}
			v = t[a.index]
		default:
			return nil, false
		}
		if x.mask && level == levelSecret {
			v = Masked
		}
	}
	if lm, ok := v.(lazyMap); ok {
		v = lm.materialize()
	}
	if x.mask {
		if fromNode {
			v = x.s.maskedTree(x.e.masker, v, level)
		} else {
			v = x.e.masker.tree(v, level)
		}
	}
	return v, true
}

// inventoryRoot is the inventory as rules read it: entry by entry.
type inventoryRoot struct{ s *subject }

func (i inventoryRoot) field(key string) (any, bool) { return i.s.inventoryField(key) }
func (i inventoryRoot) materialize() map[string]any  { return i.s.inventoryMap() }

// unresolved notes a field that did not resolve: the text is kept as
// written (D7). Fields in actions become a warning on the subject; fields in
// conditions are shown by --explain (they are how a rule skips objects that
// lack a field).
func (x *evalCtx) unresolved(r *ref) {
	if x.explain {
		x.notes = append(x.notes, "note: "+r.text+" does not resolve; kept as written")
	}
	if x.inActions {
		if x.missingSeen == nil {
			x.missingSeen = map[string]bool{}
		}
		if !x.missingSeen[r.text] {
			x.missingSeen[r.text] = true
			x.missing = append(x.missing, r.text)
		}
	}
}

// reportUnresolved warns about a rule's fields that did not resolve. A
// built-in rule's are its own business, never the user's: it is written
// to do nothing on objects that lack the fields (--explain shows them).
func (x *evalCtx) reportUnresolved() {
	if len(x.missing) == 0 || x.rule.BuiltIn {
		return
	}
	msg := fmt.Sprintf("inspection rule %s ran on %s with %s unresolved, so the text was used as written; check the field names, or add a condition such as !is-empty so the rule skips objects without them",
		x.rule.UUID, describeSubject(x.s), strings.Join(x.missing, ", "))
	if x.rule.Sensitive {
		msg = fmt.Sprintf("inspection rule %s ran on %s with unresolved fields (details hidden: the rule is sensitive)", x.rule.UUID, describeSubject(x.s))
	}
	f := x.s.newFinding(x.rule, finding.Warning, msg, nil, "unresolved")
	f.Title = "Inspection rule field did not resolve"
	x.s.report(f)
}

// linef adds an explanation line (indent 1 is a condition or action), then
// the notes gathered while evaluating it.
func (x *evalCtx) linef(indent int, format string, args ...any) {
	if !x.recording {
		return
	}
	x.lines = append(x.lines, strings.Repeat("  ", indent-1)+fmt.Sprintf(format, args...))
	for _, n := range x.notes {
		x.lines = append(x.lines, strings.Repeat("  ", indent)+n)
	}
	x.notes = x.notes[:0]
}

// note adds a note to the current explanation line.
func (x *evalCtx) note(n string) {
	if x.explain {
		x.notes = append(x.notes, n)
	}
}

// condition evaluates conditions[i]: once, or once per loop item with the
// results joined by multiple. Inversion applies to each evaluation before
// joining (Ironic).
func (x *evalCtx) condition(c *Condition, i int) (bool, error) {
	if !c.HasLoop {
		ok, err := x.condOnce(c, false)
		if x.explain {
			x.linef(1, "conditions[%d] %s%s: %s", i, c.OpString(), x.argText, verdict(ok, err))
		}
		return ok, err
	}
	items, err := x.loopItems(c.loop)
	if err != nil {
		return false, err
	}
	defer func() { x.item, x.hasItem = nil, false }()
	if x.explain {
		x.linef(1, "conditions[%d] %s, loop over %d item(s), multiple %s:", i, c.OpString(), len(items), c.Multiple)
	}
	if c.Multiple == MultipleFirst {
		// D4: the first iteration only (Ironic's first behaves like any).
		items = items[:min(1, len(items))]
	}
	var results []bool
	for k, it := range items {
		x.item, x.hasItem = it, true
		ok, err := x.condOnce(c, true)
		if x.explain {
			x.linef(2, "item %d %s%s: %s", k, text(it), x.argText, verdict(ok, err))
		}
		if err != nil {
			return false, err
		}
		results = append(results, ok)
	}
	var result bool
	switch c.Multiple {
	case MultipleAll:
		result = !slices.Contains(results, false)
	case MultipleFirst, MultipleLast:
		result = len(results) > 0 && results[len(results)-1]
	default:
		result = slices.Contains(results, true)
	}
	if x.explain {
		x.linef(2, "→ %s", verdict(result, nil))
	}
	return result, nil
}

func verdict(ok bool, err error) string {
	switch {
	case err != nil:
		return "ERROR: " + err.Error()
	case ok:
		return "PASSED"
	}
	return "FAILED"
}

// condOnce evaluates the operator once with the current item. Arguments go
// into scratch buffers: an operator never keeps them. A list argument
// written as a list of fields is passed unboxed (lists), which saves an
// allocation per evaluation.
func (x *evalCtx) condOnce(c *Condition, inLoop bool) (bool, error) {
	args := x.argBuf[:0]
	x.listBuf = x.listBuf[:0]
	lists := x.lists[:0]
	for i, v := range c.args {
		var got any
		var ok bool
		if v.kind == kindListValue && !inLoop && c.spec.params[i].kind == kindList {
			for len(lists) < i {
				lists = append(lists, nil)
			}
			var l []any
			l, ok = x.evalListInto(v)
			lists = append(lists, l)
		} else {
			got, ok = x.evalArg(v, inLoop)
		}
		if !ok && c.spec.name == "is-empty" {
			got = nil // D7: an unresolvable field is empty
		}
		args = append(args, got)
	}
	x.argBuf, x.lists = args, lists
	x.call = condCall{op: c.Op, args: args, lists: lists}
	if x.explain {
		x.argText = " " + argsText(c.spec.params, x.call.shown())
	}
	ok, err := c.spec.eval(&x.call)
	if err != nil {
		return false, err
	}
	return ok != c.Invert, nil
}

// evalListInto evaluates a list argument into the scratch list buffer.
func (x *evalCtx) evalListInto(v *value) ([]any, bool) {
	start := len(x.listBuf)
	all := true
	for _, e := range v.list {
		got, ok := x.eval(e)
		all = all && ok
		x.listBuf = append(x.listBuf, got)
	}
	return x.listBuf[start:len(x.listBuf):len(x.listBuf)], all
}

// loopItems resolves a loop: a list gives one iteration per element, a
// mapping one iteration with the whole mapping (Ironic). A field that does
// not resolve, or resolves to null, gives no iteration.
func (x *evalCtx) loopItems(v *value) ([]any, error) {
	got := v.c
	if v.kind == kindWhole {
		var ok bool
		if got, ok = x.resolve(v.t.parts[0].ref); !ok {
			if x.explain {
				x.notes = append(x.notes, "note: loop "+v.t.src+" does not resolve: no iterations")
			}
			return nil, nil
		}
	}
	switch t := got.(type) {
	case []any:
		if max := x.e.opts.MaxLoopItems; len(t) > max {
			// A loop runs its condition or action once per item: an
			// object with a huge list must not stall the run.
			return nil, fmt.Errorf("loop %s has %d items, over the limit of %d iterations; loop over a smaller list or test the list as a whole",
				loopName(v), len(t), max)
		}
		return t, nil
	case map[string]any:
		return []any{t}, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("loop %s resolved to %s %s, not a list or mapping", loopName(v), typeName(got), quoteValue(got))
}

// loopName names a loop in messages: its field, or "of the rule" for a
// literal list.
func loopName(v *value) string {
	if v.t != nil {
		return v.t.src
	}
	return "of the rule"
}

// action runs actions[i], once or once per loop item. An error (or a fail)
// in one iteration stops the rest.
func (x *evalCtx) action(a *Action, i int) error {
	x.inActions = true
	if !a.HasLoop {
		return x.actionOnce(a, i, -1, 1)
	}
	items, err := x.loopItems(a.loop)
	if err != nil {
		return err
	}
	if x.explain {
		x.linef(1, "actions[%d] %s, loop over %d item(s):", i, a.Op, len(items))
	}
	defer func() { x.item, x.hasItem = nil, false }()
	for k, it := range items {
		x.item, x.hasItem = it, true
		if err := x.actionOnce(a, i, k, 2); err != nil {
			return err
		}
	}
	return nil
}

func (x *evalCtx) actionOnce(a *Action, i, iter int, indent int) (err error) {
	inLoop := iter >= 0
	// The arguments go into a scratch buffer: actions copy what they
	// keep (deepCopy, taken), never the list.
	args := slices.Grow(x.actionArgs[:0], len(a.args))[:len(a.args)]
	x.actionArgs = args
	defer clear(args)
	for k, v := range a.args {
		args[k], _ = x.evalArg(v, inLoop)
	}
	// Before anything prints or records the arguments.
	if err := x.admitArgs(a.spec.params, args); err != nil {
		return err
	}
	if x.explain {
		line := fmt.Sprintf("actions[%d] %s %s", i, a.Op, argsText(a.spec.params, args))
		if inLoop {
			line = fmt.Sprintf("item %s: %s %s", text(x.item), a.Op, argsText(a.spec.params, args))
		}
		defer func() {
			if err != nil && err != errStop {
				line += ": ERROR: " + err.Error()
			}
			x.linef(indent, "%s", line)
		}()
	}
	x.s.recordAction(x.taken(a, args))
	if err := checkRuntimeArgs(a.spec.params, args); err != nil {
		return err
	}
	x.act = actionCall{x: x, a: a, index: i, iter: iter, args: args}
	defer func() { x.act = actionCall{} }()
	return a.spec.run(&x.act)
}

// taken records an executed action for the report: nothing of a sensitive
// rule's arguments (10.5); containers are copied because later actions may
// change the object they came from.
func (x *evalCtx) taken(a *Action, args []any) takenAction {
	t := takenAction{op: a.Op, params: a.spec.params}
	if x.rule.Sensitive {
		return t
	}
	t.args = make([]any, len(args))
	for i, v := range args {
		if re, ok := v.(*compiledRegex); ok {
			v = re.src
		}
		t.args[i] = deepCopy(v)
	}
	return t
}

// argsText prints resolved arguments as name=value pairs for --explain.
func argsText(params []param, args []any) string {
	var parts []string
	for i, p := range params {
		v := args[i]
		if re, ok := v.(*compiledRegex); ok {
			v = re.src
		}
		parts = append(parts, p.name+"="+quoteValue(v))
	}
	return strings.Join(parts, " ")
}

// checkRuntimeArgs checks interpolated arguments against their kind.
func checkRuntimeArgs(params []param, args []any) error {
	for i, p := range params {
		v := args[i]
		var bad bool
		switch p.kind {
		case kindBool:
			_, ok := v.(bool)
			bad = !ok
		case kindString, kindPath:
			_, ok := v.(string)
			bad = !ok
		case kindList:
			_, ok := v.([]any)
			bad = !ok
		case kindLevel:
			s, ok := v.(string)
			bad = !ok || !slices.Contains(logLevels, strings.ToLower(s))
			if bad {
				return fmt.Errorf("invalid log level %s: use %s", quoteValue(v), strings.Join(logLevels, ", "))
			}
		}
		if bad {
			return fmt.Errorf("argument %s must be %s, got %s %s", p.name, p.kind, typeName(v), quoteValue(v))
		}
	}
	return nil
}
