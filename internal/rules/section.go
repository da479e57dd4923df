package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// SectionName is the key of the rules section in the JSON report (DESIGN.md's
// contract; the rule descriptors are "rule_descriptors").
const SectionName = "rules"

// Section is the JSON report section: the rules that were loaded and, per
// document and object, what they did.
//
// Its entries are kept as their JSON, written once they are made: on
// 10,000 objects the entries as Go values (plugin data, action arguments,
// patches, each copied for the report) took about 21 MB, held from the
// main phase until the report is written; their JSON takes half of that.
type Section struct {
	Rules     []SectionRule `json:"rules"`
	Documents []Entry       `json:"documents"`
	Objects   []Entry       `json:"objects"`
}

// Entry is a SectionEntry as compact JSON. The rules an object was given
// in the preprocess phase are mostly the same, with the same arguments, as
// other objects': their JSON (sealed, each rule's shared between entries)
// is put in at at when the entry is written.
type Entry struct {
	raw    []byte
	sealed [][]byte
	at     int
	// err is why the entry could not be written (a value JSON cannot
	// hold); writing the report fails with it, as writing the entry
	// itself would have.
	err error
}

// newEntry writes e, whose list of rules begins with the rules sealed (as
// JSON, sealRules) before it and goes on with the rules applied since, which
// are counted in counts.
func (r *Run) newEntry(e SectionEntry, sealed [][]byte, applied []appliedRule, counts matchCounts) Entry {
	for i := range applied {
		counts.add(applied[i].rule)
	}
	buf := entryBuffers.Get().(*[]byte)
	defer entryBuffers.Put(buf)
	raw, at, ok := appendSectionEntry((*buf)[:0], &e, func(b []byte) ([]byte, bool) {
		for i := range applied {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = r.appendApplied(b, &applied[i]); !ok {
				return b, false
			}
		}
		return b, true
	})
	*buf = raw[:0]
	if !ok {
		e.Rules = r.appliedOutput(applied, matchCounts{})
		return newEntryReflect(e, sealed)
	}
	raw = bytes.Clone(raw)
	if len(sealed) == 0 {
		return Entry{raw: raw}
	}
	return sealedEntry(raw, sealed, at)
}

// entryBuffers are the buffers entries are written in before they are
// copied at their size.
var entryBuffers = sync.Pool{New: func() any { return new([]byte) }}

// newEntryReflect is newEntry by encoding/json, for an entry the direct
// writer could not write: it fails, or writes it, as the report always
// did.
func newEntryReflect(e SectionEntry, sealed [][]byte) Entry {
	raw, err := json.Marshal(e)
	if err != nil || len(sealed) == 0 {
		return Entry{raw: raw, err: err}
	}
	// The list of rules is the entry's first "rules":[ — the fields
	// before it are strings, in which a quote is escaped.
	i := bytes.Index(raw, rulesKey)
	if i < 0 {
		return Entry{err: fmt.Errorf("the rules section's entry %.100s has no list of rules", raw)}
	}
	return sealedEntry(raw, sealed, i+len(rulesKey))
}

// sealedEntry is the entry raw whose list of rules, at at, begins with the
// sealed rules.
func sealedEntry(raw []byte, sealed [][]byte, at int) Entry {
	if raw[at] != ']' {
		// The rules applied since follow the sealed ones.
		raw = slices.Insert(raw, at, ',')
	}
	return Entry{raw: raw, sealed: sealed, at: at}
}

// rulesKey begins the list of rules in an entry's JSON.
var rulesKey = []byte(`"rules":[`)

// MarshalJSON writes the entry as json.Marshal writes its SectionEntry.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.err != nil || e.sealed == nil {
		return e.raw, e.err
	}
	n := len(e.raw) + len(e.sealed)
	for _, s := range e.sealed {
		n += len(s)
	}
	out := make([]byte, 0, n)
	out = append(out, e.raw[:e.at]...)
	for i, s := range e.sealed {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, s...)
	}
	return append(out, e.raw[e.at:]...), nil
}

// UnmarshalJSON keeps an entry of a report read back.
func (e *Entry) UnmarshalJSON(b []byte) error {
	*e = Entry{raw: bytes.Clone(b)}
	return nil
}

// Decode reads the entry back as a SectionEntry.
func (e Entry) Decode() (SectionEntry, error) {
	var out SectionEntry
	raw, err := e.MarshalJSON()
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(raw, &out)
	return out, err
}

// SectionRule summarises a loaded rule (conditions and actions are shown by
// plumb rules show, never for sensitive rules).
type SectionRule struct {
	UUID        string `json:"uuid"`
	Description string `json:"description,omitempty"`
	Phase       Phase  `json:"phase"`
	Priority    int    `json:"priority"`
	Scope       string `json:"scope,omitempty"`
	Sensitive   bool   `json:"sensitive"`
	BuiltIn     bool   `json:"built_in"`
	// Source is the rule's file:line ("" for built-in rules).
	Source string `json:"source,omitempty"`
	// Matched counts the documents and objects the rule's conditions held on.
	Matched int `json:"matched"`
}

// SectionEntry is what the rules did to one document or object. Only
// subjects some rule matched, or that carry plugin data, traits or a stop,
// are listed.
type SectionEntry struct {
	Object   *manifest.ObjectID `json:"object,omitempty"`
	File     string             `json:"file"`
	Line     int                `json:"line,omitempty"`
	Document *int               `json:"document,omitempty"`
	Scope    string             `json:"scope,omitempty"`
	// Rules are the rules whose conditions held, in running order.
	Rules      []SectionApplied `json:"rules"`
	Traits     []string         `json:"traits,omitempty"`
	PluginData map[string]any   `json:"plugin_data,omitempty"`
	// Patch lists the changes attribute actions made, as RFC 6902
	// operations (values of sensitive rules omitted).
	Patch []PatchOp `json:"patch,omitempty"`
	// Stopped says which fail or rule error ended the rules early.
	Stopped string `json:"stopped,omitempty"`
}

// SectionApplied is one rule that matched. Actions is null for sensitive
// rules.
type SectionApplied struct {
	UUID      string        `json:"uuid"`
	Phase     Phase         `json:"phase"`
	Sensitive bool          `json:"sensitive,omitempty"`
	Actions   []ActionTaken `json:"actions"`
}

// Section builds the report section (after Finish, the section it built).
func (r *Run) Section() *Section {
	if r.finished != nil {
		return r.finished
	}
	return r.assembleSection(nil, r.newMatchCounts(), false)
}

// writtenEntry is an object's entry written before the section is
// assembled (Finish): made once written, listed when the object has one.
type writtenEntry struct {
	Entry
	made, listed bool
}

// assembleSection builds the section from the subjects' records, but for
// the objects whose entry is already written. With release, each
// subject's records go once its entry is written.
func (r *Run) assembleSection(written []writtenEntry, counts matchCounts, release bool) *Section {
	sec := &Section{Documents: []Entry{}, Objects: make([]Entry, 0, len(r.objOrder))}
	for _, s := range r.docOrder {
		if e, ok := r.documentEntry(s, counts); ok {
			sec.Documents = append(sec.Documents, e)
		}
		if release {
			s.release()
		}
	}
	for i, s := range r.objOrder {
		var e Entry
		var listed bool
		if written != nil && written[i].made {
			e, listed = written[i].Entry, written[i].listed
		} else {
			e, listed = r.objectEntry(s, counts)
			if release {
				s.release()
			}
		}
		if listed {
			sec.Objects = append(sec.Objects, e)
		}
	}
	for _, p := range Phases {
		for _, rule := range r.e.phases[p] {
			sr := SectionRule{UUID: rule.UUID, Description: rule.Description, Phase: rule.Phase, Priority: rule.Priority,
				Scope: r.e.ScopeOf(rule), Sensitive: rule.Sensitive, BuiltIn: rule.BuiltIn, Matched: counts.of(rule)}
			if !rule.BuiltIn {
				sr.Source = manifest.FormatLocation(rule.Source)
			}
			sec.Rules = append(sec.Rules, sr)
		}
	}
	return sec
}

// documentEntry writes a source document's entry, if it has one.
func (r *Run) documentEntry(s *subject, counts matchCounts) (Entry, bool) {
	e, ok := r.entry(s)
	if !ok {
		return Entry{}, false
	}
	idx := s.doc.Index
	e.Document = &idx
	if !s.id.IsZero() {
		id := s.id
		e.Object = &id
	}
	return r.newEntry(e, s.sealed, s.applied, counts), true
}

// objectEntry writes a rendered object's entry, if it has one.
func (r *Run) objectEntry(s *subject, counts matchCounts) (Entry, bool) {
	e, ok := r.entry(s)
	if !ok {
		return Entry{}, false
	}
	id := s.id
	e.Object = &id
	return r.newEntry(e, s.sealed, s.applied, counts), true
}

// matchCounts count, per rule, the subjects its conditions held on; the
// objects' entries may be written on several workers at once.
type matchCounts struct {
	index map[*Rule]int
	n     []atomic.Int64
}

// newMatchCounts starts the counts of a section from the matches sealed
// with their rules (sealRules).
func (r *Run) newMatchCounts() matchCounts {
	c := newMatchCounts(r.e.set)
	for _, rule := range r.e.set.Rules {
		c.addN(rule, r.sealedMatches.of(rule))
	}
	return c
}

func newMatchCounts(set *Set) matchCounts {
	c := matchCounts{index: make(map[*Rule]int, len(set.Rules)), n: make([]atomic.Int64, len(set.Rules))}
	for i, rule := range set.Rules {
		c.index[rule] = i
	}
	return c
}

func (c matchCounts) addN(rule *Rule, n int) {
	if i, ok := c.index[rule]; ok {
		c.n[i].Add(int64(n))
	}
}

func (c matchCounts) add(rule *Rule) { c.addN(rule, 1) }

func (c matchCounts) of(rule *Rule) int {
	if i, ok := c.index[rule]; ok {
		return int(c.n[i].Load())
	}
	return 0
}

// entry is a subject's entry but for its list of rules (newEntry writes
// it from the records).
func (r *Run) entry(s *subject) (SectionEntry, bool) {
	if len(s.applied) == 0 && len(s.sealed) == 0 && len(s.pluginData) == 0 && len(s.traits) == 0 && !s.stopped && len(s.patch) == 0 {
		return SectionEntry{}, false
	}
	loc := s.locate(nil)
	e := SectionEntry{File: loc.File, Line: loc.Line, Scope: s.scope, Traits: s.traits, Stopped: s.stoppedBy}
	if len(s.pluginData) > 0 {
		data := s.pluginData
		if hidden := s.hiddenData(); len(hidden) > 0 {
			data, _ = deepCopy(data).(map[string]any)
			hideData(data, hidden)
		}
		e.PluginData, _ = r.outputValue(data).(map[string]any)
	}
	for _, p := range s.patch {
		if p.hidden {
			p.Value = nil
		} else {
			p.Value = r.outputValue(p.Value)
		}
		e.Patch = append(e.Patch, p)
	}
	return e, true
}

// appliedOutput is the report's list of the rules applied, counted in
// counts.
func (r *Run) appliedOutput(applied []appliedRule, counts matchCounts) []SectionApplied {
	out := make([]SectionApplied, 0, len(applied))
	for _, a := range applied {
		counts.add(a.rule)
		sa := SectionApplied{UUID: a.rule.UUID, Phase: a.phase, Sensitive: a.rule.Sensitive}
		if !a.rule.Sensitive {
			sa.Actions = make([]ActionTaken, 0, len(a.actions))
			for _, act := range a.actions {
				values := make([]any, len(act.args))
				for i, v := range act.args {
					values[i] = r.outputValue(v)
				}
				sa.Actions = append(sa.Actions, ActionTaken{Op: act.op, Args: ActionArgs{params: act.params, values: values}})
			}
		}
		out = append(out, sa)
	}
	return out
}

// appendApplied writes an applied rule as json.Marshal writes its
// SectionApplied (appliedOutput), without building it.
func (r *Run) appendApplied(b []byte, a *appliedRule) ([]byte, bool) {
	b = append(b, `{"uuid":`...)
	b = appendJSONString(b, a.rule.UUID)
	b = append(b, `,"phase":`...)
	b = appendJSONString(b, string(a.phase))
	if a.rule.Sensitive {
		return append(b, `,"sensitive":true,"actions":null}`...), true
	}
	b = append(b, `,"actions":[`...)
	for i := range a.actions {
		if i > 0 {
			b = append(b, ',')
		}
		act := &a.actions[i]
		b = append(b, `{"op":`...)
		b = appendJSONString(b, act.op)
		b = append(b, `,"args":`...)
		var ok bool
		if b, ok = (ActionArgs{params: act.params, values: act.args}).appendJSON(b, r.outputValue); !ok {
			return b, false
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), true
}

// outputValue prepares a value for the report: masked keys hidden, Secret
// values redacted.
func (r *Run) outputValue(v any) any {
	return r.redactValue(r.e.masker.tree(v, levelPlain))
}

// hideData replaces the values at plugin-data paths written by sensitive
// rules (when they still exist) with Masked.
func hideData(data map[string]any, paths []string) {
	for _, p := range paths {
		segs := strings.Split(p, ".")
		cur := data
		for _, seg := range segs[:len(segs)-1] {
			next, _ := cur[seg].(map[string]any)
			if next == nil {
				cur = nil
				break
			}
			cur = next
		}
		if cur != nil {
			if _, ok := cur[segs[len(segs)-1]]; ok {
				cur[segs[len(segs)-1]] = Masked
			}
		}
	}
}

// ActionArgs are an action's resolved arguments by name. They print as a
// JSON object with sorted keys, like a map, without building one for every
// action of every object.
type ActionArgs struct {
	params []param
	values []any
}

// Get returns the argument called name.
func (a ActionArgs) Get(name string) (any, bool) {
	for i, p := range a.params {
		if p.name == name && i < len(a.values) {
			return a.values[i], true
		}
	}
	return nil, false
}

// MarshalJSON prints the arguments as an object with sorted keys.
func (a ActionArgs) MarshalJSON() ([]byte, error) {
	n := min(len(a.params), len(a.values))
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	a.sortOrder(order)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// The report's encoder decides about HTML escaping.
	enc.SetEscapeHTML(false)
	buf.WriteByte('{')
	for k, i := range order {
		if k > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(a.params[i].name); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		buf.WriteByte(':')
		if err := enc.Encode(a.values[i]); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// sortOrder sorts indexes of the arguments by name.
func (a ActionArgs) sortOrder(order []int) {
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(a.params[x].name, a.params[y].name) })
}

// UnmarshalJSON reads arguments printed by MarshalJSON (a merged report).
func (a *ActionArgs) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	a.params, a.values = nil, nil
	for _, k := range sortedKeys(m) {
		a.params = append(a.params, param{name: k})
		a.values = append(a.values, m[k])
	}
	return nil
}
