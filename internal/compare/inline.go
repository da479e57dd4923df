package compare

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Inline diff function names (v2 perField).
const (
	InlineRegex         = "regex"
	InlineCaptureGroups = "capturegroups"
)

var inlineFuncs = []string{InlineRegex, InlineCaptureGroups}

// perFieldFunc is one validated perField entry.
type perFieldFunc struct {
	cfg  PerField
	segs []string
}

// captureTable collects, per named group, the distinct values captured
// across all inline fields of one object: identically named groups must
// agree.
type captureTable struct {
	values map[string][]string
}

func (t *captureTable) add(name, value string) {
	if t.values == nil {
		t.values = map[string][]string{}
	}
	if !slices.Contains(t.values[name], value) {
		t.values[name] = append(t.values[name], value)
	}
}

// agreed returns the value to print for a group: its only value, or, when
// it captured several, a marker holding the first plus a warning line that
// guarantees a visible diff.
func (t *captureTable) agreed(name, groupText string) (value string, captured bool, warning string) {
	vs := t.values[name]
	switch len(vs) {
	case 0:
		return "", false, ""
	case 1:
		return vs[0], true, ""
	}
	return "(?<" + name + ">=" + vs[0] + ")", true,
		fmt.Sprintf("WARNING: Capturegroup %s matched multiple values: « %s »", groupText, strings.Join(vs, " | "))
}

// applyInline runs the perField functions of a template on the rendered
// reference, in two passes: the first collects captures from every field,
// the second rewrites each field with the agreed values. live is the input
// object (after omission).
func applyInline(funcs []perFieldFunc, rendered, live map[string]any, cache *regexpCache) error {
	if len(funcs) == 0 {
		return nil
	}
	type field struct {
		f        perFieldFunc
		pattern  string
		value    string
		segments []cgSegment
		re       *regexp.Regexp
	}
	var fields []field
	for _, f := range funcs {
		rv, ok := lookupPath(rendered, f.segs, true)
		pattern, isString := rv.(string)
		if !ok || !isString {
			return fmt.Errorf("inline diff function %s: field %s Not found as a string in the rendered reference", f.cfg.InlineDiffFunc, f.cfg.PathToKey)
		}
		iv, ok := lookupPath(live, f.segs, true)
		value, isString := iv.(string)
		if !ok || !isString {
			continue // absent (or not text) in the input: the ordinary diff shows it
		}
		fd := field{f: f, pattern: pattern, value: value}
		var err error
		switch f.cfg.InlineDiffFunc {
		case InlineRegex:
			fd.re, err = cache.compile(pattern)
		case InlineCaptureGroups:
			fd.segments, err = parseCaptureGroups(pattern)
		}
		if err != nil {
			return fmt.Errorf("inline diff function %s on %s: %w", f.cfg.InlineDiffFunc, f.cfg.PathToKey, err)
		}
		fields = append(fields, fd)
	}
	var table captureTable
	for _, fd := range fields {
		var err error
		if fd.re != nil {
			collectRegex(fd.re, fd.value, &table, cache)
		} else {
			err = collectCaptureGroups(fd.segments, fd.value, &table, cache)
		}
		if err != nil {
			return fmt.Errorf("inline diff function %s on %s: %w", fd.f.cfg.InlineDiffFunc, fd.f.cfg.PathToKey, err)
		}
	}
	for _, fd := range fields {
		var out string
		var warnings []string
		if fd.re != nil {
			out, warnings = applyRegex(fd.re, fd.value, &table, cache)
		} else {
			out, warnings = applyCaptureGroups(fd.segments, &table)
		}
		for _, w := range warnings {
			if strings.HasSuffix(out, "\n") || out == "" {
				out += w + "\n"
			} else {
				out += "\n" + w
			}
		}
		setPath(rendered, fd.f.segs, out)
	}
	return nil
}

// regexpCache holds compiled regexps and their top-level named groups for
// one run; safe for concurrent use.
type regexpCache struct {
	res      sync.Map // pattern → *regexp.Regexp or error
	groupMap sync.Map // *regexp.Regexp → map[int]string
}

func (c *regexpCache) compile(pattern string) (*regexp.Regexp, error) {
	if v, ok := c.res.Load(pattern); ok {
		if re, isRE := v.(*regexp.Regexp); isRE {
			return re, nil
		}
		return nil, v.(error)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		c.res.Store(pattern, err)
		return nil, err
	}
	c.res.Store(pattern, re)
	return re, nil
}

func (c *regexpCache) groups(re *regexp.Regexp) map[int]string {
	if v, ok := c.groupMap.Load(re); ok {
		return v.(map[int]string)
	}
	g := topLevelGroups(re.String())
	c.groupMap.Store(re, g)
	return g
}

// topLevelGroups returns the capture indexes and names of the named groups
// of a regexp that are not nested in another named group.
func topLevelGroups(pattern string) map[int]string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	out := map[int]string{}
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		if r.Op == syntax.OpCapture && r.Name != "" {
			out[r.Cap] = r.Name
			return
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(re)
	return out
}

func collectRegex(re *regexp.Regexp, value string, table *captureTable, cache *regexpCache) {
	m := re.FindStringSubmatchIndex(value)
	if m == nil {
		return
	}
	for cap, name := range cache.groups(re) {
		if m[2*cap] >= 0 {
			table.add(name, value[m[2*cap]:m[2*cap+1]])
		}
	}
}

// applyRegex: no match leaves the pattern (so the diff shows pattern
// against value); a match becomes the matched text with each top-level
// named group replaced by its agreed value. Text outside the match is not
// included, so a partial match still shows a diff.
func applyRegex(re *regexp.Regexp, value string, table *captureTable, cache *regexpCache) (string, []string) {
	m := re.FindStringSubmatchIndex(value)
	if m == nil {
		return re.String(), nil
	}
	type span struct {
		start, end int
		name       string
	}
	var spans []span
	for cap, name := range cache.groups(re) {
		if m[2*cap] >= 0 {
			spans = append(spans, span{m[2*cap], m[2*cap+1], name})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	var warnings []string
	pos := m[0]
	for _, s := range spans {
		if s.start < pos {
			continue
		}
		b.WriteString(value[pos:s.start])
		v, ok, w := table.agreed(s.name, "(?<"+s.name+">…)")
		if !ok {
			v = value[s.start:s.end]
		}
		if w != "" && !slices.Contains(warnings, w) {
			warnings = append(warnings, w)
		}
		b.WriteString(v)
		pos = s.end
	}
	b.WriteString(value[pos:m[1]])
	return b.String(), warnings
}

// cgSegment is a piece of a capturegroups pattern: literal text, or a named
// group (text holds the whole "(?<name>...)").
type cgSegment struct {
	literal string
	group   bool
	name    string
	text    string
}

// parseCaptureGroups splits a capturegroups pattern into literal text and
// named groups, (?<name>re) or (?P<name>re), with balanced parentheses.
func parseCaptureGroups(pattern string) ([]cgSegment, error) {
	var out []cgSegment
	lit := 0
	for i := 0; i < len(pattern); {
		open := nextGroupOpen(pattern, i)
		if open < 0 {
			break
		}
		nameStart := open + 3
		if strings.HasPrefix(pattern[open:], "(?P<") {
			nameStart = open + 4
		}
		gt := strings.IndexByte(pattern[nameStart:], '>')
		if gt < 0 {
			return nil, fmt.Errorf("capture group at offset %d has no closing '>'", open)
		}
		name := pattern[nameStart : nameStart+gt]
		end, err := groupEnd(pattern, open)
		if err != nil {
			return nil, err
		}
		if open > lit {
			out = append(out, cgSegment{literal: pattern[lit:open]})
		}
		out = append(out, cgSegment{group: true, name: name, text: pattern[open:end]})
		lit, i = end, end
	}
	if lit < len(pattern) {
		out = append(out, cgSegment{literal: pattern[lit:]})
	}
	return out, nil
}

func nextGroupOpen(s string, from int) int {
	for i := from; i < len(s); i++ {
		if s[i] == '(' && (strings.HasPrefix(s[i:], "(?<") || strings.HasPrefix(s[i:], "(?P<")) {
			return i
		}
	}
	return -1
}

// groupEnd returns the offset after the ')' closing the group opened at
// s[open], honouring escapes and character classes.
func groupEnd(s string, open int) (int, error) {
	depth := 0
	inClass := false
	for i := open; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			i++
		case inClass:
			if c == '[' && strings.HasPrefix(s[i:], "[:") {
				if j := strings.Index(s[i+2:], ":]"); j >= 0 {
					i += j + 3
				}
			} else if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			// A ']' right after '[' or '[^' is a literal member.
			if strings.HasPrefix(s[i+1:], "^]") {
				i += 2
			} else if strings.HasPrefix(s[i+1:], "]") {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, fmt.Errorf("capture group at offset %d is not closed", open)
}

// validateCaptureGroups checks a pattern the way kube-compare does at load
// time: each line, with its literal text quoted, must compile.
func validateCaptureGroups(pattern string) error {
	for i, line := range strings.Split(pattern, "\n") {
		segs, err := parseCaptureGroups(line)
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		if _, err := regexp.Compile(segmentsRegexp(segs)); err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return nil
}

func segmentsRegexp(segs []cgSegment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.group {
			b.WriteString(s.text)
		} else {
			b.WriteString(regexp.QuoteMeta(s.literal))
		}
	}
	return b.String()
}

// placeholderBase is the first private-use code point standing for a group
// while the literal text is diffed against the value.
const placeholderBase = 0xF0000

// collectCaptureGroups finds the group values: the pattern with every group
// replaced by a placeholder is diffed character by character against the
// value; each deleted fragment holding placeholders, paired with the text
// inserted in its place, becomes a regexp (literal parts quoted, anchored at
// a group that starts or ends the fragment) matched against that text.
func collectCaptureGroups(segs []cgSegment, value string, table *captureTable, cache *regexpCache) error {
	var a strings.Builder
	groups := map[rune]cgSegment{}
	n := 0
	for _, s := range segs {
		if s.group {
			r := rune(placeholderBase + n)
			groups[r] = s
			a.WriteRune(r)
			n++
		} else {
			a.WriteString(s.literal)
		}
	}
	if n == 0 {
		return nil
	}
	diffs := newDMP().DiffMain(a.String(), value, false)
	for i := 0; i < len(diffs); i++ {
		d := diffs[i]
		if d.Type == diffmatchpatch.DiffEqual {
			continue
		}
		var deleted, inserted string
		switch {
		case i+1 < len(diffs) && diffs[i+1].Type != diffmatchpatch.DiffEqual && diffs[i+1].Type != d.Type:
			if d.Type == diffmatchpatch.DiffDelete {
				deleted, inserted = d.Text, diffs[i+1].Text
			} else {
				deleted, inserted = diffs[i+1].Text, d.Text
			}
			i++
		case d.Type == diffmatchpatch.DiffDelete:
			deleted = d.Text // the groups matched nothing
		default:
			continue
		}
		if err := matchFragment(deleted, inserted, groups, table, cache); err != nil {
			return err
		}
	}
	return nil
}

func matchFragment(deleted, inserted string, groups map[rune]cgSegment, table *captureTable, cache *regexpCache) error {
	var b strings.Builder
	var names []string
	runes := []rune(deleted)
	var lit strings.Builder
	for i, r := range runes {
		g, isGroup := groups[r]
		if !isGroup {
			lit.WriteRune(r)
			continue
		}
		b.WriteString(regexp.QuoteMeta(lit.String()))
		lit.Reset()
		if i == 0 {
			b.WriteByte('^')
		}
		b.WriteString(g.text)
		if i == len(runes)-1 {
			b.WriteByte('$')
		}
		names = append(names, g.name)
	}
	if len(names) == 0 {
		return nil
	}
	b.WriteString(regexp.QuoteMeta(lit.String()))
	re, err := cache.compile(b.String())
	if err != nil {
		return fmt.Errorf("error parsing regexp: %w", err)
	}
	m := re.FindStringSubmatchIndex(inserted)
	if m == nil {
		return nil
	}
	for cap, name := range cache.groups(re) {
		if slices.Contains(names, name) && m[2*cap] >= 0 {
			table.add(name, inserted[m[2*cap]:m[2*cap+1]])
		}
	}
	return nil
}

// applyCaptureGroups rebuilds the pattern with each group replaced by its
// agreed value; a group that captured nothing stays as written.
func applyCaptureGroups(segs []cgSegment, table *captureTable) (string, []string) {
	var b strings.Builder
	var warnings []string
	for _, s := range segs {
		if !s.group {
			b.WriteString(s.literal)
			continue
		}
		v, ok, w := table.agreed(s.name, "(?<"+s.name+">…)")
		if !ok {
			b.WriteString(s.text)
			continue
		}
		if w != "" && !slices.Contains(warnings, w) {
			warnings = append(warnings, w)
		}
		b.WriteString(v)
	}
	return b.String(), warnings
}
