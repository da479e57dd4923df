package finding

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/cache/cachetest"
	"github.com/plumb-ci/plumb/internal/manifest"
)

func TestFindingCodecRoundTrip(t *testing.T) {
	in := []Finding{
		{Fingerprint: "f1", Source: SourceCheck, RuleID: "check/X", Level: Warning, Title: "t", Message: "m", Help: "h",
			Object: ObjectID{APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "p", Target: "apps/web"},
			Path:   manifest.MustParsePath("spec.containers[0].image"), Location: Location{File: "a.yaml", Line: 3, Column: 5, EndLine: 3, EndColumn: 9},
			Related: []Related{{Location: Location{File: "b.yaml", Line: 1}, Message: "the template line"}},
			Diff:    "--- a\n+++ b\n", InputError: true, ConfigError: true, Key: "k", Tags: []string{"security"},
			Fix: &Fix{Description: "set it", Changes: []Change{{Op: ChangeSet, Path: manifest.MustParsePath("spec.x"), Value: map[string]any{"a": int64(1)}}, {Op: ChangeRename, Path: manifest.Path{}, To: "y"}}}},
		{RuleID: "manifest/x", Path: manifest.Path{}, Tags: []string{}, Fix: &Fix{Changes: []Change{}}},
		{RuleID: "nothing"},
	}
	e := &cache.Encoder{}
	if err := EncodeFindings(e, in); err != nil {
		t.Fatal(err)
	}
	d := cache.NewDecoder(e.Bytes())
	out := DecodeFindings(d)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip changed the findings:\n in: %#v\nout: %#v", in, out)
	}
}

func TestFindingCodecRefusesLaterStages(t *testing.T) {
	for _, f := range []Finding{
		{Status: StatusNew},
		{Side: SideBase},
		{Suppressed: &Suppression{Kind: "config"}},
		{Fix: &Fix{Edits: []Edit{{File: "a"}}}},
		{Fix: &Fix{NoEdit: "why"}},
		{Fix: &Fix{ObjectValue: true}},
		{Fix: &Fix{Changes: []Change{{Value: []int{3}}}}}, // a value the codec does not write
	} {
		if err := EncodeFindings(&cache.Encoder{}, []Finding{f}); err == nil {
			t.Errorf("%+v encoded", f)
		}
	}
}

// laterStages are the fields only stages after the analyzers set: the
// codec refuses a finding that has them (TestFindingCodecRefusesLaterStages).
var laterStages = map[string]bool{"Finding.Status": true, "Finding.Side": true, "Finding.Suppressed": true,
	"Fix.Edits": true, "Fix.Joint": true, "Fix.Span": true, "Fix.NoEdit": true,
	"Fix.ObjectValue": true}

// Every field the codec is meant to keep comes back: the filled finding
// and rule round-trip whole, whatever fields the types gain.
func TestCodecKeepsEveryField(t *testing.T) {
	var f Finding
	var r Rule
	fl := &cachetest.Filler{Skip: laterStages, Special: map[reflect.Type]func(int) reflect.Value{
		// A segment is a key or an index, not both.
		reflect.TypeFor[Path](): func(n int) reflect.Value {
			return reflect.ValueOf(Path{manifest.Key(fmt.Sprintf("k%d", n)), manifest.Index(n)})
		},
	}}
	fl.Fill(&f)
	fl.Fill(&r)
	e := &cache.Encoder{}
	if err := EncodeFindings(e, []Finding{f}); err != nil {
		t.Fatal(err)
	}
	EncodeRules(e, []Rule{r})
	d := cache.NewDecoder(e.Bytes())
	out, rules := DecodeFindings(d), DecodeRules(d)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || !reflect.DeepEqual(f, out[0]) {
		t.Errorf("a finding lost fields in the cache codec (write them in encodeFinding and decodeFinding):\n in: %+v\nout: %+v", f, out)
	}
	if len(rules) != 1 || !reflect.DeepEqual(r, rules[0]) {
		t.Errorf("a rule lost fields in the cache codec (write them in EncodeRules and DecodeRules):\n in: %+v\nout: %+v", r, rules)
	}
}
