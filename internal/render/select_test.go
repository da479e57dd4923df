package render

import (
	"slices"
	"testing"
)

// TestSelectRendersOnlyTheChosenTargets: a --shard share builds only its
// kustomize targets and groups only its plain directories; what it renders
// is what an unselected run renders for those targets.
func TestSelectRendersOnlyTheChosenTargets(t *testing.T) {
	all := renderRepo(t, "testdata/repo", fixtureOptions())
	chosen := map[string]bool{"overlays/prod": true, "apps/plain": true}
	opts := fixtureOptions()
	opts.Select = func(name string) bool { return chosen[name] }
	some := renderRepo(t, "testdata/repo", opts)
	var names []string
	for _, tg := range some.Targets {
		names = append(names, tg.Name)
	}
	if !slices.Equal(names, []string{"apps/plain", "overlays/prod"}) {
		t.Fatalf("targets %v", names)
	}
	for _, tg := range some.Targets {
		for _, full := range all.Targets {
			if full.Name != tg.Name {
				continue
			}
			if len(full.Objects) != len(tg.Objects) {
				t.Errorf("%s: %d objects, %d without selection", tg.Name, len(tg.Objects), len(full.Objects))
			}
			for i := range tg.Objects {
				if tg.Objects[i].ID != full.Objects[i].ID {
					t.Errorf("%s: object %d is %s, %s without selection", tg.Name, i, tg.Objects[i].ID, full.Objects[i].ID)
				}
			}
		}
	}
}
