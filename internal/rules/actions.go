package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// actionCall is one execution of an action with resolved arguments (in the
// action's parameter order, checked against their kinds).
type actionCall struct {
	x     *evalCtx
	a     *Action
	index int
	// iter is the loop iteration (-1 without a loop).
	iter int
	args []any
}

// key tells apart the findings of one rule on one object (part of their
// fingerprint): the action and the loop iteration, never the message,
// which may quote values that change.
func (c *actionCall) key(kind string) string {
	if c.iter < 0 {
		return fmt.Sprintf("%s/%d", kind, c.index)
	}
	return fmt.Sprintf("%s/%d/%d", kind, c.index, c.iter)
}

func (c *actionCall) str(i int) string { s, _ := c.args[i].(string); return s }

// attrPath and dataPath split the path argument (once, at load, when it
// is literal).
func (c *actionCall) attrPath() ([]string, error) {
	if c.a.pathSegs != nil {
		return c.a.pathSegs, nil
	}
	return attributePath(c.str(0))
}

func (c *actionCall) dataPath() ([]string, error) {
	if c.a.pathSegs != nil {
		return c.a.pathSegs, nil
	}
	return pluginPath(c.str(0))
}
func (c *actionCall) flag(i int) bool { b, _ := c.args[i].(bool); return b }

// runFail reports an error finding and stops the subject's remaining rules
// (Ironic fails the inspection). msg is interpolated (D6).
func runFail(c *actionCall) error {
	p, err := fieldPath(c.str(1))
	if err != nil {
		return err
	}
	s, r := c.x.s, c.x.rule
	f := s.newFinding(r, finding.Error, c.str(0), p, c.key("fail"))
	s.report(f)
	s.stop(r, "rule "+r.UUID+" failed it")
	return errStop
}

// logLevel maps Ironic's log levels onto finding levels.
func logLevel(s string) finding.Level {
	switch strings.ToLower(s) {
	case "warning":
		return finding.Warning
	case "error", "critical":
		return finding.Error
	}
	return finding.Note
}

// runLog reports a finding at the given level; it never stops anything.
func runLog(c *actionCall) error {
	p, err := fieldPath(c.str(2))
	if err != nil {
		return err
	}
	s, r := c.x.s, c.x.rule
	msg := c.str(0)
	f := s.newFinding(r, logLevel(c.str(1)), msg, p, c.key("log"))
	s.report(f)
	return nil
}

// attributeEdit applies an edit to the subject's own copy of the object.
func (c *actionCall) attributeEdit(e *edit, verb string) error {
	s := c.x.s
	if s.content == nil {
		return fmt.Errorf("there is no object to %s", verb)
	}
	// The object's content may be shared with other objects: the edit
	// copies what it writes to (copyOnWrite), and what it changed stays
	// even when it fails half way, as it would have in a private copy.
	e.cow = &s.scratch.cow
	root, err := e.apply(s.content, 0)
	s.content, _ = root.(map[string]any)
	s.owned = true
	if err != nil {
		// What the edit wrote before it failed is in the content.
		s.contentChanged()
		return fmt.Errorf("cannot %s %s: %v", verb, pointer(e.segs), err)
	}
	s.refreshIdentity()
	return nil
}

// patch records a change, and makes findings on the changed field point
// at the action that made it.
func (c *actionCall) patch(op string, p manifest.Path, v any) {
	s, r := c.x.s, c.x.rule
	segs := make([]string, len(p))
	for i, seg := range p {
		if seg.IsIndex {
			segs[i] = itoa(seg.Index)
		} else {
			segs[i] = seg.Key
		}
	}
	s.patch = append(s.patch, PatchOp{Op: op, Path: pointer(segs), Value: deepCopy(v), Rule: r.UUID, hidden: r.Sensitive})
	if !r.BuiltIn && op != "remove" {
		e := s.edited()
		e.setPaths = append(e.setPaths, setPath{path: p, loc: c.a.Location})
	}
}

// patchSubtree records an edit that created mappings as one add of the
// new subtree (RFC 6902 add needs the parent to exist), and remembers the
// edited field for locating findings.
func (c *actionCall) patchSubtree(e *edit) {
	at := e.patchTarget()
	v, _ := manifest.Lookup(c.x.s.content, at)
	c.patch("add", at, v)
	if !c.x.rule.BuiltIn {
		ed := c.x.s.edited()
		ed.setPaths = append(ed.setPaths, setPath{path: e.touched, loc: c.a.Location})
	}
}

func runSetAttribute(c *actionCall) error {
	segs, err := c.attrPath()
	if err != nil {
		return err
	}
	v := deepCopy(c.args[1])
	e := &edit{segs: segs, create: true, appendOK: true, created: -1, fn: func(any, bool) (any, bool, error) { return v, false, nil }}
	if err := c.attributeEdit(e, "set"); err != nil {
		return err
	}
	if e.created > 0 {
		c.patchSubtree(e)
		return nil
	}
	op := "add"
	if e.existed {
		op = "replace"
	}
	c.patch(op, e.touched, v)
	return nil
}

// runExtendAttribute appends to a list, creating it when missing; with
// unique, a value already present is not appended again.
func runExtendAttribute(c *actionCall) error {
	segs, err := c.attrPath()
	if err != nil {
		return err
	}
	v := deepCopy(c.args[1])
	unique := c.flag(2)
	var created, changed bool
	var at int
	e := &edit{segs: segs, create: true, created: -1, fn: func(old any, exists bool) (any, bool, error) {
		if !exists || old == nil {
			created, changed = true, true
			return []any{v}, false, nil
		}
		list, ok := old.([]any)
		if !ok {
			return nil, false, fmt.Errorf("it is a %s, not a list", typeName(old))
		}
		if unique && containsEqual(list, v) {
			return old, false, nil
		}
		changed, at = true, len(list)
		return append(list, v), false, nil
	}}
	if err := c.attributeEdit(e, "extend"); err != nil {
		return err
	}
	switch {
	case e.created > 0:
		c.patchSubtree(e)
	case created:
		c.patch("add", e.touched, []any{v})
	case changed:
		c.patch("add", e.touched.Child(manifest.Index(at)), v)
	}
	return nil
}

// runDelAttribute removes a field; a missing field is not an error (D9).
func runDelAttribute(c *actionCall) error {
	segs, err := c.attrPath()
	if err != nil {
		return err
	}
	s := c.x.s
	if s.content == nil {
		return fmt.Errorf("there is no object to delete from")
	}
	if _, found := lookupSegs(s.content, segs); !found {
		return nil // nothing to delete: no copy, no patch
	}
	e := &edit{segs: segs, created: -1, fn: func(any, bool) (any, bool, error) { return nil, true, nil }}
	if err := c.attributeEdit(e, "delete"); err != nil {
		return err
	}
	if e.existed {
		c.patch("remove", e.touched, nil)
	}
	return nil
}

// lookupSegs finds an attribute path without changing anything.
func lookupSegs(v any, segs []string) (any, bool) {
	for _, seg := range segs {
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) || itoa(i) != seg {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func containsEqual(list []any, v any) bool {
	for _, e := range list {
		if equal(e, v) {
			return true
		}
	}
	return false
}

// pluginPath splits a plugin-data path on '.' only, as Ironic does (a '/'
// is part of a key).
func pluginPath(p string) ([]string, error) {
	if p == "" {
		return nil, fmt.Errorf("path is empty")
	}
	segs := strings.Split(p, ".")
	for _, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("path %q has an empty segment", p)
		}
	}
	return segs, nil
}

// pluginParent walks to the mapping that holds the last segment, creating
// mappings on the way when create is set.
func (c *actionCall) pluginParent(segs []string, create bool) (map[string]any, error) {
	s := c.x.s
	if s.pluginShared {
		// The caller writes: the subject gets its own copy first.
		s.pluginData, _ = deepCopy(s.pluginData).(map[string]any)
		s.pluginShared = false
	}
	cur := s.pluginData
	for i, seg := range segs[:len(segs)-1] {
		next, ok := cur[seg]
		if !ok || next == nil {
			if !create {
				return nil, nil
			}
			m := map[string]any{}
			cur[seg] = m
			cur = m
			continue
		}
		m, ok := next.(map[string]any)
		if !ok {
			if !create {
				return nil, nil
			}
			return nil, fmt.Errorf("plugin_data.%s is a %s, not a mapping", strings.Join(segs[:i+1], "."), typeName(next))
		}
		cur = m
	}
	return cur, nil
}

func runSetPluginData(c *actionCall) error {
	segs, err := c.dataPath()
	if err != nil {
		return err
	}
	parent, err := c.pluginParent(segs, true)
	if err != nil {
		return fmt.Errorf("cannot set plugin_data.%s: %v", c.str(0), err)
	}
	parent[segs[len(segs)-1]] = deepCopy(c.args[1])
	c.hideIfSensitive(segs)
	return nil
}

// hideIfSensitive remembers plugin data a sensitive rule wrote, so the
// report does not show it.
func (c *actionCall) hideIfSensitive(segs []string) {
	if c.x.rule.Sensitive {
		e := c.x.s.edited()
		e.hiddenData = append(e.hiddenData, strings.Join(segs, "."))
	}
}

// runExtendPluginData appends to a list in plugin data; a missing or empty
// value starts a new list (Ironic).
func runExtendPluginData(c *actionCall) error {
	segs, err := c.dataPath()
	if err != nil {
		return err
	}
	parent, err := c.pluginParent(segs, true)
	if err != nil {
		return fmt.Errorf("cannot extend plugin_data.%s: %v", c.str(0), err)
	}
	key := segs[len(segs)-1]
	var list []any
	switch old := parent[key].(type) {
	case []any:
		list = old
	default:
		if !falsy(old) {
			return fmt.Errorf("cannot extend plugin_data.%s: it is a %s, not a list", c.str(0), typeName(old))
		}
	}
	v := deepCopy(c.args[1])
	if !c.flag(2) || !containsEqual(list, v) {
		list = append(list, v)
	}
	parent[key] = list
	c.hideIfSensitive(segs)
	return nil
}

// falsy is Python's notion, which Ironic's extend-plugin-data relies on.
func falsy(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	case bool:
		return !t
	case int64:
		return t == 0
	case float64:
		return t == 0
	}
	return false
}

// runUnsetPluginData deletes a key, and its parent mapping when that
// becomes empty (one level, D8). A missing path is not an error.
func runUnsetPluginData(c *actionCall) error {
	segs, err := c.dataPath()
	if err != nil {
		return err
	}
	parent, _ := c.pluginParent(segs, false)
	key := segs[len(segs)-1]
	if parent == nil {
		c.x.note("note: plugin_data." + c.str(0) + " not found")
		return nil
	}
	if _, ok := parent[key]; !ok {
		c.x.note("note: plugin_data." + c.str(0) + " not found")
		return nil
	}
	delete(parent, key)
	if len(parent) == 0 && len(segs) > 1 {
		grand, _ := c.pluginParent(segs[:len(segs)-1], false)
		if grand != nil {
			delete(grand, segs[len(segs)-2])
		}
	}
	return nil
}

func runAddTrait(c *actionCall) error {
	name := c.str(0)
	if name == "" {
		return fmt.Errorf("trait name is empty")
	}
	c.x.s.addTrait(name)
	return nil
}

// runRemoveTrait removes a trait; a missing one is tolerated (Ironic logs
// a warning).
func runRemoveTrait(c *actionCall) error {
	if !c.x.s.removeTrait(c.str(0)) {
		c.x.note("note: trait " + c.str(0) + " was not set")
	}
	return nil
}
