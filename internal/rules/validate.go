package rules

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/re2"
)

var conditionKeys = []string{"args", "loop", "multiple", "op"}
var actionKeys = []string{"args", "loop", "op"}

// readCondition validates and compiles conditions[i].
func (r *ruleReader) readCondition(item any, i int) *Condition {
	base := []manifest.Segment{manifest.Key("conditions"), manifest.Index(i)}
	at := func(s ...manifest.Segment) manifest.Location { return r.at(append(slices.Clone(base), s...)...) }
	m, ok := item.(map[string]any)
	if !ok {
		r.errorf(at(), "conditions[%d] must be a mapping with op and args, found %s", i, typeName(item))
		return nil
	}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(conditionKeys, k) {
			r.errorf(at(manifest.Key(k)), "unknown key %q in conditions[%d] (known keys: %s; arguments such as force_strings go under args)", k, i, strings.Join(conditionKeys, ", "))
		}
	}
	c := &Condition{Location: at(), Multiple: MultipleAny}
	opName, ok := r.opString(m, at, "conditions", i)
	if !ok {
		return nil
	}
	name, invert, err := parseInversion(opName)
	if err != nil {
		r.errorf(at(manifest.Key("op")), "conditions[%d]: %v", i, err)
		return nil
	}
	c.Op, c.Invert = name, invert
	c.spec = conditionSpecs[name]
	if c.spec == nil {
		if alt, ok := unregisteredConditions[name]; ok {
			r.errorf(at(manifest.Key("op")), "conditions[%d]: unknown operator %q: write %q instead", i, name, alt)
		} else {
			r.errorf(at(manifest.Key("op")), "conditions[%d]: unknown operator %q (operators: %s)", i, name, strings.Join(sortedSpecNames(conditionSpecs), ", "))
		}
		return nil
	}
	c.loop, c.Loop, c.HasLoop = r.readLoop(m, at)
	if v, ok := m["multiple"]; ok {
		s, _ := v.(string)
		switch s {
		case MultipleAny, MultipleAll, MultipleFirst, MultipleLast:
			c.Multiple = s
		default:
			r.errorf(at(manifest.Key("multiple")), "conditions[%d]: multiple must be any, all, first or last, found %s", i, quoteValue(v))
		}
		if !c.HasLoop {
			r.warnf(at(manifest.Key("multiple")), "conditions[%d]: multiple has no effect without loop", i)
		}
	}
	c.Args, c.args = r.readArgs(m, c.spec.name, c.spec.params, c.HasLoop, at, fmt.Sprintf("conditions[%d] (%s)", i, name))
	if c.args == nil {
		return nil
	}
	return c
}

// readAction validates and compiles actions[i].
func (r *ruleReader) readAction(item any, i int) *Action {
	base := []manifest.Segment{manifest.Key("actions"), manifest.Index(i)}
	at := func(s ...manifest.Segment) manifest.Location { return r.at(append(slices.Clone(base), s...)...) }
	m, ok := item.(map[string]any)
	if !ok {
		r.errorf(at(), "actions[%d] must be a mapping with op and args, found %s", i, typeName(item))
		return nil
	}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(actionKeys, k) {
			r.errorf(at(manifest.Key(k)), "unknown key %q in actions[%d] (known keys: %s; arguments such as unique go under args)", k, i, strings.Join(actionKeys, ", "))
		}
	}
	a := &Action{Location: at()}
	name, ok := r.opString(m, at, "actions", i)
	if !ok {
		return nil
	}
	a.Op = strings.TrimSpace(name)
	a.spec = actionSpecs[a.Op]
	if a.spec == nil {
		if why, ok := unsupportedActions[a.Op]; ok {
			r.errorf(at(manifest.Key("op")), "actions[%d]: action %q is not supported by plumb: %s", i, a.Op, why)
		} else {
			r.errorf(at(manifest.Key("op")), "actions[%d]: unknown action %q (actions: %s)", i, a.Op, strings.Join(sortedSpecNames(actionSpecs), ", "))
		}
		return nil
	}
	if a.spec.node && r.phase == PhaseEarly {
		r.errorf(at(manifest.Key("op")), "actions[%d]: %s changes the object, which early rules do not have (they run on source documents before rendering); use the preprocess phase", i, a.Op)
	}
	a.loop, a.Loop, a.HasLoop = r.readLoop(m, at)
	a.Args, a.args = r.readArgs(m, a.spec.name, a.spec.params, a.HasLoop, at, fmt.Sprintf("actions[%d] (%s)", i, a.Op))
	if a.args == nil {
		return nil
	}
	if a.spec.params[0].name == "path" && a.args[0].kind == kindConst {
		if p, ok := a.args[0].c.(string); ok {
			if strings.HasSuffix(a.Op, "-attribute") {
				a.pathSegs, _ = attributePath(p)
			} else {
				a.pathSegs, _ = pluginPath(p)
			}
		}
	}
	return a
}

func (r *ruleReader) opString(m map[string]any, at func(...manifest.Segment) manifest.Location, list string, i int) (string, bool) {
	v, ok := m["op"]
	if !ok {
		r.errorf(at(), "%s[%d] has no op", list, i)
		return "", false
	}
	s, isString := v.(string)
	if !isString || strings.TrimSpace(s) == "" {
		r.errorf(at(manifest.Key("op")), "%s[%d]: op must be a non-empty string, found %s", list, i, quoteValue(v))
		return "", false
	}
	return s, true
}

// parseInversion splits "!eq", "! eq" and " !eq " into the operator and the
// inversion (D5: the space the spec allows is accepted).
func parseInversion(op string) (string, bool, error) {
	op = strings.TrimSpace(op)
	switch strings.Count(op, "!") {
	case 0:
		return op, false, nil
	case 1:
		if !strings.HasPrefix(op, "!") {
			return "", false, fmt.Errorf("%q: the inversion mark '!' must come first", op)
		}
		return strings.TrimSpace(op[1:]), true, nil
	}
	return "", false, fmt.Errorf("%q: more than one '!' is not allowed", op)
}

// readLoop validates loop: a literal list or mapping, or a string that is
// exactly one field resolving to one (D18).
func (r *ruleReader) readLoop(m map[string]any, at func(...manifest.Segment) manifest.Location) (*value, any, bool) {
	v, ok := m["loop"]
	if !ok {
		return nil, nil, false
	}
	loc := at(manifest.Key("loop"))
	switch t := v.(type) {
	case []any:
		if len(t) > DefaultMaxLoopItems {
			r.errorf(loc, "loop has %d items, over the limit of %d iterations", len(t), DefaultMaxLoopItems)
			return nil, v, true
		}
		return constValue(t), t, true
	case map[string]any:
		return constValue(t), t, true
	case string:
		tmpl, _, err := parseTemplate(t)
		if err != nil {
			r.errorf(loc, "loop %q: %v", t, err)
			return nil, v, true
		}
		if tmpl == nil || tmpl.whole() == nil {
			r.errorf(loc, "loop %q must be a list, a mapping, or exactly one field such as \"{node.spec.template.spec.containers}\"", t)
			return nil, v, true
		}
		compiled := &value{kind: kindWhole, t: tmpl}
		r.checkRefs(compiled, loc, false, "loop")
		return compiled, v, true
	}
	r.errorf(loc, "loop must be a list, a mapping or a field, found %s", typeName(v))
	return nil, v, true
}

// readArgs maps args (a mapping, or a deprecated positional list) onto the
// parameters, checks literal values and compiles templates.
func (r *ruleReader) readArgs(m map[string]any, op string, params []param, inLoop bool, at func(...manifest.Segment) manifest.Location, what string) (map[string]any, []*value) {
	raw, ok := m["args"]
	if !ok {
		r.errorf(at(), "%s has no args (arguments: %s)", what, paramList(params))
		return nil, nil
	}
	argsAt := func(name string) manifest.Location { return at(manifest.Key("args"), manifest.Key(name)) }
	named := map[string]any{}
	switch t := raw.(type) {
	case map[string]any:
		var unknown []string
		for _, k := range sortedKeys(t) {
			if !slices.ContainsFunc(params, func(p param) bool { return p.name == k }) {
				unknown = append(unknown, k)
				continue
			}
			named[k] = t[k]
		}
		if len(unknown) > 0 {
			r.errorf(argsAt(unknown[0]), "%s: unexpected argument(s) %s (arguments: %s)", what, strings.Join(unknown, ", "), paramList(params))
		}
	case []any:
		// Ironic's deprecated list form maps positionally onto the
		// parameters; extra items are an error here (Ironic drops them).
		r.warnf(at(manifest.Key("args")), "%s: list-form args are deprecated (as in Ironic); write a mapping: %s", what, paramList(params))
		if len(t) > len(params) {
			r.errorf(at(manifest.Key("args")), "%s: %d arguments given, at most %d accepted (%s)", what, len(t), len(params), paramList(params))
		}
		for i, v := range t {
			if i < len(params) {
				named[params[i].name] = v
			}
		}
		argsAt = func(string) manifest.Location { return at(manifest.Key("args")) }
	default:
		r.errorf(at(manifest.Key("args")), "%s: args must be a mapping of argument names to values, found %s", what, typeName(raw))
		return nil, nil
	}
	var missing []string
	for _, p := range params {
		if _, ok := named[p.name]; p.required && !ok {
			missing = append(missing, p.name)
		}
	}
	if len(missing) > 0 {
		r.errorf(at(manifest.Key("args")), "%s: missing required argument(s) %s", what, strings.Join(missing, ", "))
	}
	out := make([]*value, len(params))
	for i, p := range params {
		v, given := named[p.name]
		if !given {
			out[i] = constValue(p.def)
			continue
		}
		mode := formatNone
		switch {
		case p.format:
			mode = formatStrict
		case inLoop:
			mode = formatLenient
		}
		if mode == formatNone {
			r.warnLiteralFields(v, argsAt(p.name), what, p.name)
		}
		c, err := compileValue(v, mode)
		if err != nil {
			r.errorf(argsAt(p.name), "%s: argument %s: %v", what, p.name, err)
			out[i] = constValue(p.def)
			continue
		}
		r.checkRefs(c, argsAt(p.name), inLoop, what+": argument "+p.name)
		if c.kind == kindConst {
			checked, err := checkKind(op, p, c.c)
			if err != nil {
				r.errorf(argsAt(p.name), "%s: argument %s: %v", what, p.name, err)
			}
			c = constValue(checked)
		} else if p.kind == kindList && c.kind == kindMixed {
			r.errorf(argsAt(p.name), "%s: argument %s must be a list; %q always gives a string (a value that is exactly one field keeps its type)", what, p.name, c.t.src)
		}
		out[i] = c
	}
	return named, out
}

// checkRefs rejects fields that cannot resolve anywhere: {item} outside a
// loop, {node...} in early rules (they have no node), and inventory entries
// the rule's phase does not have. An inventory entry plumb never fills is a
// warning (most likely a typo, which would otherwise only show at run time
// as text used as written).
func (r *ruleReader) checkRefs(v *value, loc manifest.Location, inLoop bool, what string) {
	for _, ref := range v.refs() {
		switch {
		case ref.root == rootItem && !inLoop:
			r.errorf(loc, "%s: %s: item is only defined inside a loop", what, ref.text)
		case ref.root == rootNode && r.phase == PhaseEarly:
			r.errorf(loc, "%s: %s: early rules run on source documents before rendering and have no node; use inventory[source] or move the rule to the preprocess phase", what, ref.text)
		case ref.root == rootInventory && len(ref.path) > 0:
			entry := ref.path[0].key
			phases, known := inventoryPhases[entry]
			switch {
			case !known:
				r.warnf(loc, "%s: %s: the inventory has no entry %q (entries: %s), so the field never resolves", what, ref.text, entry, strings.Join(inventoryKeys, ", "))
			case !slices.Contains(phases, r.phase):
				r.errorf(loc, "%s: %s: inventory[%s] is not available to %s rules (only to %s rules)", what, ref.text, entry, r.phase, phaseList(phases))
			}
		}
	}
}

// inventoryPhases are the phases whose subjects have each inventory entry:
// early rules inspect source documents (no render target, no rendered
// object), and the analyzers' findings exist only once they have run.
var inventoryPhases = map[string][]Phase{
	"source":   Phases,
	"env":      Phases,
	"target":   {PhasePreprocess, PhaseMain},
	"index":    {PhasePreprocess, PhaseMain},
	"rendered": {PhasePreprocess, PhaseMain},
	"findings": {PhaseMain},
}

func phaseList(ps []Phase) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, " and ")
}

// warnLiteralFields warns about an argument that is used as written but
// looks like it expects interpolation: outside a loop Ironic (and plumb)
// formats only some arguments (a path, a trait name or a regex are taken
// literally, so "{node.metadata.name}" in a path names a key of that text).
func (r *ruleReader) warnLiteralFields(v any, loc manifest.Location, what, name string) {
	s, ok := v.(string)
	if !ok {
		return
	}
	if tmpl, _, err := parseTemplate(s); err == nil && tmpl != nil {
		r.warnf(loc, "%s: argument %s is not interpolated outside a loop (as in Ironic), so %s is used as written; add a loop, or pass the value through an argument that is interpolated", what, name, tmpl.refs()[0].text)
	}
}

// checkKind checks a literal argument and converts it to what the operation
// uses at run time (regular expressions are compiled here, once).
func checkKind(op string, p param, v any) (any, error) {
	switch p.kind {
	case kindList:
		if _, ok := v.([]any); !ok {
			return p.def, fmt.Errorf("must be a list, found %s %s", typeName(v), quoteValue(v))
		}
	case kindBool:
		if _, ok := v.(bool); !ok {
			return p.def, fmt.Errorf("must be true or false, found %s", quoteValue(v))
		}
	case kindString:
		s, ok := v.(string)
		if !ok {
			return p.def, fmt.Errorf("must be a string, found %s %s", typeName(v), quoteValue(v))
		}
		if s == "" && p.required {
			return v, fmt.Errorf("must not be empty")
		}
		if p.name == "path" && strings.HasSuffix(op, "-attribute") {
			if _, err := attributePath(s); err != nil {
				return v, err
			}
		}
		if p.name == "path" && strings.HasSuffix(op, "-plugin-data") {
			if _, err := pluginPath(s); err != nil {
				return v, err
			}
		}
		if op == "in-net" && p.name == "subnet" {
			if _, err := netip.ParsePrefix(strings.TrimSpace(s)); err != nil {
				return v, fmt.Errorf("invalid subnet %q: not a CIDR network such as 192.0.2.0/24", s)
			}
		}
		if op == "in-net" && p.name == "address" {
			if _, err := netip.ParseAddr(strings.TrimSpace(s)); err != nil {
				return v, fmt.Errorf("invalid address %q: not an IP address", s)
			}
		}
	case kindPath:
		s, ok := v.(string)
		if !ok {
			return p.def, fmt.Errorf("must be a string, found %s", typeName(v))
		}
		if _, err := fieldPath(s); err != nil {
			return v, err
		}
	case kindLevel:
		s, ok := v.(string)
		if !ok || !slices.Contains(logLevels, strings.ToLower(s)) {
			return p.def, fmt.Errorf("invalid log level %s: use %s", quoteValue(v), strings.Join(logLevels, ", "))
		}
	case kindRegex:
		s, ok := v.(string)
		if !ok {
			return p.def, fmt.Errorf("must be a string (a regular expression), found %s", typeName(v))
		}
		re, err := compileRegex(s, op == "matches")
		if err != nil {
			return v, err
		}
		return re, nil
	}
	return v, nil
}

// compiledRegex is a regular expression compiled for matches (anchored at
// both ends, D17) or contains (unanchored).
type compiledRegex struct {
	src string
	re  *regexp.Regexp
}

func compileRegex(src string, full bool) (*compiledRegex, error) {
	// The expression as written is compiled first, so that an error
	// quotes the user's text rather than the anchored form.
	re, err := regexp.Compile(src)
	if err != nil {
		// Go's RE2 syntax lacks Python's look-around and back-references.
		return nil, fmt.Errorf("invalid regular expression %q (RE2 syntax): %v%s", src, strings.TrimPrefix(err.Error(), "error parsing regexp: "), re2.Hint(src))
	}
	if full {
		re = regexp.MustCompile(`^(?:` + src + `)$`)
	}
	return &compiledRegex{src: src, re: re}, nil
}

func paramList(params []param) string {
	var parts []string
	for _, p := range params {
		if p.required {
			parts = append(parts, p.name)
		} else {
			parts = append(parts, fmt.Sprintf("%s (optional, default %s)", p.name, quoteValue(p.def)))
		}
	}
	return strings.Join(parts, ", ")
}

func sortedSpecNames[T any](m map[string]T) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
