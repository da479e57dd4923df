package report

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/renderdiff"
)

// Tally counts problems, not findings: the findings that read alike in
// several render targets (a base shared by overlays: the same line, rule
// and message) are one problem, named once with its targets. The summary's
// title and tables, the annotations' counting notice, the review comments
// and the action's outputs all count this way, so they agree.
type Tally struct {
	// Open are the open problems (not suppressed, not fixed) by level.
	Open LevelCounts
	// New are the open problems the change introduces (pull-request mode):
	// those not on the base.
	New LevelCounts
	// Uncompared are, in pull-request mode, open problems without a status
	// (a report merged from a run that had no base): neither called new nor
	// old, they are rows of the table and counted apart.
	Uncompared int
	// Fixed are the problems of the base the change fixes.
	Fixed int
	// Base are the open problems already on the base (status unchanged).
	Base int
	// PR is set in pull-request mode: some finding has a status.
	PR bool
}

// Count tallies a report's findings.
func Count(r *Report) Tally {
	open := byImportance(r.Findings, isOpen)
	var fixed []*finding.Finding
	for i := range r.Findings {
		if f := &r.Findings[i]; f.Suppressed == nil && f.Status == finding.StatusFixed {
			fixed = append(fixed, f)
		}
	}
	return tally(groupAlike(open), groupAlike(fixed))
}

// tally counts groups of open and fixed findings.
func tally(open, fixed []annotation) Tally {
	t := Tally{Fixed: len(fixed), PR: len(fixed) > 0}
	for _, g := range open {
		t.Open.Add(g.Level)
		switch g.Status {
		case finding.StatusUnchanged:
			t.Base++
			t.PR = true
		case "":
			t.Uncompared++
		default:
			t.PR = true
			t.New.Add(g.Level)
		}
	}
	return t
}

// onBase reports whether a finding is already on the base revision: in
// pull-request mode, an open finding the base has too.
func onBase(f *finding.Finding) bool { return f.Status == finding.StatusUnchanged }

// newCounts says the new problems by level: "2 new errors, 8 new
// warnings"; "no new findings" when there is none.
func newCounts(c LevelCounts) string {
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{c.Errors, "new error"}, {c.Warnings, "new warning"}, {c.Notes, "new note"}} {
		if p.n > 0 {
			parts = append(parts, plural(p.n, p.word))
		}
	}
	if len(parts) == 0 {
		return "no new findings"
	}
	return strings.Join(parts, ", ")
}

// prTitle is the title of a pull-request mode summary: what the change
// introduces and fixes, then the backlog as one phrase, "299 findings
// already on main, in the job summary" (where says where they are listed).
func prTitle(t Tally, baseName, where string) string {
	title := newCounts(t.New)
	if t.Fixed > 0 {
		title += fmt.Sprintf(" · %d fixed", t.Fixed)
	}
	if t.Uncompared > 0 {
		title += fmt.Sprintf(" · %d not compared with %s", t.Uncompared, baseName)
	}
	if t.Base > 0 {
		title += fmt.Sprintf(" · %s already on %s", plural(t.Base, "finding"), baseName)
		if where != "" {
			title += ", " + where
		}
	}
	return title
}

// baseName names the revision the change is compared with: Base, else the
// base-ref the report records ("main"; a commit id shortened), else "the
// base".
func (m Markdown) baseName(r *Report) string {
	if m.Base != "" {
		return codeSpan(m.Base)
	}
	sec, err := renderdiff.FromSection(r.Sections[renderdiff.SectionName])
	if err != nil || sec == nil || sec.BaseRef == "" {
		return "the base"
	}
	ref := sec.BaseRef
	if commitID.MatchString(ref) {
		ref = ref[:12]
	}
	return codeSpan(ref)
}

// commitID is a full SHA-1 or SHA-256 commit id.
var commitID = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)
