package checks

import (
	"reflect"
	"testing"

	"github.com/plumb-ci/plumb/internal/cache"
)

// A packed result reads back as it was made, every field and the
// difference between a nil and an empty list included.
func TestAgentListKeepsEveryField(t *testing.T) {
	msg, excl := "no limit on <web>", "host.kind == 'Job'"
	agents := []*AgentResult{
		{AgentID: "t1", Status: StatusExecuted, application: "shop",
			Facts:  []FactResult{{CheckID: "C1", Name: "limits", Value: map[string]any{"cpu": "1", "n": int64(2), "f": 1.5, "l": []any{true, nil}}}},
			Values: []ResolvedValue{{Name: "max", Value: 3, Customized: true}, {Name: "names", Value: []string{"a"}}},
			Evaluations: []Evaluation{
				{Name: "has_limits", Type: Expect, ReturnValue: false, FailureMessage: &msg},
				{Name: "same_image", Type: ExpectSame, ReturnValue: "nginx:1", key: "snginx:1"},
				{Name: "level", Type: ExpectEnum, ReturnValue: Warning, FailureMessage: &msg},
				{Name: "broken", Type: Expect, Error: &EvalError{Type: "runtime", Message: "no such key"}},
				{Name: "odd", Type: "expect_other", ReturnValue: map[string]string{"k": "v"}},
			}},
		{AgentID: "t1", Status: StatusExecuted, Facts: []FactResult{}, Values: []ResolvedValue{}, Evaluations: []Evaluation{}},
		{AgentID: "t2", Status: StatusExcluded, ExcludeExpression: &excl},
		{AgentID: "t3", ErrorType: ErrFactGathering, Message: msgFactGatheringError,
			Facts: []FactResult{{CheckID: "C1", Name: "limits", Error: &FactError{Type: "missing", Message: "no containers"}}}},
		{AgentID: "t4", ErrorType: ErrTimeout, Message: msgTimeout},
		{AgentID: "t5", Status: "queued"},
		// A value the codec does not write is kept as it is.
		{AgentID: "t6", Status: StatusExecuted, Evaluations: []Evaluation{{Name: "x", Type: Expect, ReturnValue: struct{ N int }{1}}}},
	}
	l := NewAgentList(agents...)
	if l.Len() != len(agents) {
		t.Fatalf("%d results, want %d", l.Len(), len(agents))
	}
	i := 0
	for got := range l.All() {
		if !reflect.DeepEqual(got, agents[i]) {
			t.Errorf("result %d:\n got %#v\nwant %#v", i, got, agents[i])
		}
		if at := l.At(i); !reflect.DeepEqual(at, agents[i]) {
			t.Errorf("At(%d) = %#v", i, at)
		}
		i++
	}
	if i != len(agents) {
		t.Errorf("All gave %d results", i)
	}
	// What aggregation decodes is the same without the facts and values,
	// and reading past a result ends where decoding it ends.
	d := cache.NewDecoder(nil)
	for i, p := range l.agents {
		want := *agents[i]
		want.Facts, want.Values = nil, nil
		if got := p.unpackVerdict(d); !reflect.DeepEqual(got, &want) {
			t.Errorf("result %d without facts and values:\n got %#v\nwant %#v", i, got, &want)
		}
		if p.live != nil {
			continue
		}
		d.Reset(p.data)
		skipAgent(d)
		if err := d.Done(); err != nil {
			t.Errorf("result %d: reading past it: %v", i, err)
		}
	}
	if l.agents[0].live != nil || l.agents[6].live == nil {
		t.Errorf("only the result with a value the codec cannot write is kept unpacked")
	}

	// A decoded result is a copy.
	a := l.At(0)
	a.Facts = nil
	if l.At(0).Facts == nil {
		t.Error("changing a decoded result changed the list")
	}
	for i, want := range agents {
		l.dropFacts(i)
		w := *want
		w.Facts = nil
		if got := l.At(i); !reflect.DeepEqual(got, &w) {
			t.Errorf("result %d without its facts:\n got %#v\nwant %#v", i, got, &w)
		}
	}
}

// The results of one target share one buffer, and a packed result costs a
// few bytes beyond its id: the common case (executed, one expectation,
// true) must stay small, or the report holds tens of megabytes again.
func TestPackedResultIsSmall(t *testing.T) {
	a := &AgentResult{AgentID: "sites/s000/overlays/dev:apps/v1/Deployment/ns/web", Status: StatusExecuted,
		Values: []ResolvedValue{}, Evaluations: []Evaluation{{Name: "cpu_requested", Type: Expect, ReturnValue: true}}}
	l := NewAgentList(a, a, a)
	if n := len(l.agents[0].data); n > 24 {
		t.Errorf("a passing result packs to %d bytes", n)
	}
	if &l.agents[0].data[:1][0] == &l.agents[1].data[:1][0] || cap(l.agents[0].data) != len(l.agents[0].data) {
		t.Error("results overlap, or one could grow into the next")
	}
}

// A cached result that does not decode makes the whole entry unusable
// rather than a panic when the report is written.
func TestCorruptCachedResultIsRejected(t *testing.T) {
	e := &cache.Encoder{}
	e.Uint(1)           // one pair
	e.String("C1")      // check
	e.Bool(false)       // not excluded
	e.Raw([]byte{0xff}) // a result whose flags promise parts that are not there
	d := cache.NewDecoder(e.Bytes())
	decodeCachedTarget(d, "t1")
	if d.Err() == nil {
		t.Error("a corrupt result was accepted")
	}
}
