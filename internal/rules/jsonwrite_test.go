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
	nil, true, false, 0, -7, int64(1) << 60, int32(-3), uint64(math.MaxUint64), 1.5, -0.0, 1e21, 1e-7, 123456789.125,
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

func TestAppendSectionEntryMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	params := []param{{name: "value"}, {name: "path"}, {name: "<name>"}, {name: "msg"}}
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
		if k%5 != 0 {
			e.Rules = []SectionApplied{}
		}
		for range rng.IntN(3) {
			sa := SectionApplied{UUID: str(), Phase: Phase(str()), Sensitive: rng.IntN(2) == 0}
			if !sa.Sensitive {
				sa.Actions = []ActionTaken{}
				for range rng.IntN(3) {
					n := rng.IntN(len(params) + 1)
					vals := make([]any, rng.IntN(n+1))
					for i := range vals {
						vals[i] = randomJSONValue(rng, 1)
					}
					sa.Actions = append(sa.Actions, ActionTaken{Op: str(), Args: ActionArgs{params: params[:n], values: vals}})
				}
			}
			e.Rules = append(e.Rules, sa)
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
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		got, at, ok := appendSectionEntry(nil, &e)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("entry %d:\n got %s\nwant %s", k, got, want)
		}
		if wantAt := bytes.Index(want, rulesKey); e.Rules != nil && at != wantAt+len(rulesKey) || e.Rules == nil && at != -1 {
			t.Fatalf("entry %d: list of rules at %d, want %d in %s", k, at, wantAt+len(rulesKey), want)
		}
		for i := range e.Rules {
			want, _ := json.Marshal(e.Rules[i])
			var enc sealEncoder
			if got, ok := enc.write(&e.Rules[i]); !ok || !bytes.Equal(got, want) {
				t.Fatalf("applied rule:\n got %s\nwant %s", got, want)
			}
		}
	}
}

// An entry the writer cannot write fails with encoding/json's error.
func TestNewEntryKeepsEncodingJSONErrors(t *testing.T) {
	e := SectionEntry{File: "a.yaml", Rules: []SectionApplied{}, PluginData: map[string]any{"x": math.NaN()}}
	_, want := json.Marshal(e)
	got := newEntry(e, [][]byte{[]byte(`{}`)})
	if want == nil || got.err == nil || got.err.Error() != want.Error() {
		t.Fatalf("newEntry error %v, want %v", got.err, want)
	}
	if _, err := got.MarshalJSON(); err == nil {
		t.Fatal("the entry writes")
	}
}
