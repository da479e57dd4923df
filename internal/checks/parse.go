package checks

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// idPattern is what a check id may look like: it is also a file name.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// Keys of a check (the JSON schema's properties; anything else is an
// error, as the schema's additionalProperties: false makes it in tlint).
var (
	checkKeys       = []string{"id", "name", "group", "description", "remediation", "severity", "metadata", "when", "exclude", "facts", "values", "expectations", "customization_disabled", "premium", "fix"}
	factKeys        = []string{"name", "gatherer", "argument"}
	valueKeys       = []string{"name", "default", "conditions", "customization_disabled"}
	conditionKeys   = []string{"value", "when"}
	expectationKeys = []string{"name", "expect", "expect_same", "expect_enum", "failure_message", "warning_message"}
)

// parser reads one check file into a Check, recording every structural
// problem with its line and column.
type parser struct {
	file  string
	doc   *manifest.Document
	lines []string
	check *Check
}

// parseCheck parses the content of one catalog file. name is the file's
// display path; the file name (without .yaml) must equal the id.
func parseCheck(name string, data []byte) *Check {
	c := &Check{File: name, Severity: SeverityCritical}
	docs, problems := manifest.Parse(name, data, manifest.Limits{})
	for _, pr := range problems {
		c.Diagnostics = append(c.Diagnostics, Diagnostic{File: name, Line: pr.Location.Line, Column: pr.Location.Column, Level: LevelError, Message: pr.Message})
	}
	if len(problems) > 0 {
		c.broken = true
		return c
	}
	switch {
	case len(docs) == 0:
		c.addDiag(LevelError, Pos{Line: 1, Column: 1}, "", "the file is empty: a check file holds one check")
		c.broken = true
		return c
	case len(docs) > 1:
		c.addDiag(LevelError, Pos{Line: docs[1].Node.Line + docs[1].LineOffset, Column: 1}, "", "the file holds %d YAML documents: a check file holds exactly one check", len(docs))
		c.broken = true
		return c
	}
	p := &parser{file: name, doc: docs[0], lines: strings.Split(string(data), "\n"), check: c}
	p.parse()
	return c
}

func (c *Check) addDiag(level string, pos Pos, at, format string, args ...any) {
	c.Diagnostics = append(c.Diagnostics, Diagnostic{
		File: c.File, Line: pos.Line, Column: pos.Column, Level: level, Check: c.ID, Path: at,
		Message: fmt.Sprintf(format, args...),
	})
}

func (p *parser) pos(n *yaml.Node) Pos {
	return Pos{Line: n.Line + p.doc.LineOffset, Column: n.Column}
}

// errorf records a structural error: the check cannot be evaluated.
func (p *parser) errorf(n *yaml.Node, at, format string, args ...any) {
	p.check.addDiag(LevelError, p.pos(n), at, format, args...)
	p.check.broken = true
}

func (p *parser) warnf(n *yaml.Node, at, format string, args ...any) {
	p.check.addDiag(LevelWarning, p.pos(n), at, format, args...)
}

// field is one key of a mapping.
type field struct {
	key, value *yaml.Node
}

// mapping returns the fields of a mapping node by key and reports keys that
// are not in known.
func (p *parser) mapping(n *yaml.Node, at string, known []string) map[string]field {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, at, "must be a mapping, not %s", describeNode(n))
		return nil
	}
	out := map[string]field{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !contains(known, k.Value) {
			p.errorf(k, join(at, k.Value), "unknown key %q (known keys: %s)", k.Value, strings.Join(known, ", "))
			continue
		}
		out[k.Value] = field{k, v}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func index(at string, i int) string { return fmt.Sprintf("%s[%d]", at, i) }

// describeNode names a node's type for messages.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	switch n.ShortTag() {
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case "!!null":
		return "null"
	case "!!bool":
		return "the boolean " + n.Value
	case "!!int", "!!float":
		return "the number " + n.Value
	}
	return n.Value
}

// str reads a string scalar. Non-string scalars are errors: YAML would
// silently turn `id: 123456` into a number.
func (p *parser) str(f field, at string, required bool) (string, bool) {
	if f.value == nil {
		if required {
			return "", false
		}
		return "", true
	}
	n := f.value
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		hint := ""
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
			hint = fmt.Sprintf(" (quote it: \"%s\")", n.Value)
		}
		p.errorf(n, at, "must be a string, not %s%s", describeNode(n), hint)
		return "", false
	}
	if required && strings.TrimSpace(n.Value) == "" {
		p.errorf(n, at, "must not be empty")
		return "", false
	}
	return n.Value, true
}

// scalar reads any scalar as text (gatherer arguments such as 8080).
func (p *parser) scalar(f field, at string) (string, bool) {
	if f.value == nil {
		return "", true
	}
	if f.value.Kind != yaml.ScalarNode {
		p.errorf(f.value, at, "must be a string, not %s", describeNode(f.value))
		return "", false
	}
	if f.value.ShortTag() == "!!null" {
		return "", true
	}
	return f.value.Value, true
}

func (p *parser) boolean(f field, at string) bool {
	if f.value == nil {
		return false
	}
	if f.value.Kind != yaml.ScalarNode || f.value.ShortTag() != "!!bool" {
		p.errorf(f.value, at, "must be true or false, not %s", describeNode(f.value))
		return false
	}
	return f.value.Value == "true"
}

// value returns the decoded value (JSON-compatible, whole numbers int64) at
// a path of the document.
func (p *parser) value(at manifest.Path) any {
	v, _ := manifest.Lookup(p.doc.Value, at)
	return v
}

// expr records an expression field for compilation by lint.
func (p *parser) expr(f field, at string) *Expr {
	if f.value == nil {
		return nil
	}
	// A scalar YAML types as a number or boolean (expect: true) is a CEL
	// literal too: use its text.
	src, ok := p.scalar(f, at)
	if ok && strings.TrimSpace(src) == "" {
		p.errorf(f.value, at, "must not be empty")
		ok = false
	}
	if !ok {
		return nil
	}
	return &Expr{Source: src, text: scalarText(f.value, p.doc.LineOffset, p.lines)}
}

func (p *parser) message(f field, at string) *Message {
	if f.value == nil {
		return nil
	}
	raw, ok := p.str(f, at, false)
	if !ok {
		return nil
	}
	m := &Message{Raw: raw, Pos: p.pos(f.value)}
	text := scalarText(f.value, p.doc.LineOffset, p.lines)
	parts, serr := splitMessage(raw)
	if serr != "" {
		m.syntaxErr = serr
		return m
	}
	for i := range parts {
		if parts[i].expr != nil {
			parts[i].expr.text = text.from(text.at(raw, parts[i].offset))
		}
	}
	m.parts = parts
	return m
}

func (p *parser) parse() {
	c := p.check
	root := p.doc.Node
	c.Pos = p.pos(root)
	fs := p.mapping(root, "", checkKeys)
	if fs == nil {
		return
	}
	for _, k := range []string{"id", "name", "group", "description", "remediation", "facts", "expectations"} {
		if _, ok := fs[k]; !ok {
			p.errorf(root, "", "missing required key %q", k)
		}
	}
	if f, ok := fs["id"]; ok {
		c.Pos = p.pos(f.value)
		if id, ok := p.str(f, "id", true); ok {
			c.ID = id
			for i := range c.Diagnostics {
				c.Diagnostics[i].Check = id
			}
			if !idPattern.MatchString(id) {
				p.errorf(f.value, "id", "%q is not a valid check id: use letters, digits, '_', '.' and '-' (conventionally six hex digits such as \"156F64\")", id)
			}
			if base := strings.TrimSuffix(path.Base(c.File), ".yaml"); base != id {
				p.errorf(f.value, "id", "the id %q does not match the file name %s: a check must be in <id>.yaml", id, path.Base(c.File))
			}
		}
	}
	c.Name, _ = p.str(fs["name"], "name", fs["name"].value != nil)
	c.Group, _ = p.str(fs["group"], "group", fs["group"].value != nil)
	c.Description, _ = p.str(fs["description"], "description", fs["description"].value != nil)
	c.Remediation, _ = p.str(fs["remediation"], "remediation", fs["remediation"].value != nil)
	if f, ok := fs["severity"]; ok {
		if s, ok := p.str(f, "severity", true); ok {
			switch Severity(s) {
			case SeverityCritical, SeverityWarning:
				c.Severity = Severity(s)
			default:
				p.errorf(f.value, "severity", "unknown severity %q: want critical or warning (Wanda would silently treat it as critical)", s)
			}
		}
	}
	p.metadata(fs["metadata"], root)
	if f, ok := fs["when"]; ok {
		c.When = p.expr(f, "when")
	}
	if f, ok := fs["exclude"]; ok {
		c.Exclude = p.expr(f, "exclude")
	}
	c.CustomizationDisabled = p.boolean(fs["customization_disabled"], "customization_disabled")
	if f, ok := fs["premium"]; ok {
		p.boolean(f, "premium")
		p.warnf(f.key, "premium", "premium is deprecated and will be removed in the future; it is ignored")
	}
	if f, ok := fs["facts"]; ok {
		p.facts(f)
	}
	if f, ok := fs["values"]; ok {
		p.values(f)
	}
	if f, ok := fs["expectations"]; ok {
		p.expectations(f)
	}
	if f, ok := fs["fix"]; ok {
		p.fix(f)
	}
}

func (p *parser) metadata(f field, root *yaml.Node) {
	c := p.check
	if f.value == nil {
		p.errorf(root, "metadata", "missing metadata.target_type: say whether the check runs on each object (object) or on each render target (group)")
		return
	}
	n := f.value
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "metadata", "must be a mapping, not %s", describeNode(n))
		return
	}
	if len(n.Content) == 0 {
		p.errorf(n, "metadata", "must not be empty: it needs at least target_type")
		return
	}
	c.Metadata = map[string]any{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		at := "metadata." + k.Value
		if k.Value == "" {
			p.errorf(k, "metadata", "keys must not be empty")
			continue
		}
		switch v.Kind {
		case yaml.ScalarNode:
			if v.ShortTag() == "!!null" {
				p.errorf(v, at, "must be a string, number, boolean or a list of strings or numbers, not null")
				continue
			}
		case yaml.SequenceNode:
			for _, e := range v.Content {
				if e.Kind != yaml.ScalarNode || (e.ShortTag() != "!!str" && e.ShortTag() != "!!int" && e.ShortTag() != "!!float") {
					p.errorf(e, at, "list elements must be strings or numbers, not %s", describeNode(e))
				}
			}
		default:
			p.errorf(v, at, "must be a string, number, boolean or a list of strings or numbers, not %s", describeNode(v))
			continue
		}
		c.Metadata[k.Value] = p.value(manifest.Path{manifest.Key("metadata"), manifest.Key(k.Value)})
	}
	tt, ok := c.Metadata["target_type"]
	if !ok {
		p.errorf(n, "metadata", "missing target_type: object (each rendered object of the kinds in metadata.kind) or group (each render target)")
		return
	}
	switch tt {
	case string(TargetObject), string(TargetGroup):
		c.TargetType = TargetType(tt.(string))
	default:
		p.errorf(valueNode(n, "target_type"), "metadata.target_type", "unknown target_type %v: want object or group", tt)
	}
	if kv := valueNode(n, "kind"); kv != nil {
		if kv.Kind == yaml.ScalarNode && kv.ShortTag() != "!!str" || kv.Kind == yaml.SequenceNode && !allStrings(kv) {
			p.errorf(kv, "metadata.kind", "must be a kind name or a list of kind names")
		}
		if c.TargetType == TargetGroup {
			p.warnf(kv, "metadata.kind", "metadata.kind is ignored for target_type group: a group target is a whole render target")
		}
	}
}

func allStrings(n *yaml.Node) bool {
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode || e.ShortTag() != "!!str" {
			return false
		}
	}
	return true
}

// valueNode returns the value node of key in a mapping node.
func valueNode(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// seq returns the items of a sequence field.
func (p *parser) seq(f field, at string) []*yaml.Node {
	if f.value.Kind != yaml.SequenceNode {
		if f.value.ShortTag() == "!!null" {
			return nil
		}
		p.errorf(f.value, at, "must be a list, not %s", describeNode(f.value))
		return nil
	}
	return f.value.Content
}

func (p *parser) facts(f field) {
	c := p.check
	items := p.seq(f, "facts")
	if len(items) == 0 && !c.broken {
		p.errorf(f.key, "facts", "a check needs at least one fact (Wanda never reports a check without facts)")
	}
	seen := map[string]Pos{}
	for i, n := range items {
		at := index("facts", i)
		fs := p.mapping(n, at, factKeys)
		if fs == nil {
			continue
		}
		fact := &Fact{Pos: p.pos(n), ArgPos: p.pos(n)}
		var ok bool
		if fact.Name, ok = p.str(fs["name"], at+".name", true); !ok && fs["name"].value == nil {
			p.errorf(n, at, "missing required key \"name\"")
		}
		if fact.Gatherer, ok = p.str(fs["gatherer"], at+".gatherer", true); !ok && fs["gatherer"].value == nil {
			p.errorf(n, at, "missing required key \"gatherer\"")
		}
		fact.Argument, _ = p.scalar(fs["argument"], at+".argument")
		if g := fs["gatherer"].value; g != nil {
			fact.GathererPos, fact.ArgPos = p.pos(g), p.pos(g)
		}
		if a := fs["argument"].value; a != nil {
			fact.ArgPos = p.pos(a)
		}
		if fact.Name != "" {
			if prev, dup := seen[fact.Name]; dup {
				p.errorf(fs["name"].value, at+".name", "duplicate fact name %q (first declared at line %d): the later one would silently replace it", fact.Name, prev.Line)
			}
			seen[fact.Name] = p.pos(n)
		}
		c.Facts = append(c.Facts, fact)
	}
}

func (p *parser) values(f field) {
	c := p.check
	seen := map[string]Pos{}
	for i, n := range p.seq(f, "values") {
		at := index("values", i)
		fs := p.mapping(n, at, valueKeys)
		if fs == nil {
			continue
		}
		v := &Value{Pos: p.pos(n)}
		var ok bool
		if v.Name, ok = p.str(fs["name"], at+".name", true); !ok && fs["name"].value == nil {
			p.errorf(n, at, "missing required key \"name\"")
		}
		if d, ok := fs["default"]; ok {
			v.Default = p.value(manifest.Path{manifest.Key("values"), manifest.Index(i), manifest.Key("default")})
			if d.value.ShortTag() == "!!null" {
				p.errorf(d.value, at+".default", "must not be null")
			}
		} else {
			p.errorf(n, at, "missing required key \"default\"")
		}
		v.CustomizationDisabled = p.boolean(fs["customization_disabled"], at+".customization_disabled")
		if cf, ok := fs["conditions"]; ok {
			for j, cn := range p.seq(cf, at+".conditions") {
				cat := index(at+".conditions", j)
				cfs := p.mapping(cn, cat, conditionKeys)
				if cfs == nil {
					continue
				}
				cond := &Condition{}
				if _, ok := cfs["value"]; ok {
					cond.Value = p.value(manifest.Path{manifest.Key("values"), manifest.Index(i), manifest.Key("conditions"), manifest.Index(j), manifest.Key("value")})
				} else {
					p.errorf(cn, cat, "missing required key \"value\"")
				}
				if wf, ok := cfs["when"]; ok {
					cond.When = p.expr(wf, cat+".when")
				} else {
					p.errorf(cn, cat, "missing required key \"when\"")
				}
				v.Conditions = append(v.Conditions, cond)
			}
		}
		if v.Name != "" {
			if prev, dup := seen[v.Name]; dup {
				p.errorf(fs["name"].value, at+".name", "duplicate value name %q (first declared at line %d): the later one would silently replace it", v.Name, prev.Line)
			}
			seen[v.Name] = p.pos(n)
		}
		c.Values = append(c.Values, v)
	}
}

func (p *parser) expectations(f field) {
	c := p.check
	items := p.seq(f, "expectations")
	if len(items) == 0 && f.value.Kind == yaml.SequenceNode || f.value.ShortTag() == "!!null" {
		p.errorf(f.key, "expectations", "a check needs at least one expectation (Wanda crashes on a check without any)")
	}
	seen := map[string]Pos{}
	for i, n := range items {
		at := index("expectations", i)
		fs := p.mapping(n, at, expectationKeys)
		if fs == nil {
			continue
		}
		e := &Expectation{Pos: p.pos(n)}
		var ok bool
		if e.Name, ok = p.str(fs["name"], at+".name", true); !ok && fs["name"].value == nil {
			p.errorf(n, at, "missing required key \"name\"")
		}
		var kinds []string
		for _, t := range []ExpectationType{Expect, ExpectSame, ExpectEnum} {
			if ef, ok := fs[string(t)]; ok {
				kinds = append(kinds, string(t))
				if e.Expr == nil {
					e.Type = t
					e.Expr = p.expr(ef, at+"."+string(t))
				}
			}
		}
		switch len(kinds) {
		case 0:
			p.errorf(n, at, "needs one of expect, expect_same or expect_enum")
		case 1:
		default:
			p.errorf(n, at, "has %s: an expectation has exactly one of expect, expect_same or expect_enum", strings.Join(kinds, " and "))
		}
		if mf, ok := fs["failure_message"]; ok {
			e.FailureMessage = p.message(mf, at+".failure_message")
		}
		if wf, ok := fs["warning_message"]; ok {
			e.WarningMessage = p.message(wf, at+".warning_message")
		}
		if e.Name != "" {
			if prev, dup := seen[e.Name]; dup {
				p.errorf(fs["name"].value, at+".name", "duplicate expectation name %q (first declared at line %d): Wanda merges their evaluations and the result is always false", e.Name, prev.Line)
			}
			seen[e.Name] = p.pos(n)
		}
		c.Expectations = append(c.Expectations, e)
	}
}
