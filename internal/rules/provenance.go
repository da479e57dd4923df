package rules

import "github.com/plumb-ci/plumb/internal/manifest"

// ruleProvenance locates the fields of an object a preprocess rule changed:
// a field a rule set points at the action that set it (that is the line to
// edit); everything else at its source, as before.
type ruleProvenance struct {
	base manifest.Provenance
	set  []setPath
}

func newRuleProvenance(base manifest.Provenance, set []setPath) manifest.Provenance {
	if len(set) == 0 {
		return base
	}
	return &ruleProvenance{base: base, set: set}
}

// Locate implements manifest.Provenance.
func (p *ruleProvenance) Locate(path manifest.Path) (manifest.Location, bool) {
	for i := len(p.set) - 1; i >= 0; i-- {
		if sp := p.set[i]; len(path) > 0 && path.HasPrefix(sp.path) {
			return sp.loc, true
		}
	}
	if p.base == nil {
		return manifest.Location{}, false
	}
	return p.base.Locate(path)
}
