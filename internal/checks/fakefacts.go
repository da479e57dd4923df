package checks

import (
	"context"
	"crypto/sha1"
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types/ref"
	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// FakeFacts is an offline execution in Wanda's fake-facts layout
// (priv/demo/fake_facts.yaml), extended with what Wanda's evaluation tests
// need:
//
//	execution_id: ...            # optional; default derived from the file
//	group_id: ...                # optional
//	target_type: cluster         # optional; becomes env.target_type
//	env: {provider: azure}       # optional; --env wins
//	customizations: {CHECK: {value_name: custom}}
//	checks: [CHECK, ...]         # optional; default: the checks under facts
//	targets:
//	  a1: agent-id-1             # Wanda's form: reference → target id
//	  a2: {id: agent-id-2, attributes: {...}, checks: [CHECK]}
//	  a3: {id: apps/web/overlays/prod, env: {application: apps/web}}
//	timeout: [a3]                # targets that did not answer
//	facts:
//	  CHECK:
//	    fact_name:
//	      a1: value
//	      a2: !error {type: some-fact-error, message: why}
//
// A target takes part in a check when the file gives it a fact for the
// check, or when its own checks list names the check (it then answered
// without the facts it lacks); a timed-out target takes part in each of its
// checks.
//
// A target's own env (a plumb extension: Wanda has one env per execution,
// plumb's render targets each have theirs) is merged over the file's env,
// and --env wins over both. It decides which checks apply to that target
// and its values, and env.application is the application whose
// environments a check over render targets compares with each other
// (application.go).
type FakeFacts struct {
	File        string
	ExecutionID string
	GroupID     string
	Env         map[string]any
	Custom      Customizations
	Checks      []string
	Targets     []*FakeTarget
	// Facts by check, then target reference, in fact order.
	Facts map[string]map[string][]GatheredFact

	// checkPos, factPos and customPos say where the file names a check
	// (under facts), a fact of a check, and a customization (by check, then
	// value; "" for the check's own entry), so problems found when
	// evaluating name their line.
	checkPos  map[string]Pos
	factPos   map[string]map[string]Pos
	customPos map[string]map[string]Pos
}

// diag returns a diagnostic at pos in the file (no line when pos is zero:
// the file does not name what the problem is about).
func (ff *FakeFacts) diag(level, check string, pos Pos, format string, args ...any) Diagnostic {
	return Diagnostic{File: ff.File, Line: pos.Line, Column: pos.Column, Level: level, Check: check, Message: fmt.Sprintf(format, args...)}
}

// FakeTarget is one target of a fake-facts file.
type FakeTarget struct {
	Ref, ID    string
	Attributes map[string]any
	// Env is the target's own env (nil: the file's).
	Env     map[string]any
	Checks  []string
	Timeout bool
	// envPos is where the file gives the target's env.
	envPos Pos
}

// ParseFakeFacts reads a fake-facts file. Problems name the file and line.
func ParseFakeFacts(name string, data []byte) (*FakeFacts, []Diagnostic) {
	ff := &FakeFacts{File: name, Facts: map[string]map[string][]GatheredFact{}, checkPos: map[string]Pos{},
		factPos: map[string]map[string]Pos{}, customPos: map[string]map[string]Pos{}}
	var diags []Diagnostic
	errorf := func(n *yaml.Node, format string, args ...any) {
		d := Diagnostic{File: name, Level: LevelError, Message: fmt.Sprintf(format, args...)}
		if n != nil {
			d.Line, d.Column = n.Line, n.Column
		}
		diags = append(diags, d)
	}
	docs, problems := manifest.Parse(name, data, manifest.Limits{})
	for _, p := range problems {
		diags = append(diags, Diagnostic{File: name, Line: p.Location.Line, Column: p.Location.Column, Level: LevelError, Message: p.Message})
	}
	if len(problems) > 0 {
		return nil, diags
	}
	if len(docs) != 1 || docs[0].Node.Kind != yaml.MappingNode {
		errorf(nil, "a facts file holds one mapping with targets and facts")
		return nil, diags
	}
	doc := docs[0]
	off := doc.LineOffset
	at := func(n *yaml.Node) *yaml.Node { c := *n; c.Line += off; return &c }
	val := func(p ...manifest.Segment) any {
		v, _ := manifest.Lookup(doc.Value, manifest.Path(p))
		return normalizeValue(v)
	}
	root := doc.Node
	refs := map[string]*FakeTarget{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "execution_id", "group_id", "target_type":
			if v.Kind != yaml.ScalarNode {
				errorf(at(v), "%s must be a string", k.Value)
				continue
			}
			switch k.Value {
			case "execution_id":
				ff.ExecutionID = v.Value
			case "group_id":
				ff.GroupID = v.Value
			default:
				if ff.Env == nil {
					ff.Env = map[string]any{}
				}
				ff.Env["target_type"] = v.Value
			}
		case "env":
			m, ok := val(manifest.Key("env")).(map[string]any)
			if !ok && v.ShortTag() != "!!null" {
				errorf(at(v), "env must be a mapping")
				continue
			}
			if ff.Env == nil {
				ff.Env = map[string]any{}
			}
			for ek, ev := range m {
				if _, set := ff.Env[ek]; !set || ek != "target_type" {
					ff.Env[ek] = ev
				}
			}
		case "customizations":
			m, ok := val(manifest.Key("customizations")).(map[string]any)
			if !ok {
				errorf(at(v), "customizations must map check ids to {value: custom value}")
				continue
			}
			ff.Custom = Customizations{}
			for j := 0; j+1 < len(v.Content); j += 2 {
				ck, cv := v.Content[j], v.Content[j+1]
				ff.customPos[ck.Value] = map[string]Pos{"": {Line: ck.Line + off, Column: ck.Column}}
				if cv.Kind == yaml.MappingNode {
					for q := 0; q+1 < len(cv.Content); q += 2 {
						vk := cv.Content[q]
						ff.customPos[ck.Value][vk.Value] = Pos{Line: vk.Line + off, Column: vk.Column}
					}
				}
			}
			for id, cv := range m {
				vm, ok := cv.(map[string]any)
				if !ok {
					errorf(at(valueNode(v, id)), "customizations of %s must map value names to custom values", id)
					continue
				}
				ff.Custom[id] = vm
			}
		case "checks":
			ff.Checks = ff.checkList(v, off, func(n *yaml.Node, msg string) { errorf(at(n), "checks: %s", msg) })
		case "targets":
			if v.Kind != yaml.MappingNode {
				errorf(at(v), "targets must map a reference to a target id (or to {id, attributes, env, checks})")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				rk, rv := v.Content[j], v.Content[j+1]
				t := &FakeTarget{Ref: rk.Value}
				switch rv.Kind {
				case yaml.ScalarNode:
					t.ID = rv.Value
				case yaml.MappingNode:
					for m := 0; m+1 < len(rv.Content); m += 2 {
						tk, tv := rv.Content[m], rv.Content[m+1]
						switch tk.Value {
						case "id":
							t.ID = tv.Value
						case "attributes":
							t.Attributes, _ = val(manifest.Key("targets"), manifest.Key(rk.Value), manifest.Key("attributes")).(map[string]any)
							if t.Attributes == nil && tv.ShortTag() != "!!null" {
								errorf(at(tv), "attributes of target %s must be a mapping", rk.Value)
							}
						case "env":
							t.Env, _ = val(manifest.Key("targets"), manifest.Key(rk.Value), manifest.Key("env")).(map[string]any)
							if t.Env == nil && tv.ShortTag() != "!!null" {
								errorf(at(tv), "env of target %s must be a mapping", rk.Value)
							}
							t.envPos = Pos{Line: tk.Line + off, Column: tk.Column}
						case "checks":
							t.Checks = ff.checkList(tv, off, func(n *yaml.Node, msg string) { errorf(at(n), "checks of target %s: %s", rk.Value, msg) })
						default:
							errorf(at(tk), "unknown key %q in target %s (known keys: id, attributes, env, checks)", tk.Value, rk.Value)
						}
					}
				default:
					errorf(at(rv), "target %s must be an id or {id, attributes, env, checks}", rk.Value)
				}
				if t.ID == "" {
					t.ID = t.Ref
				}
				if refs[t.Ref] != nil {
					errorf(at(rk), "target %s is listed twice", t.Ref)
					continue
				}
				refs[t.Ref] = t
				ff.Targets = append(ff.Targets, t)
			}
		case "timeout":
			for _, r := range stringListNodes(v, func(n *yaml.Node, msg string) { errorf(at(n), "timeout: %s", msg) }) {
				t := refs[r.Value]
				if t == nil {
					for _, c := range ff.Targets {
						if c.ID == r.Value {
							t = c
						}
					}
				}
				if t == nil {
					errorf(at(r), "timeout: no target %q (list targets before timeout)", r.Value)
					continue
				}
				t.Timeout = true
			}
		case "facts":
			if v.Kind != yaml.MappingNode {
				errorf(at(v), "facts must map check ids to facts by name and target")
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				ck, cv := v.Content[j], v.Content[j+1]
				ff.checkPos[ck.Value] = Pos{Line: ck.Line + off, Column: ck.Column}
				byTarget := map[string][]GatheredFact{}
				ff.Facts[ck.Value] = byTarget
				if cv.Kind != yaml.MappingNode {
					errorf(at(cv), "facts of check %s must map fact names to values by target", ck.Value)
					continue
				}
				ff.factPos[ck.Value] = map[string]Pos{}
				for m := 0; m+1 < len(cv.Content); m += 2 {
					fk, fv := cv.Content[m], cv.Content[m+1]
					ff.factPos[ck.Value][fk.Value] = Pos{Line: fk.Line + off, Column: fk.Column}
					if fv.Kind != yaml.MappingNode {
						errorf(at(fv), "fact %s of check %s must map target references to values", fk.Value, ck.Value)
						continue
					}
					for q := 0; q+1 < len(fv.Content); q += 2 {
						tk, tv := fv.Content[q], fv.Content[q+1]
						if refs[tk.Value] == nil {
							errorf(at(tk), "fact %s of check %s: no target %q (list targets before facts)", fk.Value, ck.Value, tk.Value)
							continue
						}
						if tv.Tag == "!error" {
							typ, msg := "fact-error", "fact gathering failed"
							if tv.Kind == yaml.MappingNode {
								if n := valueNode(tv, "type"); n != nil {
									typ = n.Value
								}
								if n := valueNode(tv, "message"); n != nil {
									msg = n.Value
								}
							} else if tv.Kind == yaml.ScalarNode && tv.Value != "" {
								typ = tv.Value
							}
							byTarget[tk.Value] = append(byTarget[tk.Value], NewFactError(fk.Value, typ, msg))
							continue
						}
						v := val(manifest.Key("facts"), manifest.Key(ck.Value), manifest.Key(fk.Value), manifest.Key(tk.Value))
						byTarget[tk.Value] = append(byTarget[tk.Value], NewFact(fk.Value, v))
					}
				}
			}
		default:
			errorf(at(k), "unknown key %q (known keys: execution_id, group_id, target_type, env, customizations, checks, targets, timeout, facts)", k.Value)
		}
	}
	if len(ff.Targets) == 0 && len(diags) == 0 {
		errorf(at(root), "no targets: list them under targets (reference: target id)")
	}
	if ff.ExecutionID == "" {
		ff.ExecutionID = uuid5("plumb-checks-eval-execution:" + string(data))
	}
	if ff.GroupID == "" {
		ff.GroupID = uuid5("plumb-checks-eval-group:" + name)
	}
	return ff, diags
}

func stringListNodes(n *yaml.Node, bad func(*yaml.Node, string)) []*yaml.Node {
	if n.Kind != yaml.SequenceNode {
		bad(n, "must be a list")
		return nil
	}
	var out []*yaml.Node
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode {
			bad(e, "must be a list of strings")
			continue
		}
		out = append(out, e)
	}
	return out
}

// checkList reads a list of check ids and remembers where each id is first
// named, unless facts name it.
func (ff *FakeFacts) checkList(n *yaml.Node, off int, bad func(*yaml.Node, string)) []string {
	var out []string
	for _, e := range stringListNodes(n, bad) {
		if _, ok := ff.checkPos[e.Value]; !ok {
			ff.checkPos[e.Value] = Pos{Line: e.Line + off, Column: e.Column}
		}
		out = append(out, e.Value)
	}
	return out
}

// factNamesOf lists the names of a check's facts, for messages.
func factNamesOf(c *Check) []string {
	out := make([]string, 0, len(c.Facts))
	for _, f := range c.Facts {
		out = append(out, f.Name)
	}
	return out
}

// uuid5 derives a stable name-based UUID (version 5, SHA-1).
func uuid5(name string) string {
	h := sha1.Sum([]byte(name))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// evalEnv is one distinct env of an offline evaluation.
type evalEnv struct {
	key     int
	env     map[string]any
	val     ref.Val
	applies map[*Check]bool
}

// EvalOptions configures an offline evaluation.
type EvalOptions struct {
	// Env is merged over the file's env (its keys win).
	Env map[string]any
}

// Eval evaluates a fake-facts file against a catalog. Diagnostics report
// problems with the file (errors) and checks that do not apply in the env
// (warnings); the Result is returned whenever evaluation was possible.
func Eval(ctx context.Context, cat *Catalog, ff *FakeFacts, opts EvalOptions) (*Result, []Diagnostic, error) {
	var diags []Diagnostic
	env := map[string]any{}
	for k, v := range ff.Env {
		env[k] = v
	}
	for k, v := range NormalizeEnv(opts.Env) {
		env[k] = v
	}

	custom, problems := ValidateCustomizations(cat, ff.Custom)
	for _, p := range problems {
		pos, ok := ff.customPos[p.Check][p.Value]
		if !ok {
			pos = ff.customPos[p.Check][""]
		}
		diags = append(diags, ff.diag(LevelError, p.Check, pos, "customizations: %s", p.Message))
	}

	// Select the checks: each target's list, else the file's, else the
	// checks that have facts.
	defaultSel := ff.Checks
	if defaultSel == nil {
		for id := range ff.Facts {
			defaultSel = append(defaultSel, id)
		}
		slices.Sort(defaultSel)
	}
	// checkFor holds the checks that can be evaluated, by id (nil: the
	// problem is reported).
	checkFor := map[string]*Check{}
	evaluable := func(id string) *Check {
		if c, ok := checkFor[id]; ok {
			return c
		}
		c := cat.Get(id)
		pos := ff.checkPos[id]
		switch {
		case c == nil:
			diags = append(diags, ff.diag(LevelError, id, pos, "there is no check %q in the catalog", id))
		case !c.Evaluable():
			diags = append(diags, ff.diag(LevelError, id, pos, "check %s cannot be evaluated: %s has errors", id, c.File))
			c = nil
		}
		checkFor[id] = c
		return c
	}
	// Each distinct env (the file's, or one a target has of its own) is
	// one key: the checks that apply in it and their values are decided
	// once.
	envs := map[string]*evalEnv{}
	envOf := func(own map[string]any) *evalEnv {
		merged := env
		if own != nil {
			merged = map[string]any{}
			for k, v := range ff.Env {
				merged[k] = v
			}
			for k, v := range own {
				merged[k] = v
			}
			for k, v := range NormalizeEnv(opts.Env) {
				merged[k] = v
			}
		}
		k := canonical(merged)
		if e, ok := envs[k]; ok {
			return e
		}
		e := &evalEnv{key: len(envs), env: merged, val: celMap(merged), applies: map[*Check]bool{}}
		envs[k] = e
		return e
	}
	envOf(nil) // the file's env is key 0
	used := map[*Check]bool{}
	notApplied := map[string]bool{}
	applies := func(c *Check, e *evalEnv, ft *FakeTarget) bool {
		ok, seen := e.applies[c]
		if !seen {
			ok = c.Applicable(e.env, e.val)
			e.applies[c] = ok
		}
		switch {
		case ok:
			used[c] = true
		case ft.Env != nil:
			diags = append(diags, ff.diag(LevelWarning, c.ID, ft.envPos, "check %s does not apply in the env of target %s (its metadata or when filters it out), so it is not evaluated on it", c.ID, ft.Ref))
		case !notApplied[c.ID]:
			notApplied[c.ID] = true
			diags = append(diags, ff.diag(LevelWarning, c.ID, ff.checkPos[c.ID], "check %s does not apply in this env (its metadata or when filters it out), so it is not evaluated", c.ID))
		}
		return ok
	}
	x := &Execution{ID: ff.ExecutionID, GroupID: ff.GroupID, Custom: custom}
	explicit := map[string]map[string]bool{}
	for _, ft := range ff.Targets {
		e := envOf(ft.Env)
		t := &Target{ID: ft.ID, Env: e.env, EnvKey: e.key, Host: NormalizeEnv(ft.Attributes), Timeout: ft.Timeout, envVal: e.val}
		sel := ft.Checks
		if sel != nil {
			explicit[ft.Ref] = map[string]bool{}
			for _, id := range sel {
				explicit[ft.Ref][id] = true
			}
		} else {
			sel = defaultSel
		}
		for _, id := range sel {
			if c := evaluable(id); c != nil && applies(c, e, ft) {
				t.Checks = append(t.Checks, c)
			}
		}
		x.Targets = append(x.Targets, t)
	}
	// Facts for checks or facts the catalog does not declare are mistakes.
	for id, byTarget := range ff.Facts {
		c := cat.Get(id)
		if c == nil {
			evaluable(id)
			continue
		}
		for _, facts := range byTarget {
			for _, f := range facts {
				if !slices.ContainsFunc(c.Facts, func(d *Fact) bool { return d.Name == f.Name }) {
					diags = append(diags, ff.diag(LevelError, id, ff.factPos[id][f.Name], "check %s declares no fact %q (it declares %s)", id, f.Name, strings.Join(factNamesOf(c), ", ")))
				}
			}
		}
	}
	refOf := map[*Target]string{}
	for i, t := range x.Targets {
		refOf[t] = ff.Targets[i].Ref
	}
	x.Gather = func(t *Target, c *Check) ([]GatheredFact, bool) {
		ref := refOf[t]
		facts, ok := ff.Facts[c.ID][ref]
		if !ok {
			return nil, explicit[ref][c.ID]
		}
		// The agent sends facts in the check's order.
		ordered := make([]GatheredFact, 0, len(facts))
		for _, d := range c.Facts {
			for _, f := range facts {
				if f.Name == d.Name {
					ordered = append(ordered, f)
				}
			}
		}
		return ordered, true
	}
	var bound sizeBound
	for _, e := range envs {
		bound.observe(e.env)
	}
	bound.lists = max(bound.lists, uint64(len(x.Targets)))
	for _, t := range ff.Targets {
		bound.observe(t.Attributes)
	}
	for _, byTarget := range ff.Facts {
		for _, facts := range byTarget {
			bound.lists = max(bound.lists, uint64(len(facts)))
			for _, f := range facts {
				bound.observe(f.g.value)
			}
		}
	}
	var checks []*Check
	for c := range used {
		checks = append(checks, c)
	}
	bound.observeChecks(checks, custom)
	bound = bound.finish()
	x.Bound = &bound
	res, err := x.Run(ctx)
	sortDiagnostics(diags)
	diags = slices.CompactFunc(diags, func(a, b Diagnostic) bool { return a == b })
	return res, diags, err
}
