package rules

import (
	"crypto/sha1"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Source is the content of one rules file.
type Source struct {
	// Name is how messages name the file (repository-relative when it is
	// inside the repository).
	Name    string
	Data    []byte
	BuiltIn bool
}

// Problem is something wrong with a rules file, at file:line:col.
type Problem struct {
	Location manifest.Location
	Message  string
	// Warning problems do not stop the rule from loading (deprecated list
	// arguments, multiple without loop).
	Warning bool
	// BuiltIn marks problems of the embedded rules (a bug in plumb).
	BuiltIn bool
}

func (p Problem) Error() string {
	level := "error"
	if p.Warning {
		level = "warning"
	}
	return fmt.Sprintf("%s: %s: %s", manifest.FormatLocation(p.Location), level, p.Message)
}

// Set is the loaded rules, built-in rules first, in load order, and every
// problem found. Rules with errors are not in Rules.
type Set struct {
	Rules    []*Rule
	Problems []Problem
}

// Errors counts the problems that are errors.
func (s *Set) Errors() int {
	n := 0
	for _, p := range s.Problems {
		if !p.Warning {
			n++
		}
	}
	return n
}

// Rule finds a rule by uuid (with or without the "rule/" prefix).
func (s *Set) Rule(id string) *Rule {
	id = strings.TrimPrefix(id, "rule/")
	for _, r := range s.Rules {
		if r.UUID == id {
			return r
		}
	}
	return nil
}

// BuiltInSources reads the built-in rules files of fsys (reference.Rules),
// in name order.
func BuiltInSources(fsys fs.FS) ([]Source, error) {
	var out []Source
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		out = append(out, Source{Name: path.Join("reference", p), Data: data, BuiltIn: true})
		return nil
	})
	return out, err
}

// Load parses and validates rules files: built-in sources first, then user
// sources in the order given (that order, then the position in the file,
// breaks priority ties). Every problem is reported with its position;
// invalid rules are left out and the others are kept.
func Load(sources []Source, limits manifest.Limits) *Set {
	l := &loader{set: &Set{}, limits: limits, seen: map[string]*Rule{}, builtIn: map[string]bool{}}
	for _, src := range sources {
		if src.BuiltIn {
			l.source(src)
		}
	}
	for _, src := range sources {
		if !src.BuiltIn {
			l.source(src)
		}
	}
	// Problems in file order (files keep the order they were given in).
	fileOrder := map[string]int{}
	for i, src := range sources {
		if _, ok := fileOrder[src.Name]; !ok {
			fileOrder[src.Name] = i
		}
	}
	slices.SortStableFunc(l.set.Problems, func(a, b Problem) int {
		if a.Location.File != b.Location.File {
			return fileOrder[a.Location.File] - fileOrder[b.Location.File]
		}
		if c := a.Location.Compare(b.Location); c != 0 {
			return c
		}
		if a.Warning != b.Warning {
			if a.Warning {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Message, b.Message)
	})
	return l.set
}

type loader struct {
	set *Set
	// builtInSource is set while a built-in source loads.
	builtInSource bool
	limits        manifest.Limits
	order         int
	seen          map[string]*Rule
	builtIn       map[string]bool
	// builtInSynthetic numbers uuid-less built-in rules (Ironic's
	// 00000000-0000-0000-0000-%012x).
	builtInSynthetic int
}

func (l *loader) problem(loc manifest.Location, warning bool, format string, args ...any) {
	l.set.Problems = append(l.set.Problems, Problem{Location: loc, Message: fmt.Sprintf(format, args...), Warning: warning, BuiltIn: l.builtInSource})
}

func (l *loader) source(src Source) {
	l.builtInSource = src.BuiltIn
	limits := l.limits
	if src.BuiltIn {
		limits = manifest.DefaultLimits // the configured limits are for the repository's files
	}
	docs, problems := manifest.Parse(src.Name, src.Data, limits)
	for _, p := range problems {
		l.problem(p.Location, p.Level != "error", "%s", p.Message)
	}
	synthetic := 0
	for _, doc := range docs {
		if doc.Node == nil || doc.Value == nil {
			continue // an empty document
		}
		items, ok := doc.Value.([]any)
		seq := deref(doc.Node)
		if !ok || seq.Kind != yaml.SequenceNode {
			l.problem(doc.Start(), false, "a rules file holds a YAML list of rules, found %s", typeName(doc.Value))
			continue
		}
		for i, item := range items {
			r := &ruleReader{l: l, doc: doc, node: deref(seq.Content[i]), builtIn: src.BuiltIn}
			rule := r.read(item)
			if rule == nil {
				continue
			}
			if rule.UUID == "" {
				if src.BuiltIn {
					rule.UUID = fmt.Sprintf("00000000-0000-0000-0000-%012x", l.builtInSynthetic)
					l.builtInSynthetic++
				} else {
					rule.UUID = syntheticUUID(src.Name, synthetic)
					synthetic++
				}
				rule.SyntheticUUID = true
			}
			if !r.checkUUID(rule) || r.failed {
				continue
			}
			rule.order = l.order
			rule.help = ruleHelp(rule)
			l.order++
			l.seen[rule.UUID] = rule
			if rule.BuiltIn {
				l.builtIn[rule.UUID] = true
			}
			l.set.Rules = append(l.set.Rules, rule)
		}
	}
}

// syntheticUUID derives a stable id for the n-th uuid-less rule of a file
// (a name-based, version 5 style UUID), so findings keep their fingerprint
// from run to run. Reordering uuid-less rules changes their ids: give rules
// a uuid to make them independent of their position.
func syntheticUUID(file string, n int) string {
	h := sha1.Sum([]byte(fmt.Sprintf("plumb-rule\x00%s\x00%d", file, n)))
	h[6] = h[6]&0x0f | 0x50
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// ruleReader validates one rule mapping.
type ruleReader struct {
	l       *loader
	doc     *manifest.Document
	node    *yaml.Node
	builtIn bool
	failed  bool
	phase   Phase
}

func (r *ruleReader) at(p ...manifest.Segment) manifest.Location {
	loc, _ := r.doc.LocateFrom(r.node, manifest.Path(p))
	return manifest.Location{File: loc.File, Line: loc.Line, Column: loc.Column}
}

func (r *ruleReader) errorf(loc manifest.Location, format string, args ...any) {
	r.failed = true
	r.l.problem(loc, false, format, args...)
}

func (r *ruleReader) warnf(loc manifest.Location, format string, args ...any) {
	r.l.problem(loc, true, format, args...)
}

var ruleKeys = []string{"actions", "conditions", "description", "phase", "priority", "scope", "sensitive", "uuid"}

var uuidPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// read validates the rule; it returns nil when the rule is not even a
// mapping. r.failed tells whether anything was wrong.
func (r *ruleReader) read(item any) *Rule {
	m, ok := item.(map[string]any)
	if !ok {
		r.errorf(r.at(), "a rule must be a mapping with at least actions, found %s", typeName(item))
		return nil
	}
	rule := &Rule{BuiltIn: r.builtIn, Phase: PhaseMain, Source: r.at()}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(ruleKeys, k) {
			r.errorf(r.at(manifest.Key(k)), "unknown key %q in rule (known keys: %s)", k, strings.Join(ruleKeys, ", "))
		}
	}
	if v, ok := m["uuid"]; ok && v != nil {
		s, isString := v.(string)
		switch {
		case !isString:
			r.errorf(r.at(manifest.Key("uuid")), "uuid must be a string, found %s", typeName(v))
		case !uuidPattern.MatchString(s):
			r.errorf(r.at(manifest.Key("uuid")), "uuid %q must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", s)
		default:
			rule.UUID = s
		}
	}
	if v, ok := m["description"]; ok && v != nil {
		s, isString := v.(string)
		switch {
		case !isString:
			r.errorf(r.at(manifest.Key("description")), "description must be a string, found %s", typeName(v))
		case len(s) > 255:
			r.errorf(r.at(manifest.Key("description")), "description is %d characters long, over the limit of 255", len(s))
		default:
			rule.Description = s
		}
	}
	r.readPriority(rule, m)
	if v, ok := m["phase"]; ok {
		s, _ := v.(string)
		p, err := ParsePhase(s)
		if err != nil {
			r.errorf(r.at(manifest.Key("phase")), "invalid phase %s: valid phases are early, preprocess, main", quoteValue(v))
		}
		rule.Phase = p
	}
	r.phase = rule.Phase
	if v, ok := m["scope"]; ok && v != nil {
		s, isString := v.(string)
		switch {
		case !isString:
			r.errorf(r.at(manifest.Key("scope")), "scope must be a string, found %s", typeName(v))
		case len(s) > 255:
			r.errorf(r.at(manifest.Key("scope")), "scope is %d characters long, over the limit of 255", len(s))
		default:
			rule.Scope = s
		}
	}
	if v, ok := m["sensitive"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			r.errorf(r.at(manifest.Key("sensitive")), "sensitive must be true or false, found %s", quoteValue(v))
		}
		rule.Sensitive = b
	}
	if v, ok := m["conditions"]; ok {
		list, isList := v.([]any)
		if !isList {
			r.errorf(r.at(manifest.Key("conditions")), "conditions must be a list, found %s", typeName(v))
		}
		for i, c := range list {
			if cond := r.readCondition(c, i); cond != nil {
				rule.Conditions = append(rule.Conditions, cond)
			}
		}
	}
	v, ok := m["actions"]
	list, isList := v.([]any)
	switch {
	case !ok:
		r.errorf(rule.Source, "the rule has no actions: every rule needs at least one")
	case !isList:
		r.errorf(r.at(manifest.Key("actions")), "actions must be a list, found %s", typeName(v))
	case len(list) == 0:
		r.errorf(r.at(manifest.Key("actions")), "actions is empty: every rule needs at least one action")
	}
	for i, a := range list {
		if act := r.readAction(a, i); act != nil {
			rule.Actions = append(rule.Actions, act)
		}
	}
	return rule
}

func (r *ruleReader) readPriority(rule *Rule, m map[string]any) {
	v, ok := m["priority"]
	if !ok {
		return
	}
	loc := r.at(manifest.Key("priority"))
	n, isInt := v.(int64)
	if !isInt {
		r.errorf(loc, "priority must be a whole number, found %s", quoteValue(v))
		return
	}
	if !r.builtIn && (n < MinUserPriority || n > MaxUserPriority) {
		r.errorf(loc, "priority %d is out of range: user rules use 0 to 9999 (below 0 and above 9999 are reserved for built-in rules)", n)
		return
	}
	if n < -1<<31 || n > 1<<31-1 {
		r.errorf(loc, "priority %d is out of range", n)
		return
	}
	rule.Priority = int(n)
}

// checkUUID rejects a uuid used twice, and user rules that reuse a
// built-in rule's uuid (built-in rules cannot be overridden).
func (r *ruleReader) checkUUID(rule *Rule) bool {
	prev, dup := r.l.seen[rule.UUID]
	if !dup {
		return true
	}
	loc := r.at(manifest.Key("uuid"))
	if prev.BuiltIn && !rule.BuiltIn {
		r.errorf(loc, "uuid %q belongs to a built-in rule; built-in rules cannot be replaced or overridden: choose another uuid", rule.UUID)
		return false
	}
	r.errorf(loc, "uuid %q is already used by the rule at %s", rule.UUID, manifest.FormatLocation(prev.Source))
	return false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
