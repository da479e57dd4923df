package checks

import (
	"slices"
	"testing"
)

// TestElementChains asserts the fields an expectation reads in one element
// of a list fact: selects and optional selects, through orValue and
// cel.bind, longest first; reads of other facts and of values are not
// element fields.
func TestElementChains(t *testing.T) {
	for _, c := range []struct {
		src  string
		want map[string][]string
	}{
		{`facts.containers.all(c, c.?securityContext.?privileged.orValue(false) != true)`,
			map[string][]string{"containers": {"securityContext.privileged", "securityContext"}}},
		{`cel.bind(pod, facts.pod == null ? {} : facts.pod, facts.containers.all(c,
			cel.bind(sc, c.?securityContext.orValue({}), sc.?runAsNonRoot.orValue(pod.?runAsNonRoot.orValue(false)) == true ||
			sc.runAsUser > 0)))`,
			map[string][]string{"containers": {"securityContext.runAsNonRoot", "securityContext.runAsUser", "securityContext"}}},
		{`facts.containers.all(c, !sets.intersects(c.?securityContext.?capabilities.?add.orValue([]).map(x, x.upperAscii()), values.forbidden))`,
			map[string][]string{"containers": {"securityContext.capabilities.add", "securityContext.capabilities", "securityContext"}}},
		{`facts.containers.all(c, has(c.resources.limits) && c["resources"]["limits"]["memory"] != "")`,
			map[string][]string{"containers": {"resources.limits.memory", "resources.limits", "resources"}}},
		{`values.x == facts.replicas`, map[string][]string{}},
	} {
		cp := compile(scopeExpect, c.src)
		if len(cp.errs) > 0 {
			t.Fatalf("%s: %v", c.src, cp.errs)
		}
		got := map[string][]string{}
		for fact, ps := range elementChains(cp.ast) {
			for _, p := range ps {
				got[fact] = append(got[fact], p.String())
			}
		}
		for fact, want := range c.want {
			g := slices.Clone(got[fact])
			slices.Sort(g)
			w := slices.Clone(want)
			slices.Sort(w)
			if !slices.Equal(g, w) || len(got[fact]) > 0 && len(got[fact][0]) < len(got[fact][len(got[fact])-1]) {
				t.Errorf("%s: %s: %v, want %v (longest first)", c.src, fact, got[fact], want)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: facts %v, want %v", c.src, got, c.want)
		}
	}
}
