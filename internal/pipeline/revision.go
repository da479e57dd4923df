package pipeline

import (
	"encoding/json"
	"strings"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
)

// A pull request's base revision is, most of the time, exactly what the
// base branch's last run checked: the pull request changes a few files,
// and its base is the commit that run saw. The analysis of a revision —
// every finding before suppressions, and the rules that describe them —
// depends only on the revision's files, the configuration and plumb's
// build, so a run keeps it in the persistent cache under a digest of
// those, and pull-request mode takes the base's findings from there
// instead of running the rules and analyzers over the base a second time.
// The base is still loaded and rendered (the render cache makes that
// cheap): the diff of rendered objects, the suppressions and the fixed
// findings' positions need its objects.
//
// Only the findings are kept: pull-request mode reads nothing else of the
// base's report but the rule descriptors, and the engine sections that a
// shard report carries (a sharded run does not use the revision cache).

// nsRevision is the cache namespace of whole revisions' findings.
const nsRevision = "revision"

// revisionKey is the digest of everything one revision's findings are made
// of: the run's analysis configuration key (Rendered.analysisKey), the
// input paths, the schema and KubeVirt settings with the content of the
// CRDs and Template directories they name, every loaded file's path and content digest, the
// load's and render's problems and skipped files, and each render target
// with the digest of what it was made from. false when the revision cannot
// be keyed: the cache is off, a target's inputs are unknown (remote
// resources, a kustomization that inflates charts), the reference is read
// from a URL, rules files did not load (their problems are reported with
// the working tree only), or the run is sharded or narrowed to changed
// files.
func revisionKey(cfg *config.Config, r *Rendered, rulesLoaded bool) (cache.Key, bool) {
	if r.store == nil || r.analysisKey == nil || !rulesLoaded || cfg.Shard.Enabled() || cfg.ChangedOnly ||
		r.Set.Digests == nil || isURL(cfg.Reference.Path) {
		return cache.Key{}, false
	}
	settings, err := json.Marshal(struct {
		Paths    []string
		Schema   config.SchemaSettings
		KubeVirt config.KubeVirtSettings
		Policies []config.InputPath
	}{cfg.Paths, cfg.Schema, cfg.KubeVirt, cfg.Policies})
	if err != nil {
		return cache.Key{}, false
	}
	h := cache.NewHasher(nsRevision).Key(*r.analysisKey).Bytes(rootFree(cfg.Root, settings))
	files := &contentHasher{h: h, root: cfg.Root}
	for _, p := range cfg.Schema.CRDs {
		files.path(p.Path)
	}
	for _, d := range cfg.KubeVirt.TemplateDirs {
		files.path(d)
	}
	for _, p := range cfg.Policies {
		files.path(p.Path)
	}
	h.Int(len(r.Set.Files))
	for i, f := range r.Set.Files {
		h.String(f).Key(r.Set.Digests[i])
	}
	res := r.Render
	for _, t := range res.Targets {
		if t.Inputs == (cache.Key{}) {
			return cache.Key{}, false
		}
		h.String(t.Name).String(string(t.Kind)).Key(t.Inputs)
	}
	// What the load and render report is made of the files above, but a
	// build that fails has no target to carry its inputs: its problems
	// stand for it.
	outcome, err := json.Marshal([]any{r.Set.Problems, r.Set.Skipped, r.Set.Charts, res.Problems, res.Skipped})
	if err != nil {
		return cache.Key{}, false
	}
	return h.Bytes(outcome).Sum(), true
}

// isURL reports whether a reference is read from the network.
func isURL(p string) bool {
	return strings.HasPrefix(p, "https://") || strings.HasPrefix(p, "http://")
}

// storeRevision keeps a revision's findings (before suppressions) and rule
// descriptors under its key. A finding the codec refuses leaves the
// revision uncached.
func storeRevision(r *Rendered, findings []finding.Finding, rules []finding.Rule) {
	e := &cache.Encoder{}
	e.ShareStrings()
	if err := finding.EncodeFindings(e, findings); err != nil {
		return
	}
	finding.EncodeRules(e, rules)
	_ = r.store.Put(nsRevision, r.revision, cache.Key{}, e.Bytes()) // a failed write is a later miss
}

// cachedRevision looks the revision up in the cache. found says whether it
// is there; when the revision's analysis may be reused (a pull request's
// base), its findings and rule descriptors are read too. A run that finds
// its revision there does not write it again.
func cachedRevision(r *Rendered) (findings []finding.Finding, rules []finding.Rule, found bool) {
	if r.revision == (cache.Key{}) {
		return nil, nil, false
	}
	found = r.store.Lookup(nsRevision, r.revision, func(p []byte) bool {
		if !r.reuseAnalysis {
			return true
		}
		d := cache.NewDecoder(p)
		d.ShareStrings()
		findings = finding.DecodeFindings(d)
		rules = finding.DecodeRules(d)
		return d.Done() == nil
	})
	return findings, rules, found
}
