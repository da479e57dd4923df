package pipeline

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/checks"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/suppress"
)

// A sharded run leaves some findings to plumb merge: those of expect_same
// checks over render targets, which compare the targets of every shard
// (checks/shard_same.go). The shard gives them now what its reported
// findings get (traits, suppressions); Merge adds the ones merging decides
// to the merged report, classifies them in pull-request mode and marks the
// suppressions they use, as the unsharded run does.

// pendingFindings is a section with findings left to plumb merge.
type pendingFindings interface {
	PendingFindings() []finding.Finding
	SetPendingUses(uses [][]int) error
}

// mergedFindings is a merged section with findings merging decided.
type mergedFindings interface {
	MergedFindings() checks.MergedFindings
}

// settlePending gives the checks' pending findings the inspection rules'
// traits and the suppressions, in place, without counting them as uses.
func settlePending(cfg *config.Config, rep *report.Report, rendered *Rendered) []error {
	p, ok := rep.Sections[(*checks.Analyzer)(nil).Name()].(pendingFindings)
	if !ok {
		return nil
	}
	fs := p.PendingFindings()
	if len(fs) == 0 {
		return nil
	}
	applyTraits(fs, rendered.Rules.Traits())
	uses := suppress.Pending(fs, rendered.Render.Targets, suppressOptions(cfg))
	if err := p.SetPendingUses(uses); err != nil {
		return []error{fmt.Errorf("checks: %w", err)}
	}
	return nil
}

// Merge combines the reports of every shard of one run into the report the
// unsharded run writes (report.Merge with SectionMergers), then adds the
// findings that only merging could decide.
func Merge(in []report.ShardReport) (*report.Report, error) {
	out, err := report.Merge(in, SectionMergers())
	if err != nil {
		return nil, err
	}
	m, ok := out.Sections[(*checks.Analyzer)(nil).Name()].(mergedFindings)
	if !ok {
		return out, nil
	}
	decided := m.MergedFindings()
	fs := decided.Head
	if decided.PullRequest {
		fs = classify(fs, decided.Base)
	}
	if len(decided.ConfigSuppressions) > 0 {
		sec, ok := out.Sections[suppress.SectionName].(*suppress.Section)
		if !ok {
			return nil, fmt.Errorf("merged findings select configured suppressions, but the shard reports have no %q section", suppress.SectionName)
		}
		if err := sec.MarkUsed(decided.ConfigSuppressions); err != nil {
			return nil, fmt.Errorf("the %q section: %w", suppress.SectionName, err)
		}
	}
	out.Findings = append(out.Findings, fs...)
	finding.Sort(out.Findings)
	return out, nil
}
