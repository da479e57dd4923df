// Package render turns loaded documents into render targets: the sets of
// objects that are deployed together, each object carrying its provenance.
//
// A kustomization that no other kustomization builds on is a kustomize
// target, built in-process by krusty (kustomize's library) over a read-only
// view of the repository; plain files that no kustomization reads form one
// target per directory. OpenShift Templates in either are processed. Every
// object can say which file, line and column supplied any of its fields: the
// base resource, the overlay patch that set it, the kustomization entry of
// the transformer, or the generator entry.
package render

import (
	"context"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/source"
)

// Kind says how a target's objects were produced.
type Kind string

const (
	// KindPlain is a directory of plain manifest files.
	KindPlain Kind = "plain"
	// KindKustomize is a kustomization built by krusty.
	KindKustomize Kind = "kustomize"
)

// LeftoverSuffix ends the name of the target of plain files left in a
// kustomization's directory ("DIR (plain)").
const LeftoverSuffix = " (plain)"

// Target is one unit of deployment: a directory of plain files or a
// kustomization. Analyzers that reason across objects (a Service and the
// Deployment it selects) look only inside one target.
type Target struct {
	// Name is the repository-relative directory ("." for the root). Plain
	// files left over in a kustomization's directory form a target named
	// "DIR (plain)".
	Name    string
	Kind    Kind
	Objects []*manifest.Object
	// Namespace is where the target's objects that name no namespace are
	// created: a chart's release namespace (helm install puts them there,
	// helm template leaves them without one). It is "" for the other
	// kinds, whose objects go to the namespace of whoever applies them.
	Namespace string
	// Declared is set on a plain directory that .plumb.yaml lists under
	// targets: its files are applied together, so an object two of them
	// define is an error rather than a note about alternative files.
	Declared bool
	// Templates are the OpenShift Template objects found in the target,
	// kept whole (annotations, parameters) for the engines that read them.
	Templates []*Template
	// Inputs, when not zero, is the digest of everything the target was
	// made from (every file its render read; the render options are the
	// caller's to add): what the analyses of the target are cached under
	// (set only with Options.Cache).
	Inputs cache.Key
}

// Template is an OpenShift Template and what processing it produced.
type Template struct {
	// Object is the Template itself.
	Object *manifest.Object
	// Objects are its objects[] after parameter processing; they are also
	// in the target's Objects.
	Objects []*manifest.Object
}

// Result is every target, sorted by name, and the problems met on the way.
type Result struct {
	Targets  []*Target
	Problems []manifest.Problem
	// Reads, for a render narrowed to a change (Options.Changed), is every
	// file the rendered targets read; nil otherwise.
	Reads map[string]bool
	// Skipped are the loaded files that are not read as objects: the
	// files kustomizations read as patches, generator inputs, replacement
	// sources or configurations, and files without any Kubernetes object.
	Skipped []manifest.Skipped
}

// Objects returns the objects of all targets in target order.
func (r *Result) Objects() []*manifest.Object {
	var out []*manifest.Object
	for _, t := range r.Targets {
		out = append(out, t.Objects...)
	}
	return out
}

// TargetSpec names kustomize targets explicitly (.plumb.yaml targets:): a
// repository-relative directory or a doublestar pattern of directories.
type TargetSpec struct {
	Pattern string
	// At is where the entry is written, for problems.
	At manifest.Location
}

// Options configures rendering.
type Options struct {
	Limits manifest.Limits
	// AllowRemote lets krusty fetch remote bases and resources (refused by
	// default: plumb builds only from the repository).
	AllowRemote bool
	// Params are the Template parameter values (--param, .plumb.yaml).
	Params TemplateParams
	// ParamsAt is where the parameters were configured, for problems about
	// them (a .plumb.yaml file, or empty for flags); ParamLocations and
	// TemplateParamLocations, where the file writes each (by parameter and
	// by template name).
	ParamsAt                               manifest.Location
	ParamLocations, TemplateParamLocations map[string]manifest.Location
	// Targets, when set, replaces the discovery of kustomize targets.
	Targets []TargetSpec
	// Workers bounds concurrent kustomize builds (default GOMAXPROCS).
	Workers int
	// Select, when set, renders only the targets whose name it accepts (a
	// --shard share); the others are skipped, with their problems.
	Select func(target string) bool
	// Builds, when set, is shared with the render of another revision of
	// the same repository with the same options (pull-request mode): a
	// target whose build would read the same files in both is built once.
	Builds *BuildCache
	// Helm says how charts render (charts.go).
	Helm HelmOptions
	// Fetcher fetches the remote charts GitOps definitions name, from the
	// hosts it allows (nil: none is fetched).
	Fetcher *source.Fetcher
	// Changed, when set, renders only the targets that read one of these
	// repository files (plumb check --changed: a pre-commit hook's files),
	// and reports only the problems of what those targets read.
	Changed map[string]bool
	// Cache, when set, is the persistent cache krusty's builds are kept in
	// between runs (cache.go).
	Cache *cache.Store
}

// Render groups the loaded documents into targets and builds them. fsys is
// the repository root; krusty reads through it (never the OS file system),
// so nothing outside the repository can be read.
func Render(ctx context.Context, fsys fs.FS, set *manifest.Set, opts Options) *Result {
	r := newRenderer(fsys, set, opts)
	return r.run(ctx)
}

type renderer struct {
	set   *manifest.Set
	opts  Options
	files *fileCache
	kc    *kustomizationCache
	graph *graph
	docs  *docCache
	// helm inflates kustomizations' helmCharts (kustomize_helm.go).
	helm     *kustomizeHelm
	helmOnce sync.Once
	// closures are the kustomize targets' closures, by directory.
	closures map[string]*closure
	// answers checks cached builds against the repository (cache.go).
	answers *answers
	// interner shares identical parts of the rendered objects (intern.go).
	interner *interner
}

func newRenderer(fsys fs.FS, set *manifest.Set, opts Options) *renderer {
	if set == nil {
		set = &manifest.Set{}
	}
	files := newFileCache(fsys, opts.Limits)
	files.loaded = loadedLimitProblems(set)
	kc := newKustomizationCache(files, set, opts.Limits)
	docs := newDocCache(files, kc.known, opts.Limits)
	return &renderer{
		set:      set,
		opts:     opts,
		files:    files,
		kc:       kc,
		graph:    newGraph(kc, docs, opts.AllowRemote),
		docs:     docs,
		answers:  newAnswers(files),
		interner: newInterner(),
	}
}

func (r *renderer) run(ctx context.Context) *Result {
	res := &Result{}
	problems := newProblemSet()

	// Every kustomization among the inputs, and everything they build on.
	var tree []string
	for _, f := range r.set.Files {
		if manifest.IsKustomizationFile(f) {
			tree = append(tree, path.Dir(f))
		}
	}
	slices.Sort(tree)
	tree = slices.Compact(tree)
	var schemaFilled <-chan struct{}
	if len(tree) > 0 || len(r.opts.Targets) > 0 {
		schemaFilled = startFillingOpenAPI()
	}
	closures := map[string]*closure{}
	used := map[string]bool{}
	consumed := map[string]bool{}
	inputs := map[string]manifest.SkipReason{}
	resources := map[string]bool{}
	for _, dir := range tree {
		c := r.graph.walk(dir)
		closures[dir] = c
		for i, n := range c.nodes {
			consumed[n.k.File] = true
			for _, f := range n.files {
				consumed[f] = true
				if role, ok := n.inputs[f]; ok {
					inputs[f] = role
				} else {
					resources[f] = true
				}
			}
			if n.k.problem != nil {
				// What a kustomization that cannot be read uses is unknown:
				// its directory's files are not taken for plain objects.
				for _, f := range r.set.Files {
					if path.Dir(f) == n.k.Dir {
						consumed[f] = true
					}
				}
			}
			if i > 0 {
				used[n.k.Dir] = true
			}
		}
		problems.add(c.problems...)
		for _, n := range c.nodes {
			problems.add(deprecations(n.k)...)
		}
	}

	r.commentedOutEntries(tree, consumed, inputs)

	var targets []string
	var declared map[string]bool
	if len(r.opts.Targets) > 0 {
		var bad []manifest.Problem
		targets, declared, bad = r.explicitTargets()
		problems.add(bad...)
	}
	if len(targets) == 0 {
		for _, dir := range tree {
			if n := r.graph.node(dir); n != nil && !used[dir] && (n.k.problem != nil || !n.k.IsComponent()) {
				targets = append(targets, dir)
			}
		}
	}
	for _, dir := range targets {
		if closures[dir] == nil {
			c := r.graph.walk(dir)
			closures[dir] = c
			problems.add(c.problems...)
		}
	}

	r.closures = closures
	change := newChangeFilter(r.opts.Changed)
	selected := slices.DeleteFunc(slices.Clone(targets), func(dir string) bool {
		return (r.opts.Select != nil && !r.opts.Select(dir)) || (change != nil && !change.kustomizeTarget(r.closureFiles(closures[dir])))
	})
	built := r.buildAll(ctx, selected, closures, schemaFilled, problems)
	plain, notObjects := r.plainTargets(consumed, targets, change, problems)
	for _, t := range plain {
		t.Declared = declared[t.Name]
	}
	res.Targets = append(built, plain...)
	res.Targets = append(res.Targets, r.chartTargets(ctx, gitopsTargets(ctx, r.opts.Fetcher, r.files.fsys, res.Targets, r.opts.Limits, problems), change, problems)...)
	res.Targets = append(res.Targets, fluxTargets(res.Targets, r.opts.Limits, problems)...)
	res.Skipped = r.skipped(inputs, resources, notObjects)
	slices.SortFunc(res.Targets, func(a, b *Target) int { return strings.Compare(a.Name, b.Name) })

	problems.add(r.unknownParams(res.Targets)...)
	res.Problems = slices.DeleteFunc(problems.sorted(), func(p manifest.Problem) bool { return !change.keep(p) })
	res.Reads = change.Reads()
	return res
}

// explicitTargets expands .plumb.yaml targets: entries into kustomization
// directories, which replace the discovered kustomize targets, and plain
// directories, whose files are declared to be applied together.
func (r *renderer) explicitTargets() ([]string, map[string]bool, []manifest.Problem) {
	var out []string
	var problems []manifest.Problem
	seen := map[string]bool{}
	declared := map[string]bool{}
	for _, spec := range r.opts.Targets {
		dirs, plain := matchDirs(r.files.fsys, spec.Pattern)
		for _, d := range plain {
			declared[d] = true
		}
		if len(dirs) == 0 && len(plain) == 0 {
			problems = append(problems, manifest.Problem{Rule: RuleTarget, Level: "error", Location: spec.At, Input: true, Config: true, Key: spec.Pattern,
				Message: "targets: " + spec.Pattern + " names no directory of the repository"})
		}
		for _, d := range dirs {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out, declared, problems
}

// buildAll builds the kustomize targets concurrently; the result keeps the
// targets' order.
func (r *renderer) buildAll(ctx context.Context, dirs []string, closures map[string]*closure, schemaFilled <-chan struct{}, problems *problemSet) []*Target {
	if schemaFilled != nil {
		<-schemaFilled
	}
	out := make([]*Target, len(dirs))
	perTarget := make([][]manifest.Problem, len(dirs))
	workers := r.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	restore := silenceStderr()
	defer restore()
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := closures[dirs[i]]
				if len(c.problems) > 0 || ctx.Err() != nil {
					continue
				}
				out[i], perTarget[i] = r.buildOne(dirs[i], c)
			}
		}()
	}
	for i := range dirs {
		next <- i
	}
	close(next)
	wg.Wait()
	var targets []*Target
	for i, t := range out {
		problems.add(perTarget[i]...)
		if t != nil {
			targets = append(targets, t)
		}
	}
	return targets
}

// buildOne builds one kustomize target, or takes it from the build cache
// when the other revision built it from the same files.
func (r *renderer) buildOne(dir string, c *closure) (*Target, []manifest.Problem) {
	cache := r.opts.Builds
	if cache == nil || c.customOpenAPI || r.opts.AllowRemote || closureHasCharts(c) {
		return r.buildWithin(c, nil)
	}
	e, builder := cache.claim(dir)
	if !builder {
		// Waiting holds no lock: the builder may need openapiMu.
		if t, problems, ok := e.reuse(r.files); ok {
			cache.reused.Add(1)
			return t, problems
		}
		return r.buildWithin(c, nil)
	}
	published := false
	defer func() {
		if !published {
			e.abandon() // the build panicked: the other render builds its own
		}
	}()
	log := newAccessLog()
	t, problems := r.buildWithin(c, log)
	published = true // publish closes the entry, whatever happens in it
	e.publish(log, t, problems)
	return t, problems
}

// buildLocked builds a target under the OpenAPI lock. krusty keeps the
// OpenAPI schema in a global: a target that changes it builds alone.
func (r *renderer) buildLocked(c *closure, log *accessLog, guard *buildGuard) (*Target, []manifest.Problem) {
	if c.customOpenAPI {
		openapiMu.Lock()
		defer openapiMu.Unlock()
		defer resetOpenAPI()
		return r.buildKustomize(c, log, guard)
	}
	openapiMu.RLock()
	defer openapiMu.RUnlock()
	return r.buildKustomize(c, log, guard)
}

// skipped lists the loaded files that are not objects: those the
// kustomizations read as something else than a resource, and those without
// any Kubernetes object (notObjects).
func (r *renderer) skipped(inputs map[string]manifest.SkipReason, resources map[string]bool, notObjects map[string]manifest.SkipReason) []manifest.Skipped {
	var out []manifest.Skipped
	for _, f := range r.set.Files {
		reason, ok := inputs[f]
		if !ok || resources[f] {
			if reason, ok = notObjects[f]; !ok {
				continue
			}
		}
		out = append(out, manifest.Skipped{Path: f, Reason: reason})
	}
	return out
}

// plainTargets groups the documents no kustomization reads by directory.
// It also returns the files no kustomization reads that hold no object,
// with the reason (not an object, or a component's configuration).
func (r *renderer) plainTargets(consumed map[string]bool, kustomizeTargets []string, change *changeFilter, problems *problemSet) ([]*Target, map[string]manifest.SkipReason) {
	byDir := map[string]*Target{}
	var out []*Target
	var changedDirs map[string]bool
	if change != nil {
		changedDirs = change.plainDirs(r.set.Documents, consumed)
	}
	notObjects := map[string]manifest.SkipReason{}
	hasObject := map[string]bool{}
	targetFiles := map[*Target][]string{}
	for _, f := range r.set.Files {
		if !consumed[f] && !manifest.IsKustomizationFile(f) {
			notObjects[f] = manifest.SkipNotObject // until a document says otherwise
		}
	}
	for _, doc := range r.set.Documents {
		if consumed[doc.File] || doc.IsKustomizeConfig() {
			delete(notObjects, doc.File)
			continue
		}
		reason := doc.NotObject()
		if reason == "" {
			reason = manifest.ScaffoldPatch(doc.File)
		}
		if reason != "" {
			if !hasObject[doc.File] && reason != manifest.SkipNotObject {
				notObjects[doc.File] = reason
			}
			continue
		}
		hasObject[doc.File] = true
		delete(notObjects, doc.File)
		dir := path.Dir(doc.File)
		if change != nil {
			if !changedDirs[dir] {
				continue
			}
			change.reads[doc.File] = true
		}
		name := dir
		if slices.Contains(kustomizeTargets, dir) {
			name += LeftoverSuffix
		}
		if r.opts.Select != nil && !r.opts.Select(name) {
			continue
		}
		t := byDir[dir]
		if t == nil {
			t = &Target{Name: name, Kind: KindPlain}
			byDir[dir] = t
			out = append(out, t)
		}
		targetFiles[t] = append(targetFiles[t], doc.File)
		objs, p := doc.Objects(t.Name)
		problems.add(p...)
		for _, o := range objs {
			r.addObject(t, o, problems)
		}
	}
	for _, p := range r.set.Problems {
		delete(notObjects, p.Location.File) // a file that does not parse is reported, not skipped
	}
	for _, t := range out {
		t.Inputs = r.plainInputs(t, targetFiles[t])
	}
	return out, notObjects
}

// addObject adds an object to a target, processing it first when it is a
// Template.
func (r *renderer) addObject(t *Target, o *manifest.Object, problems *problemSet) {
	if !IsTemplate(o.Content) {
		t.Objects = append(t.Objects, o)
		return
	}
	tmpl, p := processTemplate(o, r.opts.Params, t.Name)
	problems.add(p...)
	for _, obj := range tmpl.Objects {
		r.interner.within(obj.Content) // processing made it: this render's own
	}
	t.Templates = append(t.Templates, tmpl)
	t.Objects = append(t.Objects, tmpl.Objects...)
}
