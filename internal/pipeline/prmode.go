package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/change"
	"github.com/plumb-ci/plumb/internal/checks"
	"github.com/plumb-ci/plumb/internal/compare"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/gitrev"
	"github.com/plumb-ci/plumb/internal/kubevirt"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/renderdiff"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/rules"
	"github.com/plumb-ci/plumb/internal/suppress"
)

// checkPR is pull-request mode: the working tree (the head) and the base
// revision, read from git, go through the same stages concurrently; head
// findings are then classified new or unchanged against the base's by
// fingerprint, base findings the head no longer has are added as fixed,
// and the rendered objects of both are diffed per target.
func checkPR(ctx context.Context, cfg *config.Config, engines engineFactory, store *cache.Store) (*Result, error) {
	headFS, err := repoFS(cfg.Root)
	if err != nil {
		return nil, err
	}
	// Listing the base is quick; doing it first means a missing base
	// commit is reported before any work is done.
	tree, err := gitrev.Open(ctx, cfg.Root, cfg.BaseRef, gitrev.Options{MaxFileBytes: cfg.Limits.MaxFileBytes})
	if err != nil {
		return nil, fmt.Errorf("--base-ref: %w", err)
	}
	defer tree.Close()
	baseCfg := *cfg
	baseCfg.Paths = basePaths(tree, cfg.Paths)
	// One rules engine for both revisions: like the analyzers, the rules
	// come from the working tree.
	engine, ruleProblems, err := RulesEngine(cfg)
	if err != nil {
		return nil, err
	}

	var (
		wg               sync.WaitGroup
		head, base       *Rendered
		headRes, baseRes *Result
	)
	// Files the pull request does not change are parsed once for both, and
	// targets it does not change are built once.
	// Only the base revision's .plumb.yaml may widen the hosts the
	// workflow allows: the pull request's own is not trusted with that.
	fetcher, warning := newFetcher(cfg, cfg.Remote.FlagHosts.Merge(baseRemoteHosts(cfg, manifest.ContentFS(tree))), store)
	share := shared{parses: manifest.NewParseCache(), builds: render.NewBuildCache(), store: store, fetcher: fetcher}
	// Both revisions are analysed with the working tree's configuration.
	analysisKey := runAnalysisKey(cfg, store)
	// The head's analysis reads the base's objects (the oldObject of
	// admission policies): it starts once the base is rendered.
	baseRendered := make(chan struct{})
	wg.Add(2)
	go func() {
		defer wg.Done()
		head = loadFS(ctx, cfg, headFS, share, engine)
		head.analysisKey = analysisKey
		head.Findings = append(head.Findings, ruleProblems...)
		<-baseRendered
		head.baseTargets = base.Render.Targets
		headRes = checkRevision(ctx, cfg, head, headFS, engines)
	}()
	go func() {
		defer wg.Done()
		base = loadFS(ctx, &baseCfg, manifest.ContentFS(tree), share, engine)
		close(baseRendered)
		base.analysisKey = analysisKey
		base.revision, _ = revisionKey(&baseCfg, base, len(ruleProblems) == 0)
		base.reuseAnalysis = true
		// The engines are configured from the working tree: both revisions
		// are judged by the pull request's rules, so a finding is new
		// because the manifests changed, not because a rule did.
		baseRes = checkRevision(ctx, cfg, base, headFS, engines)
	}()
	wg.Wait()

	rep := headRes.Report
	rep.Fetched = reportFetched(fetcher)
	rep.Findings = classify(rep.Findings, baseRes.Report.Findings)
	judgeChange(rep, base, head)
	resolveFixes(cfg, rep, head)
	rep.Rules = append(rep.Rules, baseRes.Report.Rules...) // describes the fixed findings' rules
	sec := &renderdiff.Section{BaseRef: tree.Ref, BaseCommit: tree.Commit,
		Targets: renderdiff.Compute(base.Render.Targets, head.Render.Targets)}
	if sec.Targets == nil {
		sec.Targets = []renderdiff.Target{}
	}
	rep.Sections[renderdiff.SectionName] = sec
	res := &Result{Report: rep, Errors: headRes.Errors, Rules: headRes.Rules, baseSections: baseRes.Report.Sections, baseCommit: tree.Commit,
		reusedBuilds: share.builds.Reused(), Warnings: appendWarning(nil, warning)}
	for _, err := range baseRes.Errors {
		res.Errors = append(res.Errors, fmt.Errorf("base %s: %w", cfg.BaseRef, err))
	}
	return res, nil
}

// judgeChange adds what the change itself does (package change): its
// findings, every one new, and the change summary section; and the fixes
// of head findings that only the base knows.
func judgeChange(rep *report.Report, base, head *Rendered) {
	ch := change.Analyze(base.Render.Targets, head.Render.Targets, rep.Findings)
	rep.Findings = append(rep.Findings, ch.Findings...)
	rep.Rules = append(rep.Rules, change.Rules()...)
	rep.Sections[change.SectionName] = ch.Section
}

// basePaths keeps the input paths that exist at the base: a directory or a
// file the pull request adds is simply absent there, not an unreadable input
// (which would then be reported "fixed").
func basePaths(tree fs.FS, paths []string) []string {
	var out []string
	for _, p := range paths {
		if strings.ContainsAny(p, "*?[{") {
			if m, err := doublestar.Glob(tree, p, doublestar.WithFilesOnly()); err == nil && len(m) > 0 {
				out = append(out, p)
			}
			continue
		}
		if _, err := fs.Stat(tree, p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// classify gives every head finding the status new or unchanged, by
// fingerprint against the base's findings, and appends the base findings
// that the head no longer has with the status fixed. Fingerprints hash the
// rule, the object and the field path — never line numbers — so a finding
// survives edits elsewhere in its file, a moved file and reformatting.
// Fingerprints that occur several times are matched as many times as they
// occur on both sides.
func classify(head, base []finding.Finding) []finding.Finding {
	remaining := make(map[string]int, len(base))
	for i := range base {
		remaining[base[i].Fingerprint]++
	}
	finding.Sort(head)
	for i := range head {
		f := &head[i]
		if remaining[f.Fingerprint] > 0 {
			remaining[f.Fingerprint]--
			f.Status = finding.StatusUnchanged
		} else {
			f.Status = finding.StatusNew
		}
	}
	finding.Sort(base)
	out := head
	for i := range base {
		f := base[i]
		if remaining[f.Fingerprint] == 0 {
			continue
		}
		remaining[f.Fingerprint]--
		f.Status = finding.StatusFixed
		out = append(out, f)
	}
	return out
}

// applySuppressions marks the findings that annotations or .plumb.yaml
// accept, adds the notes about suppressions and the suppressions section.
func applySuppressions(cfg *config.Config, rep *report.Report, targets []*render.Target) {
	res := suppress.Apply(rep.Findings, targets, suppressOptions(cfg))
	rep.Findings = res.Findings
	rep.Rules = append(rep.Rules, suppress.Rules()...)
	if res.Section != nil {
		rep.Sections[suppress.SectionName] = res.Section
	}
}

// suppressOptions are the suppressions of the configuration, read against
// today's date (cfg.Now in tests).
func suppressOptions(cfg *config.Config) suppress.Options {
	now := time.Now
	if cfg.Now != nil {
		now = cfg.Now
	}
	return suppress.Options{Config: cfg.Suppressions, ConfigFile: cfg.File, Today: now()}
}

// shardSections replaces the sections that write more into a shard report
// (report.ShardWriter) with their shard form.
func shardSections(res *Result) {
	for name, sec := range res.Report.Sections {
		if w, ok := sec.(report.ShardWriter); ok {
			res.Report.Sections[name] = w.ShardSection(res.baseSections[name])
		}
	}
}

// SectionMergers lists, by JSON section name, the engine sections that know
// how to merge shard reports (plumb merge). An engine whose section is not
// listed can only be merged when every shard wrote the same section.
func SectionMergers() map[string]report.ShardMerger {
	return map[string]report.ShardMerger{
		renderdiff.SectionName:           renderdiff.Section{},
		change.SectionName:               change.Section{},
		suppress.SectionName:             suppress.Section{},
		(*kubevirt.Analyzer)(nil).Name(): kubevirt.Section{},
		(*compare.Analyzer)(nil).Name():  report.TargetKeyedSection{},
		(*checks.Analyzer)(nil).Name():   checks.ShardSection{},
		rules.SectionName:                rules.Section{},
	}
}
