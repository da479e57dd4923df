package rules

import (
	"bytes"
	"reflect"
	"sync"
)

// The rules applied in the preprocess phase are final once it ends, and
// their records (the rules, each action's arguments copied) were held from
// rendering through the analyzers to the report. So they are written as
// the JSON of the report's entry when the phase ends, whenever the
// report's redaction is already settled (the redactor built from every
// object's content), and objects given the same rule with the same
// arguments share its JSON.

// sealRules writes the rules applied to each object so far as JSON, once
// the redactor is built: nothing can change what the entry shows of them.
// An object whose rules cannot be written (a value JSON cannot hold) keeps
// its records, and its entry fails as it would have.
func (r *Run) sealRules() {
	r.redactMu.Lock()
	built := r.redact != nil
	r.redactMu.Unlock()
	if !built {
		return
	}
	if r.sealedMatches.index == nil {
		r.sealedMatches = newMatchCounts(r.e.set)
	}
	// Objects of one render target and kind are mostly given the same
	// rules with the same arguments (the target's environment, say): on
	// 10,000 objects, 30,000 rules applied print as about 1,100 distinct
	// ones, each kept once.
	var mu sync.Mutex
	distinct := map[string][]byte{}
	r.parallel(len(r.objOrder), func(i int) {
		s := r.objOrder[i]
		if len(s.applied) == 0 || len(s.sealed) > 0 {
			return
		}
		enc := sealEncoders.Get().(*sealEncoder)
		defer sealEncoders.Put(enc)
		elems := make([][]byte, 0, len(s.applied))
		for k := range s.applied {
			raw, ok := enc.write(r, &s.applied[k])
			if !ok {
				return
			}
			mu.Lock()
			kept, ok := distinct[string(raw)]
			if !ok {
				kept = bytes.Clone(raw)
				distinct[string(kept)] = kept
			}
			mu.Unlock()
			elems = append(elems, kept)
		}
		for _, a := range s.applied {
			r.sealedMatches.add(a.rule)
		}
		s.sealed, s.applied = elems, nil
	})
}

// sealEncoder writes one applied rule at a time into a reused buffer.
type sealEncoder struct {
	buf []byte
}

// write returns an applied rule's JSON as json.Marshal writes its
// SectionApplied (valid until the next write); false when it cannot be
// written.
func (e *sealEncoder) write(r *Run, a *appliedRule) ([]byte, bool) {
	raw, ok := r.appendApplied(e.buf[:0], a)
	e.buf = raw[:0]
	return raw, ok
}

var sealEncoders = sync.Pool{New: func() any { return new(sealEncoder) }}

// sharePluginData makes subjects whose plugin data are equal share one
// mapping until a main rule writes to theirs (pluginParent copies it
// first). The built-in rules give every object of a render target the
// same environment and application: on the 10,000-object benchmark
// corpus, 10,000 mappings held from the preprocess phase to the report
// entries became 2,800.
func (r *Run) sharePluginData() {
	keys := make([][]byte, len(r.objOrder))
	r.parallel(len(r.objOrder), func(i int) {
		if pd := r.objOrder[i].pluginData; len(pd) > 0 {
			// A value JSON cannot hold is left unshared. The key need
			// only tell mappings apart.
			if key, ok := appendJSONMap(nil, pd); ok {
				keys[i] = key
			}
		}
	})
	// JSON does not tell every value apart (1 and 1.0): mappings of one
	// JSON are shared only when they are deeply equal.
	distinct := map[string][]map[string]any{}
	for i, key := range keys {
		if key == nil {
			continue
		}
		s := r.objOrder[i]
		shared := false
		for _, m := range distinct[string(key)] {
			if reflect.DeepEqual(m, s.pluginData) {
				s.pluginData, s.pluginShared, shared = m, true, true
				break
			}
		}
		if !shared {
			distinct[string(key)] = append(distinct[string(key)], s.pluginData)
			s.pluginShared = true
		}
	}
}
