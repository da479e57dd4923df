package report

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/change"
	"github.com/plumb-ci/plumb/internal/renderdiff"
)

// changeSummary is, in pull-request mode, what the change does to each
// target (package change), shown before any finding; "" outside it.
func changeSummary(r *Report) string {
	sec, err := change.FromSection(r.Sections[change.SectionName])
	if err != nil || sec == nil {
		return ""
	}
	return change.Markdown(sec)
}

// renderedChanges adds, in pull-request mode, what the change deploys: the
// rendered diff of every target that differs from the base, one collapsed
// block per target, within the room left. It reports false when the diff
// did not fit at all.
func (m Markdown) renderedChanges(doc *budgetDoc, r *Report) bool {
	sec, err := renderdiff.FromSection(r.Sections[renderdiff.SectionName])
	if err != nil || sec == nil || len(sec.Targets) == 0 {
		return true
	}
	base := sec.BaseCommit
	if len(base) > 12 {
		base = base[:12]
	}
	header := fmt.Sprintf("#### Rendered changes (%s, against %s)\n\n", plural(len(sec.Targets), "target"), codeSpan(base))
	body := renderdiff.Markdown(sec, doc.room()-len(header)-1)
	if body == "" {
		return false
	}
	doc.force(header + body + "\n")
	return true
}
