package render

import (
	"errors"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// The persistent render cache (Options.Cache) keeps what krusty built for
// a kustomize target between runs, under the content of everything the
// build read.
//
// A krusty build is a function of its file-system answers and nothing
// else (plugins and remote resources are off; pull-request mode relies on
// the same property, reuse.go): the entry records every question the build
// asked (a file's content, whether a path exists and is a directory, a
// directory listing, a glob, a walk) with a digest of the answer, and a
// later run takes the entry only when its repository gives the same
// answer to every question. What is cached is krusty's output (each
// object's content and origin, or the build's error); plumb's own work on
// it — the trace that gives every field its source line, Template
// processing, the checks — runs again on every run over the files as they
// are, so positions and messages can never be stale.
//
// Not cached: builds with --allow-remote (remote content is not in the
// repository), builds that change kustomize's global OpenAPI schema, and
// builds that read outside the repository.
//
// A build holds the target's Secrets with their values, and whatever the
// workflow decrypted into the files it read (SOPS, a secretGenerator's
// env file); the cache directory may be restored where those were never
// given (actions/cache in a fork's pull request). So an entry holds in
// the clear only the questions, each with a check digest of its answer (a
// digest of the answer digest: the keys of the target's analyses, which
// hash answer digests, cannot be computed from it), and the build itself
// sealed under a key derived from the answers (krustySeal) — a key only a
// run whose repository gives the same answers derives. Nothing in the
// directory tells a value of the build, in any encoding; a digest tells
// whether a guess of every input the build read is right, as a git
// object id does.

// nsKustomize is the cache namespace of krusty builds.
const nsKustomize = "render-kustomize"

// answer is the current answer to one recorded question, with what the
// access log needs to replay it.
type answer struct {
	digest cache.Key
	data   []byte // a read's content
	err    error
	isDir  bool
	names  []string
}

// answers asks the repository the questions of recorded builds, each once
// per render.
type answers struct {
	files *fileCache
	mu    sync.Mutex
	m     map[accessKey]*cachedAnswer
}

type cachedAnswer struct {
	once sync.Once
	a    answer
}

func newAnswers(files *fileCache) *answers {
	return &answers{files: files, m: map[accessKey]*cachedAnswer{}}
}

// get answers a question.
func (as *answers) get(kind accessKind, path string) answer {
	k := accessKey{kind, path}
	as.mu.Lock()
	c := as.m[k]
	if c == nil {
		c = &cachedAnswer{}
		as.m[k] = c
	}
	as.mu.Unlock()
	c.once.Do(func() { c.a = ask(as.files, kind, path) })
	return c.a
}

// ask asks the repository one question as the adapter (kfs.go) asks it
// for krusty.
func ask(files *fileCache, kind accessKind, path string) answer {
	var a answer
	switch kind {
	case accessRead:
		a.data, a.err = files.read(path)
	case accessStat:
		var st fs.FileInfo
		st, a.err = files.stat(path)
		a.isDir = a.err == nil && st.IsDir()
	case accessReadDir:
		a.names, a.err = readDirNames(files.fsys, path)
	case accessGlob:
		a.names, a.err = fs.Glob(files.fsys, path)
	case accessWalk:
		a.names, a.err = walkEntries(files.fsys, path)
	}
	a.digest = answerDigest(kind, a.data, errorClass(a.err), a.isDir, a.names)
	return a
}

// answerDigest is the digest of an answer as the access log compares it
// (errClass is errorClass of the error).
func answerDigest(kind accessKind, data []byte, errClass string, isDir bool, names []string) cache.Key {
	h := cache.NewHasher("answer").String(errClass)
	switch kind {
	case accessRead:
		h.Key(cache.Digest(data))
	case accessStat:
		h.Bool(isDir)
	default:
		h.Int(len(names))
		for _, n := range names {
			h.String(n)
		}
	}
	return h.Sum()
}

// accessDigest is the digest of a recorded access's answer.
func accessDigest(a access) cache.Key {
	return answerDigest(a.kind, a.data, a.err, a.isDir, a.names)
}

// replay gives the access log the answer as a build would have recorded
// it.
func (a answer) replay(log *accessLog, kind accessKind, path string) {
	switch kind {
	case accessRead:
		log.read(path, a.data, a.err)
	case accessStat:
		log.add(access{kind: accessStat, path: path, err: errorClass(a.err), isDir: a.isDir})
	default:
		log.list(kind, path, a.names, a.err)
	}
}

// krustySlot is the slot of one krusty build: the target, whether origin
// annotations were asked for, and the content substituted for files
// (kustomize helmCharts inflated by plumb).
func krustySlot(dir string, withOrigin bool, over map[string][]byte, limits manifest.Limits) cache.Key {
	// The input limits and the target's size budget decided what the
	// build could read: a build made under other limits is another entry.
	l := limits.OrDefault()
	h := cache.NewHasher(nsKustomize).String(dir).Bool(withOrigin).
		String(strconv.FormatInt(l.MaxFileBytes, 10)).Int(l.MaxDepth).Int(l.MaxAliasNodes).
		String(strconv.FormatInt(l.MaxTargetBytes, 10))
	for _, f := range slices.Sorted(maps.Keys(over)) {
		h.String(f).Key(cache.Digest(over[f]))
	}
	return h.Sum()
}

// cachedKrusty is runKrusty through the persistent cache. inputs is the
// digest of every question the build asked with its answer (zero when the
// cache is off or the build read what cannot be recorded).
//
//nolint:staticcheck // ST1008: buildErr is the build's outcome, cached like its output, not this call's failure
func (r *renderer) cachedKrusty(c *closure, withOrigin bool, log *accessLog, over map[string][]byte, guard *buildGuard) (built []builtResource, buildErr error, inputs cache.Key) {
	k := c.nodes[0].k
	store := r.opts.Cache
	if store == nil || r.opts.AllowRemote || c.customOpenAPI {
		built, buildErr = runKrusty(r.files, r.interner, k, r.opts.AllowRemote, withOrigin, log, over, guard)
		return built, buildErr, cache.Key{}
	}
	slot := krustySlot(k.Dir, withOrigin, over, r.opts.Limits)
	hit := store.Lookup(nsKustomize, slot, func(payload []byte) bool {
		var ok bool
		built, buildErr, inputs, ok = r.acceptKrusty(slot, payload, log)
		return ok
	})
	if hit {
		return built, buildErr, inputs
	}
	rec := newAccessLog()
	built, buildErr = runKrusty(r.files, r.interner, k, false, withOrigin, rec, over, guard)
	if log != nil {
		for _, a := range rec.accesses {
			log.add(a)
		}
		log.unreusable = log.unreusable || rec.unreusable
	}
	// A build stopped by its budget is not what the inputs make: never kept.
	if rec.unreusable || guard.overBudget() != "" || guard.stopped() {
		return built, buildErr, cache.Key{}
	}
	payload, variant, seal, ok := encodeKrusty(slot, rec, built, buildErr)
	if ok {
		_ = store.Put(nsKustomize, slot, variant, payload) // a failed write is a later miss
	}
	return built, buildErr, buildInputs(seal)
}

// checkDigest is what an entry holds of an answer's digest.
func checkDigest(d cache.Key) cache.Key { return cache.NewHasher("check").Key(d).Sum() }

// krustyKeys accumulates, question by question, an entry's variant key
// (the questions with their check digests: it is stored) and its seal key
// (the slot and the questions with their answers' digests: never stored).
type krustyKeys struct{ variant, seal *cache.Hasher }

func newKrustyKeys(slot cache.Key) krustyKeys {
	return krustyKeys{cache.NewHasher("variant"), cache.NewHasher("render/kustomize/seal").Key(slot)}
}

func (k krustyKeys) add(kind accessKind, path string, digest cache.Key) {
	k.variant.Int(int(kind)).String(path).Key(checkDigest(digest))
	k.seal.Int(int(kind)).String(path).Key(digest)
}

// buildInputs is what a build contributes to its target's inputs
// (Target.Inputs): derived from its seal key, so that no key of the
// target's analyses can be computed from what the directory holds.
func buildInputs(seal cache.Key) cache.Key {
	if seal == (cache.Key{}) {
		return cache.Key{}
	}
	return cache.NewHasher("render/kustomize/inputs").Key(seal).Sum()
}

// encodeKrusty writes an entry: the questions with their answers' check
// digests, then the build's error or output, sealed under the seal key.
func encodeKrusty(slot cache.Key, rec *accessLog, built []builtResource, buildErr error) (payload []byte, variant, seal cache.Key, ok bool) {
	e := &cache.Encoder{}
	keys := newKrustyKeys(slot)
	e.Uint(uint64(len(rec.accesses)))
	for _, a := range rec.accesses {
		d := accessDigest(a)
		c := checkDigest(d)
		e.Uint(uint64(a.kind))
		e.String(a.path)
		e.Raw(c[:])
		keys.add(a.kind, a.path, d)
	}
	body := &cache.Encoder{}
	if buildErr != nil {
		body.Bool(true)
		body.String(buildErr.Error())
	} else {
		body.Bool(false)
		body.Uint(uint64(len(built)))
		for _, b := range built {
			encodeOrigin(body, b.origin)
			if b.content != nil {
				body.Bool(true)
				if err := body.Value(b.content); err != nil {
					return nil, cache.Key{}, cache.Key{}, false
				}
			} else {
				body.Bool(false)
				body.Raw(b.json)
			}
		}
	}
	seal = keys.seal.Sum()
	e.Raw(cache.Seal(nil, seal, body.Bytes(), nil))
	return e.Bytes(), keys.variant.Sum(), seal, true
}

func encodeOrigin(e *cache.Encoder, o *krustyOrigin) {
	if o == nil {
		e.Bool(false)
		return
	}
	e.Bool(true)
	e.Strings([]string{o.Path, o.Repo, o.Ref, o.ConfiguredIn, o.ConfiguredBy.APIVersion, o.ConfiguredBy.Kind, o.ConfiguredBy.Name})
}

func decodeOrigin(d *cache.Decoder) *krustyOrigin {
	if !d.Bool() {
		return nil
	}
	s := d.Strings()
	if len(s) != 7 {
		return nil
	}
	o := &krustyOrigin{Path: s[0], Repo: s[1], Ref: s[2], ConfiguredIn: s[3]}
	o.ConfiguredBy.APIVersion, o.ConfiguredBy.Kind, o.ConfiguredBy.Name = s[4], s[5], s[6]
	return o
}

// acceptKrusty checks an entry's questions against the repository and,
// when every answer is the same, opens and decodes the build and replays
// the answers into log (pull-request mode shares the build with the other
// revision through it).
//
//nolint:staticcheck // ST1008: the error is the cached build's outcome, not this call's failure
func (r *renderer) acceptKrusty(slot cache.Key, payload []byte, log *accessLog) ([]builtResource, error, cache.Key, bool) {
	d := cache.NewDecoder(payload)
	keys := newKrustyKeys(slot)
	n := d.Len(3)
	type question struct {
		kind accessKind
		path string
		a    answer
	}
	qs := make([]question, 0, n)
	for range n {
		kind := accessKind(d.Uint())
		path := d.String()
		digest := d.Raw()
		if d.Err() != nil || kind > accessWalk {
			return nil, nil, cache.Key{}, false
		}
		a := r.answers.get(kind, path)
		if c := checkDigest(a.digest); string(c[:]) != string(digest) {
			return nil, nil, cache.Key{}, false
		}
		keys.add(kind, path, a.digest)
		qs = append(qs, question{kind, path, a})
	}
	seal := keys.seal.Sum()
	plain, ok := cache.Unseal(seal, d.RawView(), nil)
	if d.Done() != nil || !ok {
		return nil, nil, cache.Key{}, false
	}
	d = cache.NewDecoder(plain)
	var built []builtResource
	var buildErr error
	if d.Bool() {
		buildErr = errors.New(d.String())
	} else {
		built = make([]builtResource, d.Len(2))
		for i := range built {
			built[i].origin = decodeOrigin(d)
			if d.Bool() {
				built[i].content = r.interner.decodedContent(d)
			} else {
				built[i].json = d.Raw()
			}
		}
	}
	if d.Done() != nil {
		return nil, nil, cache.Key{}, false
	}
	if log != nil {
		for _, q := range qs {
			q.a.replay(log, q.kind, q.path)
		}
	}
	return built, buildErr, buildInputs(seal), true
}

// kustomizeInputs is the digest of what a kustomize target was made from:
// what its builds asked the repository (builds, one per krusty run), the
// content substituted for files, and every file of its kustomizations'
// closure (what the trace reads for provenance). Zero when one of them is
// unknown, or when the target inflates Helm charts (whose templates the
// provenance points into, and which no log records).
func (r *renderer) kustomizeInputs(c *closure, builds []cache.Key, over map[string][]byte) cache.Key {
	if r.opts.Cache == nil || closureHasCharts(c) || len(over) > 0 {
		return cache.Key{}
	}
	h := cache.NewHasher("target/kustomize")
	for _, b := range builds {
		if b == (cache.Key{}) {
			return cache.Key{}
		}
		h.Key(b)
	}
	files := slices.Clone(r.closureFiles(c))
	slices.Sort(files)
	for _, f := range slices.Compact(files) {
		h.String(f).Key(r.answers.get(accessRead, f).digest)
	}
	return h.Sum()
}

// plainInputs is the digest of the files a plain target's documents come
// from (zero when the cache is off).
func (r *renderer) plainInputs(t *Target, files []string) cache.Key {
	if r.opts.Cache == nil {
		return cache.Key{}
	}
	h := cache.NewHasher("target/plain").String(t.Name)
	files = slices.Clone(files)
	slices.Sort(files)
	for _, f := range slices.Compact(files) {
		h.String(f).Key(r.answers.get(accessRead, f).digest)
	}
	return h.Sum()
}

// chartInputs is the digest of what a chart target was made from: the
// chart's files, the request (release, namespace, Kubernetes version and
// API versions, hooks and CRDs), every values source in order — a values
// file by its content, --set expressions and where each source is named
// (values set by --set are located there) — and, for a render a GitOps
// definition asks for, what that definition's target was made from (its
// inline values and their positions come from it). Zero when the cache is
// off or the defining target has no digest.
func (r *renderer) chartInputs(job chartRender) cache.Key {
	if r.opts.Cache == nil || (job.holder != nil && job.holder.Inputs == (cache.Key{})) {
		return cache.Key{}
	}
	req := job.req
	h := cache.NewHasher("target/helm").String(job.name).Key(job.chart.Digest()).
		String(req.ReleaseName).String(req.Namespace).String(req.KubeVersion).
		Bool(req.IncludeCRDs).Bool(req.SkipHooks).Bool(req.SkipTests)
	hashLocation(h, req.At)
	h.Int(len(req.APIVersions))
	for _, v := range req.APIVersions {
		h.String(v)
	}
	if job.holder != nil {
		h.String(job.holder.Name).Key(job.holder.Inputs)
	}
	h.Int(len(req.Sources))
	for _, s := range req.Sources {
		hashLocation(h, s.At)
		h.String(s.File).String(s.Set).Bool(s.String)
		if s.File != "" {
			h.Key(r.answers.get(accessRead, s.File).digest)
		}
		if s.Inline != nil {
			e := &cache.Encoder{}
			if err := e.Value(s.Inline); err != nil {
				return cache.Key{}
			}
			h.Bytes(e.Bytes())
		}
	}
	return h.Sum()
}

// hashLocation adds a location to a key.
func hashLocation(h *cache.Hasher, l manifest.Location) {
	h.String(l.File).Int(l.Line).Int(l.Column).Int(l.EndLine).Int(l.EndColumn)
}
