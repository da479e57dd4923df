package rules

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// jsonStrings are strings whose JSON takes each of the writer's paths:
// plain, quotes and backslashes, HTML characters, control characters,
// non-ASCII, invalid UTF-8 and line separators.
var jsonStrings = []string{
	"", "plain", `say "hi"`, `C:\path`, "<b>&amp;</b>", "tab\there", "line\nbreak", "\b\f\r\x00\x1f",
	"héllo", "日本", "bad\xffutf8", "sep\u2028\u2029", "\x7f", `"rules":[`,
}

// jsonValues are values of every type rules hold, and some they never
// make, which the writer hands to encoding/json.
var jsonValues = []any{
	nil, true, false, 0, -7, int64(1) << 60, int32(-3), uint64(math.MaxUint64), 1.5, math.Copysign(0, -1), 1e21, 1e-7, 123456789.125,
	float32(2.5), int8(3), uint(9), []string{"a", "<b>"}, map[string]string{"z": "1", "a": "2"},
	json.Number("12"), map[string]any(nil), []any(nil), map[string]any{}, []any{},
	struct {
		A string `json:"a"`
	}{"<x>"},
}

func randomJSONValue(rng *rand.Rand, depth int) any {
	switch n := rng.IntN(10); {
	case depth < 3 && n < 2:
		m := map[string]any{}
		for range rng.IntN(5) {
			m[jsonStrings[rng.IntN(len(jsonStrings))]+string(rune('a'+rng.IntN(26)))] = randomJSONValue(rng, depth+1)
		}
		return m
	case depth < 3 && n < 4:
		l := []any{}
		for range rng.IntN(4) {
			l = append(l, randomJSONValue(rng, depth+1))
		}
		return l
	case n < 7:
		return jsonStrings[rng.IntN(len(jsonStrings))]
	}
	return jsonValues[rng.IntN(len(jsonValues))]
}

// The direct writer writes every value exactly as json.Marshal does.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := append([]any{}, jsonValues...)
	for _, s := range jsonStrings {
		values = append(values, s)
	}
	for range 2000 {
		values = append(values, randomJSONValue(rng, 0))
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendJSON(nil, v)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("appendJSON(%#v) = %s, %v; json.Marshal writes %s", v, got, ok, want)
		}
	}
}

// Values JSON cannot hold make the writer fail, so that the caller falls
// back to encoding/json and its error.
func TestAppendJSONFailsWhereEncodingJSONFails(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), []any{1, math.Inf(-1)}, map[string]any{"a": make(chan int)}} {
		if _, err := json.Marshal(v); err == nil {
			t.Fatalf("json.Marshal(%v) succeeded", v)
		}
		if _, ok := appendJSON(nil, v); ok {
			t.Errorf("appendJSON(%v) succeeded", v)
		}
	}
}

// Entries and sealed rules written from the records are what
// encoding/json writes of the SectionEntry and SectionApplied built from
// them, values masked and redacted alike.
func TestNewEntryMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := NewEngine(&Set{}, Options{}).NewRun()
	params := []param{{name: "value"}, {name: "path"}, {name: "<name>"}, {name: "msg"}, {name: "password"}}
	doc := 2
	for k := range 500 {
		str := func() string { return jsonStrings[rng.IntN(len(jsonStrings))] }
		e := SectionEntry{File: str(), Line: rng.IntN(3), Scope: str(), Stopped: str()}
		if k%3 == 0 {
			e.Object = &manifest.ObjectID{APIVersion: str(), Kind: str(), Namespace: str(), Name: str(), Target: str()}
		}
		if k%4 == 0 {
			e.Document = &doc
		}
		var applied []appliedRule
		for range rng.IntN(3) {
			a := appliedRule{rule: &Rule{UUID: str(), Sensitive: rng.IntN(3) == 0}, phase: Phase(str())}
			for range rng.IntN(3) {
				n := rng.IntN(len(params) + 1)
				act := takenAction{op: str(), params: params[:n]}
				if !a.rule.Sensitive {
					act.args = make([]any, n)
					for i := range act.args {
						act.args[i] = randomJSONValue(rng, 1)
					}
				}
				a.actions = append(a.actions, act)
			}
			applied = append(applied, a)
		}
		for range rng.IntN(3) {
			e.Traits = append(e.Traits, str())
		}
		if m, ok := randomJSONValue(rng, 0).(map[string]any); ok {
			e.PluginData = m
		}
		for range rng.IntN(3) {
			e.Patch = append(e.Patch, PatchOp{Op: str(), Path: str(), Value: randomJSONValue(rng, 1), Rule: str()})
		}
		var sealed [][]byte
		if k%2 == 0 {
			sealed = [][]byte{[]byte(`{"uuid":"sealed"}`)}
		}
		want := e
		want.Rules = r.appliedOutput(applied, matchCounts{})
		wantRaw, err := newEntryReflect(want, sealed).MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		gotRaw, err := r.newEntry(e, sealed, applied, matchCounts{}).MarshalJSON()
		if err != nil || !bytes.Equal(gotRaw, wantRaw) {
			t.Fatalf("entry %d: %v\n got %s\nwant %s", k, err, gotRaw, wantRaw)
		}
		for i, sa := range want.Rules {
			want, _ := json.Marshal(sa)
			var enc sealEncoder
			if got, ok := enc.write(r, &applied[i]); !ok || !bytes.Equal(got, want) {
				t.Fatalf("applied rule:\n got %s\nwant %s", got, want)
			}
		}
	}
}

// An entry the writer cannot write fails with encoding/json's error.
func TestNewEntryKeepsEncodingJSONErrors(t *testing.T) {
	r := NewEngine(&Set{}, Options{}).NewRun()
	e := SectionEntry{File: "a.yaml", PluginData: map[string]any{"x": math.NaN()}}
	want := e
	want.Rules = []SectionApplied{}
	_, wantErr := json.Marshal(want)
	got := r.newEntry(e, [][]byte{[]byte(`{}`)}, nil, matchCounts{})
	if wantErr == nil || got.err == nil || got.err.Error() != wantErr.Error() {
		t.Fatalf("newEntry error %v, want %v", got.err, wantErr)
	}
	if _, err := got.MarshalJSON(); err == nil {
		t.Fatal("the entry writes")
	}
	applied := []appliedRule{{rule: &Rule{UUID: "u"}, actions: []takenAction{{op: "log", params: []param{{name: "msg"}}, args: []any{math.Inf(1)}}}}}
	var enc sealEncoder
	if _, ok := enc.write(r, &applied[0]); ok {
		t.Fatal("a rule with an infinite argument was sealed")
	}
}
