package report

import (
	"strings"
	"unicode/utf8"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/plumb-ci/plumb/internal/finding"
)

// sarifFixes is a finding's fix as SARIF's fixes: one fix whose artifact
// changes replace the edited lines of each file (the region ends before
// the last line's break, so the inserted text does not carry it either).
// The edits are the finding's own; a joint edit shared with other findings
// stays out, as SARIF consumers apply each result's fix alone.
func sarifFixes(f *finding.Finding) []*sarif.Fix {
	if !f.Fixable() {
		return nil
	}
	fx := sarif.NewFix().WithDescriptionText(sentence(f.Fix.Description))
	for _, e := range f.Fix.Edits {
		oldLines := strings.Split(strings.TrimSuffix(e.Old, "\n"), "\n")
		region := &sarif.Region{
			StartLine:   ptr(e.StartLine),
			StartColumn: ptr(1),
			EndLine:     ptr(e.EndLine),
			EndColumn:   ptr(utf8.RuneCountInString(oldLines[len(oldLines)-1]) + 1),
		}
		inserted := strings.TrimSuffix(e.New, "\n")
		if !strings.HasSuffix(e.Old, "\n") {
			inserted = e.New
		}
		change := sarif.NewArtifactChange(&sarif.ArtifactLocation{URI: ptr(fileURI(e.File)), URIBaseId: ptr(srcRoot)}).
			WithReplacement(sarif.NewReplacement(region).WithInsertedContent(&sarif.ArtifactContent{Text: &inserted}))
		fx.AddArtifactChanges(change)
	}
	return []*sarif.Fix{fx}
}
