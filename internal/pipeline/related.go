package pipeline

import (
	"slices"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// relateSources adds the secondary places an object's provenance knows for
// the field a finding is at: a finding on a chart's values line also names
// the template line that printed the value.
func relateSources(findings []finding.Finding, targets []*render.Target) {
	byID := map[manifest.ObjectID]manifest.RelatedProvenance{}
	for _, t := range targets {
		for _, o := range t.Objects {
			if rp, ok := o.Origin.(manifest.RelatedProvenance); ok {
				byID[o.ID] = rp
			}
		}
	}
	if len(byID) == 0 {
		return
	}
	for i := range findings {
		f := &findings[i]
		rp := byID[f.Object]
		if rp == nil {
			continue
		}
		if loc, _ := rp.Locate(f.Path); loc != f.Location {
			continue // the finding points elsewhere (a nearer field, a rule)
		}
		for _, r := range rp.Related(f.Path) {
			rel := finding.Related{Location: r.Location, Message: r.Message}
			if !slices.Contains(f.Related, rel) {
				f.Related = append(f.Related, rel)
			}
		}
	}
}
