package helm

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"text/template/parse"
	"unsafe"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Which values key did an action print? The trace has the action's
// pipeline (static) and, from the render, its dot, $ and the variables it
// read. Mappings and lists of the values are known by identity (the
// values tree is indexed by pointer before the render); a scalar is known
// by the path of the mapping or list it was read from, or by the range or
// with block that made it the dot or bound it to a variable.

// ref is a values key an action read: its path in the top chart's values
// and its value.
type ref struct {
	path manifest.Path
	val  any
}

// identityIndex maps the mappings and lists of the values to their paths.
type identityIndex map[identityKey]manifest.Path

type identityKey struct {
	p unsafe.Pointer
	n int // list length; -1 for mappings
}

func indexValues(v any) identityIndex {
	ix := identityIndex{}
	var walk func(v any, p manifest.Path)
	walk = func(v any, p manifest.Path) {
		k, ok := identityOf(v)
		if !ok {
			return
		}
		if _, seen := ix[k]; seen {
			return
		}
		ix[k] = p
		switch t := v.(type) {
		case map[string]any:
			for key, c := range t {
				walk(c, p.Child(manifest.Key(key)))
			}
		case []any:
			for i, c := range t {
				walk(c, p.Child(manifest.Index(i)))
			}
		default:
			if m, ok := asMap(v); ok {
				for key, c := range m {
					walk(c, p.Child(manifest.Key(key)))
				}
			}
		}
	}
	walk(v, nil)
	return ix
}

// identityOf returns the identity of a mapping or non-empty list.
func identityOf(v any) (identityKey, bool) {
	switch t := v.(type) {
	case nil:
		return identityKey{}, false
	case []any:
		if len(t) == 0 {
			return identityKey{}, false
		}
		return identityKey{unsafe.Pointer(unsafe.SliceData(t)), len(t)}, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Map && !rv.IsNil() {
		return identityKey{rv.UnsafePointer(), -1}, true
	}
	return identityKey{}, false
}

func (ix identityIndex) path(v any) (manifest.Path, bool) {
	k, ok := identityOf(v)
	if !ok {
		return nil, false
	}
	p, ok := ix[k]
	return p, ok
}

// asMap views any map with string keys as map[string]any.
func asMap(v any) (map[string]any, bool) {
	switch t := v.(type) {
	case map[string]any:
		return t, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	if m, ok := rv.Convert(reflect.TypeOf(map[string]any{})).Interface().(map[string]any); ok {
		return m, true
	}
	return nil, false
}

// blockState is the running instance of a range or with block.
type blockState struct {
	path  manifest.Path // the with value's, or the ranged collection's
	known bool
	val   any
	keys  []string // sorted map keys of a ranged mapping
	iter  int
}

// element is the path and value of the current range element.
func (b *blockState) element() (manifest.Path, any, bool) {
	switch t := b.val.(type) {
	case []any:
		if b.iter < 0 || b.iter >= len(t) {
			return nil, nil, false
		}
		return b.path.Child(manifest.Index(b.iter)), t[b.iter], b.known
	default:
		m, ok := asMap(b.val)
		if !ok || b.iter < 0 || b.iter >= len(b.keys) {
			return nil, nil, false
		}
		k := b.keys[b.iter]
		return b.path.Child(manifest.Key(k)), m[k], b.known
	}
}

// scope is what the resolver knows while it walks one frame's events.
type scope struct {
	ix     identityIndex
	blocks map[int]*blockState
	// vars are the values paths of scalar variables, by name.
	vars map[string]ref
}

func newScope(ix identityIndex) *scope {
	return &scope{ix: ix, blocks: map[int]*blockState{}, vars: map[string]ref{}}
}

// dotRef resolves the dot of an event.
func (s *scope) dotRef(e *event, info *nodeInfo) (ref, bool) {
	if p, ok := s.ix.path(e.dot); ok {
		return ref{p, e.dot}, true
	}
	// Only the innermost range or with block sets the dot; the blocks
	// around it do not matter once it is known.
	if len(info.blocks) == 0 {
		return ref{}, false
	}
	b := s.blocks[info.blocks[len(info.blocks)-1]]
	if b == nil {
		return ref{}, false
	}
	if b.keys != nil || isList(b.val) {
		p, v, ok := b.element()
		return ref{p, v}, ok
	}
	return ref{b.path, b.val}, b.known
}

func isList(v any) bool { _, ok := v.([]any); return ok }

// varRef resolves a variable read by an event.
func (s *scope) varRef(e *event, info *nodeInfo, name string) (ref, bool) {
	if name == "$" {
		if p, ok := s.ix.path(e.root); ok {
			return ref{p, e.root}, true
		}
		return ref{val: e.root}, false
	}
	var val any
	for i, v := range info.vars {
		if v == name && i < len(e.vars) {
			val = e.vars[i]
		}
	}
	if p, ok := s.ix.path(val); ok {
		return ref{p, val}, true
	}
	if r, ok := s.vars[name]; ok && equalValue(r.val, val) {
		return r, true
	}
	return ref{val: val}, false
}

// chain follows field names from a starting value.
func (s *scope) chain(start ref, known bool, fields []string) (ref, bool) {
	cur := start
	for _, f := range fields {
		m, ok := asMap(cur.val)
		if !ok {
			return ref{}, false
		}
		next := m[f]
		if p, ok := s.ix.path(next); ok {
			cur, known = ref{p, next}, true
			continue
		}
		cur = ref{cur.path.Child(manifest.Key(f)), next}
	}
	return cur, known
}

// resolvePipe returns the values keys a pipeline's result came from.
func (s *scope) resolvePipe(p *parse.PipeNode, e *event, info *nodeInfo) []ref {
	if p == nil {
		return nil
	}
	var prev []ref
	for _, cmd := range p.Cmds {
		prev = s.resolveCmd(cmd, prev, e, info)
	}
	return prev
}

// resolveCmd resolves one command; prev is what the previous command of the
// pipeline returned (its final argument).
func (s *scope) resolveCmd(cmd *parse.CommandNode, prev []ref, e *event, info *nodeInfo) []ref {
	if len(cmd.Args) == 0 {
		return prev
	}
	fn, isFn := cmd.Args[0].(*parse.IdentifierNode)
	if !isFn {
		if len(cmd.Args) == 1 {
			r, ok := s.resolveArg(cmd.Args[0], e, info)
			if ok {
				return []ref{r}
			}
		}
		return nil
	}
	args := make([][]ref, 0, len(cmd.Args))
	for _, a := range cmd.Args[1:] {
		if r, ok := s.resolveArg(a, e, info); ok {
			args = append(args, []ref{r})
		} else if pn, ok := a.(*parse.PipeNode); ok {
			args = append(args, s.resolvePipe(pn, e, info))
		} else {
			args = append(args, nil)
		}
	}
	if prev != nil {
		args = append(args, prev)
	}
	switch fn.Ident {
	case "include", "template", "dict", "list", "now", "uuidv4", "randAlphaNum", "lookup", "len", "empty", "hasKey",
		"eq", "ne", "lt", "le", "gt", "ge", "and", "or", "not", "semverCompare", "contains", "hasPrefix", "hasSuffix":
		return nil
	case "default":
		// default D X: X unless X is empty.
		if len(args) >= 2 {
			x := args[len(args)-1]
			if len(x) == 1 && !isEmpty(x[0].val) {
				return x
			}
			return args[0]
		}
	case "coalesce":
		for _, a := range args {
			if len(a) == 1 && !isEmpty(a[0].val) {
				return a
			}
		}
		return nil
	case "index", "get":
		if len(cmd.Args) >= 3 && len(args) >= 1 && len(args[0]) == 1 {
			cur := args[0][0]
			for _, k := range cmd.Args[2:] {
				key, ok := literal(k)
				if !ok {
					return nil
				}
				next, ok := s.step(cur, key)
				if !ok {
					return nil
				}
				cur = next
			}
			return []ref{cur}
		}
		return nil
	case "tpl", "required":
		if len(args) > 0 {
			if fn.Ident == "tpl" {
				return args[0]
			}
			return args[len(args)-1]
		}
		return nil
	}
	var out []ref
	for _, a := range args {
		out = append(out, a...)
	}
	return out
}

// step follows one key (or list index) of an index call.
func (s *scope) step(cur ref, key string) (ref, bool) {
	switch t := cur.val.(type) {
	case []any:
		i := 0
		for _, c := range key {
			if c < '0' || c > '9' {
				return ref{}, false
			}
			i = i*10 + int(c-'0')
		}
		if i >= len(t) {
			return ref{}, false
		}
		return ref{cur.path.Child(manifest.Index(i)), t[i]}, true
	}
	m, ok := asMap(cur.val)
	if !ok {
		return ref{}, false
	}
	next := m[key]
	if p, ok := s.ix.path(next); ok {
		return ref{p, next}, true
	}
	return ref{cur.path.Child(manifest.Key(key)), next}, true
}

func literal(n parse.Node) (string, bool) {
	switch t := n.(type) {
	case *parse.StringNode:
		return t.Text, true
	case *parse.NumberNode:
		return t.Text, true
	}
	return "", false
}

// resolveArg resolves one argument that reads data.
func (s *scope) resolveArg(n parse.Node, e *event, info *nodeInfo) (ref, bool) {
	switch t := n.(type) {
	case *parse.DotNode:
		return s.dotRef(e, info)
	case *parse.FieldNode:
		d, ok := s.dotRef(e, info)
		if !ok {
			d = ref{val: e.dot}
		}
		return s.chain(d, ok, t.Ident)
	case *parse.VariableNode:
		v, ok := s.varRef(e, info, t.Ident[0])
		r, known := s.chain(v, ok, t.Ident[1:])
		return r, known
	case *parse.ChainNode:
		if pn, ok := t.Node.(*parse.PipeNode); ok {
			refs := s.resolvePipe(pn, e, info)
			if len(refs) == 1 {
				return s.chain(refs[0], true, t.Field)
			}
		}
	case *parse.PipeNode:
		refs := s.resolvePipe(t, e, info)
		if len(refs) == 1 {
			return refs[0], true
		}
	}
	return ref{}, false
}

// enter updates the block state at a range or with node.
func (s *scope) enter(e *event, info *nodeInfo, id int) {
	refs := s.resolvePipe(info.pipe, e, info)
	b := &blockState{iter: -1}
	if len(refs) == 1 {
		b.path, b.val, b.known = refs[0].path, refs[0].val, true
	}
	if info.kind == kindRange {
		if m, ok := asMap(b.val); ok {
			b.keys = make([]string, 0, len(m))
			for k := range m {
				b.keys = append(b.keys, k)
			}
			sort.Strings(b.keys)
		}
	}
	s.blocks[id] = b
}

// iterate moves a range to its next element and binds its variables.
func (s *scope) iterate(info *nodeInfo, rng *nodeInfo) {
	b := s.blocks[info.rng]
	if b == nil {
		return
	}
	b.iter++
	p, v, ok := b.element()
	if !ok || rng == nil || rng.pipe == nil {
		return
	}
	decl := rng.pipe.Decl
	switch len(decl) {
	case 1:
		s.vars[decl[0].Ident[0]] = ref{p, v}
	case 2:
		s.vars[decl[0].Ident[0]] = ref{p, lastKey(p)}
		s.vars[decl[1].Ident[0]] = ref{p, v}
	}
}

func lastKey(p manifest.Path) any {
	if len(p) == 0 {
		return nil
	}
	if s := p[len(p)-1]; s.IsIndex {
		return s.Index
	} else {
		return s.Key
	}
}

// assign binds the variables an action declares to what its pipeline read.
func (s *scope) assign(info *nodeInfo, refs []ref) {
	if info.pipe == nil || len(info.pipe.Decl) == 0 {
		return
	}
	name := info.pipe.Decl[0].Ident[0]
	if len(refs) == 1 {
		s.vars[name] = refs[0]
	} else {
		delete(s.vars, name)
	}
}

// isEmpty is sprig's empty.
func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Bool:
		return !rv.Bool()
	case reflect.Complex64, reflect.Complex128:
		return rv.Complex() == 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return rv.Float() == 0
	case reflect.Struct:
		return false
	default:
		return rv.IsNil()
	}
}

// equalValue compares scalars (a variable's recorded value with the value
// its binding read).
func equalValue(a, b any) bool {
	defer func() { _ = recover() }()
	if _, ok := identityOf(a); ok {
		return false
	}
	return a == b
}

// scalarText prints a scalar as a template prints it.
func scalarText(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	}
	return strings.TrimSpace(fmt.Sprint(v))
}
