package finding

import (
	"reflect"
	"testing"

	"github.com/plumb-ci/plumb/internal/cache"
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
		{Suppressed: &Suppression{Kind: "config"}},
		{Fix: &Fix{Edits: []Edit{{File: "a"}}}},
		{Fix: &Fix{NoEdit: "why"}},
		{Fix: &Fix{Changes: []Change{{Value: []int{3}}}}}, // a value the codec does not write
	} {
		if err := EncodeFindings(&cache.Encoder{}, []Finding{f}); err == nil {
			t.Errorf("%+v encoded", f)
		}
	}
}
