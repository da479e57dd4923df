package checks

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"sync"

	"github.com/plumb-ci/plumb/internal/cache"
)

// A check's result lists every target it ran on: on the 10,000-object
// benchmark corpus about 93,000 per-target results, nearly all of them
// "executed, one expectation, true". As Go values (an AgentResult, its
// evaluations, and the facts of the targets that failed, which share
// subtrees of the rendered objects) they were the largest part of the
// report — about 50 MB, keeping rendered content alive after the analyzers
// were done. They are kept encoded instead, a few dozen bytes each, and
// decoded one at a time by what reads them: aggregation, expect_same, the
// JSON report, the shard section, plumb checks eval's text.

// AgentList is a check's per-target results (Wanda's
// agents_check_results), in order, each kept encoded.
type AgentList struct {
	agents []packedAgent
}

// packedAgent is one target's result.
type packedAgent struct {
	// id is the AgentID: the target's id, shared with the target.
	id string
	// data is the rest of the result (encodeAgentResult); nil when live is set.
	data []byte
	// live is a result holding a value the codec cannot write (a Go type
	// no gatherer returns today), kept as it is.
	live *AgentResult
}

// NewAgentList keeps the given results, in order.
func NewAgentList(agents ...*AgentResult) AgentList {
	return AgentList{agents: packAgents(agents)}
}

// Len is the number of results.
func (l AgentList) Len() int { return len(l.agents) }

// At decodes the i-th result (a copy: changing it does not change the
// list).
func (l AgentList) At(i int) *AgentResult {
	return l.agents[i].unpack(cache.NewDecoder(nil))
}

// All decodes the results one at a time, in order; each is a copy.
func (l AgentList) All() iter.Seq[*AgentResult] {
	return func(yield func(*AgentResult) bool) {
		d := cache.NewDecoder(nil)
		for _, p := range l.agents {
			if !yield(p.unpack(d)) {
				return
			}
		}
	}
}

// Verdicts decodes the results one at a time, in order, without their
// facts and values (read past, not built): for readers of the evaluations.
func (l AgentList) Verdicts() iter.Seq[*AgentResult] {
	return func(yield func(*AgentResult) bool) {
		d := cache.NewDecoder(nil)
		for _, p := range l.agents {
			if !yield(p.unpackVerdict(d)) {
				return
			}
		}
	}
}

// dropFacts removes the i-th result's facts, keeping everything else.
func (l AgentList) dropFacts(i int) {
	p := &l.agents[i]
	if p.live != nil {
		c := *p.live
		c.Facts = nil
		p.live = &c
		return
	}
	if data, ok := encodedWithoutFacts(p.data); ok {
		p.data = data
	}
}

// encodedWithoutFacts returns an encoded result without its facts (a new
// buffer; the old one is shared with the target's other results), or false
// when it has none.
func encodedWithoutFacts(data []byte) ([]byte, bool) {
	d := cache.NewDecoder(data)
	flags := d.Uint()
	if flags&agentHasFacts == 0 {
		return nil, false
	}
	headerStart := d.Offset()
	skipHeader(d, flags)
	factsStart := d.Offset()
	skipFactsAndValues(d, flags&^agentHasValues)
	factsEnd := d.Offset()
	if d.Err() != nil {
		panic(fmt.Sprintf("checks: a packed result does not decode: %v", d.Err()))
	}
	out := binary.AppendUvarint(make([]byte, 0, len(data)), flags&^agentHasFacts)
	out = append(out, data[headerStart:factsStart]...)
	return append(out, data[factsEnd:]...), true
}

// MarshalJSON writes the list as a JSON array of AgentResults (what a
// []*AgentResult marshals to).
func (l AgentList) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	d := cache.NewDecoder(nil)
	for i, p := range l.agents {
		if i > 0 {
			buf.WriteByte(',')
		}
		b, err := json.Marshal(p.unpack(d))
		if err != nil {
			return nil, err
		}
		buf.Write(b)
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// Each implements jsonstream.List: the JSON report writes the list one
// result at a time.
func (l AgentList) Each(yield func(elem any) error) error {
	d := cache.NewDecoder(nil)
	for _, p := range l.agents {
		if err := yield(p.unpack(d)); err != nil {
			return err
		}
	}
	return nil
}

// encoders are the scratch encoders results are packed with.
var encoders = sync.Pool{New: func() any { return &cache.Encoder{} }}

// packAgents encodes results into one buffer (one allocation for a
// target's results, which its checks' lists then share).
func packAgents(agents []*AgentResult) []packedAgent {
	out := make([]packedAgent, len(agents))
	e := encoders.Get().(*cache.Encoder)
	defer encoders.Put(e)
	e.Reset()
	ends := make([]int, len(agents))
	for i, a := range agents {
		start := e.Len()
		if !encodeAgentResult(e, a) {
			e.Truncate(start)
			out[i].live = a
		}
		ends[i] = e.Len()
	}
	buf := bytes.Clone(e.Bytes())
	start := 0
	for i, a := range agents {
		out[i].id = a.AgentID
		if out[i].live == nil {
			out[i].data = buf[start:ends[i]:ends[i]]
		}
		start = ends[i]
	}
	return out
}

// unpack decodes the result with d (whose interned strings it shares).
func (p packedAgent) unpack(d *cache.Decoder) *AgentResult { return p.decode(d, true) }

// unpackVerdict decodes the result without its facts and values.
func (p packedAgent) unpackVerdict(d *cache.Decoder) *AgentResult { return p.decode(d, false) }

func (p packedAgent) decode(d *cache.Decoder, withFacts bool) *AgentResult {
	if p.live != nil {
		c := *p.live
		if !withFacts {
			c.Facts, c.Values = nil, nil
		}
		return &c
	}
	d.Reset(p.data)
	a := decodeAgent(d, p.id, withFacts)
	if err := d.Done(); err != nil {
		// The bytes were written by encodeAgentResult in this process (or read
		// from the cache and checked by skipAgent when loaded).
		panic(fmt.Sprintf("checks: the result of %s does not decode: %v", p.id, err))
	}
	return a
}

// The first byte of an encoded result: its status and which parts follow.
const (
	statusMask     = 0b11
	statusNone     = 0
	statusExecuted = 1
	statusExcluded = 2
	statusOther    = 3

	agentHasError       = 1 << 2
	agentHasApplication = 1 << 3
	agentHasExclude     = 1 << 4
	agentHasFacts       = 1 << 5
	agentHasValues      = 1 << 6
	agentHasEvaluations = 1 << 7
)

// The first byte of an encoded evaluation: its type and which parts follow.
const (
	evalTypeMask   = 0b11
	evalExpect     = 0
	evalExpectSame = 1
	evalExpectEnum = 2
	evalTypeOther  = 3

	evalHasFailureMessage = 1 << 2
	evalHasError          = 1 << 3
	evalHasKey            = 1 << 4
)

// encodeAgentResult encodes a result but its AgentID (the target's); false when
// a value does not encode (what was written is then to be dropped).
func encodeAgentResult(e *cache.Encoder, a *AgentResult) bool {
	var flags uint64
	switch a.Status {
	case "":
		flags = statusNone
	case StatusExecuted:
		flags = statusExecuted
	case StatusExcluded:
		flags = statusExcluded
	default:
		flags = statusOther
	}
	if a.ErrorType != "" || a.Message != "" {
		flags |= agentHasError
	}
	if a.application != "" {
		flags |= agentHasApplication
	}
	if a.ExcludeExpression != nil {
		flags |= agentHasExclude
	}
	if a.Facts != nil {
		flags |= agentHasFacts
	}
	if a.Values != nil {
		flags |= agentHasValues
	}
	if a.Evaluations != nil {
		flags |= agentHasEvaluations
	}
	e.Uint(flags)
	if flags&statusMask == statusOther {
		e.String(a.Status)
	}
	if flags&agentHasError != 0 {
		e.String(a.ErrorType)
		e.String(a.Message)
	}
	if flags&agentHasApplication != 0 {
		e.String(a.application)
	}
	if flags&agentHasExclude != 0 {
		e.String(*a.ExcludeExpression)
	}
	if flags&agentHasFacts != 0 {
		e.Uint(uint64(len(a.Facts)))
		for _, f := range a.Facts {
			e.String(f.CheckID)
			e.String(f.Name)
			if e.Value(f.Value) != nil {
				return false
			}
			e.Bool(f.Error != nil)
			if f.Error != nil {
				e.String(f.Error.Type)
				e.String(f.Error.Message)
			}
		}
	}
	if flags&agentHasValues != 0 {
		e.Uint(uint64(len(a.Values)))
		for _, v := range a.Values {
			e.String(v.Name)
			if e.Value(v.Value) != nil {
				return false
			}
			e.Bool(v.Customized)
		}
	}
	if flags&agentHasEvaluations != 0 {
		e.Uint(uint64(len(a.Evaluations)))
		for i := range a.Evaluations {
			if !writeEvaluation(e, &a.Evaluations[i]) {
				return false
			}
		}
	}
	return true
}

func writeEvaluation(e *cache.Encoder, ev *Evaluation) bool {
	var flags uint64
	switch ev.Type {
	case Expect:
		flags = evalExpect
	case ExpectSame:
		flags = evalExpectSame
	case ExpectEnum:
		flags = evalExpectEnum
	default:
		flags = evalTypeOther
	}
	if ev.FailureMessage != nil {
		flags |= evalHasFailureMessage
	}
	if ev.Error != nil {
		flags |= evalHasError
	}
	if ev.key != "" {
		flags |= evalHasKey
	}
	e.Uint(flags)
	e.String(ev.Name)
	if flags&evalTypeMask == evalTypeOther {
		e.String(string(ev.Type))
	}
	if e.Value(ev.ReturnValue) != nil {
		return false
	}
	if flags&evalHasFailureMessage != 0 {
		e.String(*ev.FailureMessage)
	}
	if flags&evalHasError != 0 {
		e.String(ev.Error.Type)
		e.String(ev.Error.Message)
	}
	if flags&evalHasKey != 0 {
		e.String(ev.key)
	}
	return true
}

// decodeAgent decodes what encodeAgentResult wrote; d reports corruption.
// Without withFacts the facts and values are read past, not built: what
// aggregation and the expect_same findings read is the rest.
func decodeAgent(d *cache.Decoder, id string, withFacts bool) *AgentResult {
	a := &AgentResult{AgentID: id}
	flags := d.Uint()
	switch flags & statusMask {
	case statusExecuted:
		a.Status = StatusExecuted
	case statusExcluded:
		a.Status = StatusExcluded
	case statusOther:
		a.Status = d.String()
	}
	if flags&agentHasError != 0 {
		a.ErrorType, a.Message = d.String(), d.String()
	}
	if flags&agentHasApplication != 0 {
		a.application = d.String()
	}
	if flags&agentHasExclude != 0 {
		s := d.String()
		a.ExcludeExpression = &s
	}
	if !withFacts {
		skipFactsAndValues(d, flags)
	} else if flags&agentHasFacts != 0 {
		a.Facts = make([]FactResult, d.Len(4))
		for i := range a.Facts {
			f := &a.Facts[i]
			f.CheckID, f.Name = d.String(), d.String()
			f.Value = d.Value()
			if d.Bool() {
				f.Error = &FactError{Type: d.String(), Message: d.String()}
			}
		}
	}
	if withFacts && flags&agentHasValues != 0 {
		a.Values = make([]ResolvedValue, d.Len(3))
		for i := range a.Values {
			v := &a.Values[i]
			v.Name = d.String()
			v.Value = d.Value()
			v.Customized = d.Bool()
		}
	}
	if flags&agentHasEvaluations != 0 {
		a.Evaluations = make([]Evaluation, d.Len(3))
		for i := range a.Evaluations {
			readEvaluation(d, &a.Evaluations[i])
		}
	}
	return a
}

// skipAgent reads past an encoded result, building nothing: whether a
// cached entry decodes is known without decoding its results, which stay
// encoded until something reads them.
func skipAgent(d *cache.Decoder) {
	flags := d.Uint()
	skipHeader(d, flags)
	skipFactsAndValues(d, flags)
	if flags&agentHasEvaluations != 0 {
		for range d.Len(3) {
			skipEvaluation(d)
		}
	}
}

// skipHeader reads past the status, error, application and exclusion of
// an encoded result (what follows its flags, up to its facts).
func skipHeader(d *cache.Decoder, flags uint64) {
	if flags&statusMask == statusOther {
		d.Skip()
	}
	if flags&agentHasError != 0 {
		d.Skip()
		d.Skip()
	}
	if flags&agentHasApplication != 0 {
		d.Skip()
	}
	if flags&agentHasExclude != 0 {
		d.Skip()
	}
}

// skipEvaluation reads past what readEvaluation reads.
func skipEvaluation(d *cache.Decoder) {
	flags := d.Uint()
	d.Skip() // name
	if flags&evalTypeMask == evalTypeOther {
		d.Skip()
	}
	d.SkipValue()
	if flags&evalHasFailureMessage != 0 {
		d.Skip()
	}
	if flags&evalHasError != 0 {
		d.Skip()
		d.Skip()
	}
	if flags&evalHasKey != 0 {
		d.Skip()
	}
}

// skipFactsAndValues reads past the facts and values of an encoded result.
func skipFactsAndValues(d *cache.Decoder, flags uint64) {
	if flags&agentHasFacts != 0 {
		for range d.Len(4) {
			d.Skip()
			d.Skip()
			d.SkipValue()
			if d.Bool() {
				d.Skip()
				d.Skip()
			}
		}
	}
	if flags&agentHasValues != 0 {
		for range d.Len(3) {
			d.Skip()
			d.SkipValue()
			d.Bool()
		}
	}
}

func readEvaluation(d *cache.Decoder, ev *Evaluation) {
	flags := d.Uint()
	ev.Name = d.String()
	switch flags & evalTypeMask {
	case evalExpect:
		ev.Type = Expect
	case evalExpectSame:
		ev.Type = ExpectSame
	case evalExpectEnum:
		ev.Type = ExpectEnum
	default:
		ev.Type = ExpectationType(d.String())
	}
	ev.ReturnValue = d.Value()
	if flags&evalHasFailureMessage != 0 {
		s := d.String()
		ev.FailureMessage = &s
	}
	if flags&evalHasError != 0 {
		ev.Error = &EvalError{Type: d.String(), Message: d.String()}
	}
	if flags&evalHasKey != 0 {
		ev.key = d.String()
	}
}
