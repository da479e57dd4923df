package fix

import (
	"fmt"
	"reflect"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/report"
)

// maxSharedItems bounds the list items of another object tried for the
// field a fix sets (the container it may render at another index).
const maxSharedItems = 64

// sharers guards fixes whose value is the object's own (Fix.ObjectValue):
// an edit of a line that several rendered objects take the field from
// changes them all, so each must have the same finding and the same fix.
// A base's request lowered to the dev overlay's limit would also lower
// the request of production, whose limit allows it.
type sharers struct {
	// byName are the rendered objects by kind and name as written (an
	// overlay's name prefix aside).
	byName map[[2]string][]*manifest.Object
	// findings are the open findings with such a fix, by object, rule and
	// path (a sharer's must be one: the same fix).
	findings map[string]*finding.Finding
}

func newSharers(targets []*render.Target, fs []finding.Finding) *sharers {
	s := &sharers{byName: map[[2]string][]*manifest.Object{}, findings: map[string]*finding.Finding{}}
	for _, t := range targets {
		for _, o := range t.Objects {
			k := [2]string{o.ID.Kind, o.WrittenName()}
			s.byName[k] = append(s.byName[k], o)
		}
	}
	for i := range fs {
		if f := &fs[i]; f.Fix != nil && f.Fix.ObjectValue && report.IsOpen(f) {
			s.findings[findingKey(f.Object, f.RuleID, f.Path)] = f
		}
	}
	return s
}

func findingKey(id manifest.ObjectID, rule string, p manifest.Path) string {
	return id.Key() + "\x00" + rule + "\x00" + p.String()
}

// conflict names an object that renders a field f's fix sets from the
// same source line without the same fix ("" when there is none).
func (s *sharers) conflict(f *finding.Finding, obj *manifest.Object) string {
	for _, ch := range f.Fix.Changes {
		loc, exact := obj.Locate(ch.Path)
		cur, ok := obj.Get(ch.Path)
		if !exact || !ok {
			continue // resolving refuses it, or adds keys no one else has
		}
		for _, o := range s.byName[[2]string{obj.ID.Kind, obj.WrittenName()}] {
			if o == obj {
				continue
			}
			for _, p := range itemVariants(o, ch.Path) {
				l, ex := o.Locate(p)
				v, _ := o.Get(p)
				if !ex || l.File != loc.File || l.Line != loc.Line || l.Column != loc.Column || !reflect.DeepEqual(normalize(v), normalize(cur)) {
					continue // not rendered from that line as it is written
				}
				if g := s.findings[findingKey(o.ID, f.RuleID, p)]; g == nil || !sameFix(g.Fix, ch, p) {
					return fmt.Sprintf("%s:%d is also the source of %s of %s, which the edit would change too, and whose own fix is another or none: set the value where the objects differ (an overlay's patch)",
						loc.File, loc.Line, p, o.ID)
				}
			}
		}
	}
	return ""
}

// sameFix reports whether fx sets the field at p of its object to the
// value ch sets.
func sameFix(fx *finding.Fix, ch finding.Change, p manifest.Path) bool {
	if fx == nil {
		return false
	}
	for _, c := range fx.Changes {
		if c.Op == ch.Op && c.Path.Equal(p) && reflect.DeepEqual(normalize(c.Value), normalize(ch.Value)) {
			return true
		}
	}
	return false
}

// itemVariants are p, and p with its first list index replaced by each
// index of that list in o: an overlay's patch may add a container before
// the base's, so the base's container sits at another index there.
func itemVariants(o *manifest.Object, p manifest.Path) []manifest.Path {
	for k, seg := range p {
		if !seg.IsIndex {
			continue
		}
		items, _ := o.Get(p[:k])
		list, _ := items.([]any)
		out := []manifest.Path{p}
		for j := range min(len(list), maxSharedItems) {
			if j != seg.Index {
				q := p.Child() // a copy
				q[k] = manifest.Index(j)
				out = append(out, q)
			}
		}
		return out
	}
	return []manifest.Path{p}
}
