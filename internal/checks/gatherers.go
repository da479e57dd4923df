package checks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// FactError is a fact that could not be gathered. Types follow the agent's
// naming, <gatherer>-<kind>, e.g. manifest-value-not-found.
type FactError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func (e *FactError) Error() string { return e.Type + ": " + e.Message }

func factErr(typ, format string, args ...any) *FactError {
	return &FactError{Type: typ, Message: fmt.Sprintf(format, args...)}
}

// origin is a field of a rendered object.
type origin struct {
	obj  *manifest.Object
	path manifest.Path
}

// item is where one element of a list fact (key int) or one entry of a map
// fact (key string) came from. Findings use it to point at the element
// that fails an expectation.
type item struct {
	key any
	at  origin
}

// gathered is one gathered fact with where it came from.
type gathered struct {
	value any
	// at is the field the fact read; nil when it read no single field.
	at *origin
	// items locate the elements of a list or map value (optional).
	items []item
	// objects are the objects the fact was gathered from, when they are not
	// (only) the target: the related locations of group findings.
	objects []*manifest.Object
	err     *FactError
}

// subject is what facts are gathered from: one object of a render target
// (object checks), or a whole render target (group checks, obj nil).
type subject struct {
	obj    *manifest.Object
	target *targetIndex
	// facts caches what was gathered from this subject by gatherer and
	// argument: many checks read the same containers or images. A subject
	// is handled by one goroutine at a time, so the map needs no lock.
	facts map[string]gathered
}

// gather returns a fact of the subject, gathering it on first use.
func (s *subject) gather(f *Fact) gathered {
	if g, ok := s.facts[f.key]; ok {
		return g
	}
	g := f.gather(s)
	if s.facts == nil {
		s.facts = make(map[string]gathered, 8)
	}
	s.facts[f.key] = g
	return g
}

// gatherFunc gathers one fact, prepared with its argument at load time.
type gatherFunc func(s *subject) gathered

// gathererDef is one gatherer version.
type gathererDef struct {
	name    string
	version int
	// group is set when the gatherer works on group targets as well as on
	// object targets.
	group bool
	// manyObjects is set when the value holds several objects of the
	// render target (its size is bounded by the target's, not by one
	// object's).
	manyObjects bool
	// objectOnly gatherers read one object; group gatherers read the render
	// target.
	prepare func(arg string, tt TargetType) (gatherFunc, error)
	// Summary and Argument document the gatherer (checks show, docs/checks.md).
	Summary  string
	Argument string
}

// gatherers is the registry, by name then version.
var gatherers = map[string][]*gathererDef{}

func register(d *gathererDef) {
	gatherers[d.name] = append(gatherers[d.name], d)
	slices.SortFunc(gatherers[d.name], func(a, b *gathererDef) int { return a.version - b.version })
}

func init() {
	register(manifestGatherer)
	register(quantityGatherer)
	register(containersGatherer)
	register(imageGatherer)
	register(referencesGatherer)
	register(configMapFileGatherer)
	register(objectsGatherer)
	register(countGatherer)
	register(autoscalerGatherer)
}

// resolveGatherer finds a gatherer by "name" (the highest version) or
// "name@vN".
func resolveGatherer(spec string) (*gathererDef, error) {
	name, ver, versioned := strings.Cut(spec, "@")
	defs, ok := gatherers[name]
	if !ok {
		return nil, fmt.Errorf("unknown gatherer %q (known: %s)", spec, strings.Join(GathererNames(), ", "))
	}
	if !versioned {
		return defs[len(defs)-1], nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(ver, "v"))
	if err != nil || !strings.HasPrefix(ver, "v") {
		return nil, fmt.Errorf("gatherer %q: the version must look like @v1", spec)
	}
	for _, d := range defs {
		if d.version == n {
			return d, nil
		}
	}
	var have []string
	for _, d := range defs {
		have = append(have, fmt.Sprintf("@v%d", d.version))
	}
	return nil, fmt.Errorf("gatherer %q: no version %s (available: %s)", spec, ver, strings.Join(have, ", "))
}

// GathererNames lists the gatherers as name@vN, sorted.
func GathererNames() []string {
	var out []string
	for name, defs := range gatherers {
		for _, d := range defs {
			out = append(out, fmt.Sprintf("%s@v%d", name, d.version))
		}
	}
	slices.Sort(out)
	return out
}

// GathererDoc describes one gatherer for help texts.
type GathererDoc struct {
	Name, Summary, Argument string
	Group                   bool
}

// Gatherers documents every gatherer, sorted by name.
func Gatherers() []GathererDoc {
	var out []GathererDoc
	for _, name := range GathererNames() {
		d, _ := resolveGatherer(name)
		out = append(out, GathererDoc{Name: name, Summary: d.Summary, Argument: d.Argument, Group: d.group})
	}
	return out
}

// prepareFact resolves a fact's gatherer and parses its argument.
func prepareFact(f *Fact, tt TargetType) error {
	d, err := resolveGatherer(f.Gatherer)
	if err != nil {
		return err
	}
	if tt == TargetGroup && !d.group {
		return fmt.Errorf("gatherer %s reads one object and cannot run on a target_type: group check; use objects@v1, count@v1 or configmap_file@v1", f.Gatherer)
	}
	g, err := d.prepare(f.Argument, tt)
	if err != nil {
		return fmt.Errorf("gatherer %s: %w", f.Gatherer, err)
	}
	f.gather = g
	f.key = fmt.Sprintf("%s@v%d\x00%s\x00%s", d.name, d.version, tt, f.Argument)
	f.oneObject = tt == TargetObject && !d.manyObjects
	return nil
}
