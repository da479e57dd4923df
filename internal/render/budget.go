package render

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"sigs.k8s.io/kustomize/api/types"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A render target's budget. kustomize's own cost can grow faster than its
// input (one file of 10,000 ConfigMaps took upstream's krusty 245 s: it
// compared every new resource with all the previous ones, which plumb's
// copy, third_party/kustomize-api, no longer does), and a few kilobytes of
// kustomization can make it copy a large value many times (a 1 MiB var
// substituted 500 times took 7 GB; one 5 MiB file under 200 generator keys
// took 10 GB). Each kustomize target therefore gets a time budget
// (Limits.MaxTargetTime) and a size budget (Limits.MaxTargetBytes): what
// its build may read, counting every read, and what it may produce. A
// target over either is reported at its kustomization, with what it cost
// and how to raise the budget, and is not checked; the other targets are.
// What can be told before building (generator sources, vars) is refused
// before krusty runs; the rest is measured while it runs.

// buildGuard holds one kustomize build to its target's budget. Its
// counters are shared by krusty's reads, which may outlive the build's
// time budget on an abandoned goroutine.
type buildGuard struct {
	// dataFiles are the generators' sources of the closure (checkRead).
	dataFiles map[string]bool
	maxBytes  int64
	read      atomic.Int64
	// cancelled is set when the build ran past its time budget: every
	// further read fails, which stops krusty at its next file.
	cancelled atomic.Bool

	mu sync.Mutex
	// over is the first read past the size budget ("" when none).
	over string
}

func newBuildGuard(c *closure, limits manifest.Limits) *buildGuard {
	g := &buildGuard{maxBytes: limits.OrDefault().MaxTargetBytes}
	for _, n := range c.nodes {
		for f := range n.dataFiles {
			if g.dataFiles == nil {
				g.dataFiles = map[string]bool{}
			}
			g.dataFiles[f] = true
		}
	}
	return g
}

// errBuildStopped is what krusty reads after its build was abandoned.
var errBuildStopped = errors.New("the build was stopped: it ran past its time budget")

// admit counts a read of size bytes of name and refuses it past the
// budget.
func (g *buildGuard) admit(name string, size int) error {
	if g == nil {
		return nil
	}
	if g.cancelled.Load() {
		return errBuildStopped
	}
	total := g.read.Add(int64(size))
	if total <= g.maxBytes {
		return nil
	}
	msg := fmt.Sprintf("the build reads more than the %d-byte size budget of a render target (%d bytes by the read of %s, counting each file as often as kustomize reads it)",
		g.maxBytes, total, name)
	g.mu.Lock()
	if g.over == "" {
		g.over = msg
	}
	g.mu.Unlock()
	return errors.New(msg)
}

// overBudget returns the read that took the build past its size budget.
func (g *buildGuard) overBudget() string {
	if g == nil {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.over
}

// stopped reports whether the build ran past its time budget.
func (g *buildGuard) stopped() bool { return g != nil && g.cancelled.Load() }

// budgetHelp says how to raise the size budget.
const budgetHelp = "raise the budget with --max-target-size or limits.max_target_size in .plumb.yaml, or split the target"

// budgetProblem reports a target over its budget at its kustomization.
func budgetProblem(k *kustomization, key, format string, args ...any) manifest.Problem {
	return manifest.Problem{Rule: RuleKustomize, Level: "error", Location: k.Doc.Start(), Input: true, Key: key + ":" + k.Dir,
		Message: fmt.Sprintf(format, args...)}
}

// buildWithin builds a target within its time budget. A build still
// running at the deadline is abandoned: krusty cannot be interrupted, so
// its goroutine runs on, but its reads fail from then on, its result is
// dropped, and what it prints stays silenced for the rest of the process.
func (r *renderer) buildWithin(c *closure, log *accessLog) (*Target, []manifest.Problem) {
	guard := newBuildGuard(c, r.opts.Limits)
	type built struct {
		t        *Target
		problems []manifest.Problem
	}
	done := make(chan built, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				k := c.nodes[0].k
				done <- built{problems: []manifest.Problem{budgetProblem(k, "crash",
					"kustomize build %s failed: kustomize crashed: %v", k.Dir, p)}}
			}
		}()
		t, problems := r.buildLocked(c, log, guard)
		done <- built{t, problems}
	}()
	limit := r.opts.Limits.OrDefault().MaxTargetTime
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case b := <-done:
		return b.t, b.problems
	case <-timer.C:
		guard.cancelled.Store(true)
		silenceStderr() // never restored: the abandoned build may still print
		k := c.nodes[0].k
		return nil, []manifest.Problem{budgetProblem(k, "time",
			"kustomize build %s did not finish within %v, the time budget of a render target: "+
				"its objects are not checked; "+
				"raise the budget with --max-target-time or limits.max_target_time in .plumb.yaml, or split the target",
			k.Dir, limit)}
	}
}

// outputSize estimates the bytes of a target's objects as YAML: every key
// and string with its length, every other value as a few bytes.
func outputSize(objs []*manifest.Object) int64 {
	var n int64
	for _, o := range objs {
		n += valueSize(o.Content)
	}
	return n
}

func valueSize(v any) int64 {
	switch t := v.(type) {
	case map[string]any:
		n := int64(2)
		for k, e := range t {
			n += int64(len(k)) + 2 + valueSize(e)
		}
		return n
	case []any:
		n := int64(2)
		for _, e := range t {
			n += 2 + valueSize(e)
		}
		return n
	case string:
		return int64(len(t)) + 1
	}
	return 8
}

// outputProblem reports a build whose objects are over the size budget.
func outputProblem(k *kustomization, size, limit int64) manifest.Problem {
	return budgetProblem(k, "output",
		"kustomize build %s produced about %d bytes of objects, over the %d-byte size budget of a render target: its objects are not checked; %s",
		k.Dir, size, limit, budgetHelp)
}

// readProblem reports a build stopped by a read past the size budget.
func readProblem(k *kustomization, over string) manifest.Problem {
	return budgetProblem(k, "read", "kustomize build %s stopped: %s; its objects are not checked; %s", k.Dir, over, budgetHelp)
}

// generatorBudgetProblems refuses, before building, a closure whose
// generators read more than the size budget: every files: and envs: entry
// is read (and its content copied into the generated object) as often as
// it is listed. It is reported at the entry that reads the most.
func (g *graph) generatorBudgetProblems(nodes []*node) []manifest.Problem {
	limit := g.kc.files.limits.MaxTargetBytes
	var total int64
	var most *node
	var mostRead dataRead
	var mostBytes int64
	perEntry := map[manifest.Location]int64{}
	for _, n := range nodes {
		for _, d := range n.dataReads {
			st, err := fs.Stat(g.kc.files.fsys, d.file)
			if err != nil {
				continue
			}
			total += st.Size()
			perEntry[d.at] += st.Size()
			if perEntry[d.at] > mostBytes {
				most, mostRead, mostBytes = n, d, perEntry[d.at]
			}
		}
	}
	if total <= limit || most == nil {
		return nil
	}
	return []manifest.Problem{{Rule: RuleKustomize, Level: "error", Location: mostRead.at, Input: true, Key: "generators:" + most.k.Dir,
		Message: fmt.Sprintf("the generators of the objects built with %s read %d bytes of files, over the %d-byte size budget of a render target "+
			"(kustomize copies each file into the object as often as it is listed; this entry reads %d bytes): list large files once, or %s",
			most.k.File, total, limit, mostBytes, budgetHelp)}}
}

// varsBudgetProblems refuses, before building, a closure whose vars would
// write more than the size budget: each $(NAME) in the closure's files
// becomes a copy of the var's value. The value is read from the object
// the var names when a resource file of the closure holds it; otherwise
// (a generated object, a field a transformer sets) it is taken to be as
// large as the largest file the closure reads, which bounds it.
func (g *graph) varsBudgetProblems(nodes []*node) []manifest.Problem {
	var declared bool
	for _, n := range nodes {
		declared = declared || len(n.k.K.Vars) > 0
	}
	if !declared {
		return nil
	}
	limit := g.kc.files.limits.MaxTargetBytes
	var texts [][]byte
	var largest int64
	for _, n := range nodes {
		files := append([]string{n.k.File}, n.files...)
		for _, f := range files {
			data, err := g.kc.files.read(f)
			if err != nil {
				continue
			}
			largest = max(largest, int64(len(data)))
			if !n.dataFiles[f] {
				texts = append(texts, data)
			}
		}
	}
	for _, n := range nodes {
		for i, v := range n.k.K.Vars {
			uses := 0
			ref := []byte("$(" + v.Name + ")")
			for _, t := range texts {
				uses += bytes.Count(t, ref)
			}
			if uses == 0 {
				continue
			}
			size, known := g.varValueSize(nodes, v)
			if !known {
				size = largest
			}
			if total := int64(uses) * size; total > limit {
				return []manifest.Problem{{Rule: RuleKustomize, Level: "error", Location: n.k.at(manifest.Path{manifest.Key("vars"), manifest.Index(i)}),
					Input: true, Key: "vars:" + n.k.Dir + ":" + v.Name,
					Message: fmt.Sprintf("vars[%d]: $(%s) is used %d times and its value is %s%d bytes: substituting it writes about %d bytes, over the %d-byte size budget of a render target; "+
						"use the value fewer times, or %s", i, v.Name, uses, map[bool]string{true: "about ", false: "up to "}[known], size, total, limit, budgetHelp)}}
			}
		}
	}
	return nil
}

// varValueSize returns the size of a var's value when a resource file of
// the closure holds the object it names.
func (g *graph) varValueSize(nodes []*node, v types.Var) (int64, bool) {
	p, err := manifest.ParsePath(v.FieldRef.FieldPath)
	if v.FieldRef.FieldPath == "" {
		p, err = manifest.MustParsePath("metadata.name"), nil
	}
	if err != nil {
		return 0, false
	}
	for _, n := range nodes {
		for _, f := range n.files {
			if n.dataFiles[f] {
				continue
			}
			for _, sd := range g.docs.get(f) {
				objs, _ := sd.doc.Objects("")
				for _, o := range objs {
					if o.ID.Kind != v.ObjRef.Kind || o.ID.Name != v.ObjRef.Name {
						continue
					}
					if val, ok := o.Get(p); ok {
						// A prefix or suffix a transformer adds is small
						// next to what the budget is about.
						return valueSize(val) + 256, true
					}
				}
			}
		}
	}
	return 0, false
}
