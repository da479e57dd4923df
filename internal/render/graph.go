package render

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// node is a kustomization with what plumb learnt by checking its entries.
type node struct {
	k *kustomization
	// problems are the entries that cannot be built, each at its line.
	problems []manifest.Problem
	// children are the kustomization directories it builds on (resources
	// that are directories, then components), with the path of the entry
	// that names each, for cycle reports.
	children []edge
	// files are the repository files it reads (resources, patches,
	// generator sources, configurations...): they are consumed, not objects
	// of their own.
	files []string
	// inputs says, for each of files that is not a resource (a patch, a
	// generator input, a configuration), what the kustomization reads it
	// as: such a file is skipped, never an object.
	inputs map[string]manifest.SkipReason
	// customOpenAPI is set when the kustomization replaces kustomize's
	// OpenAPI schema, which krusty keeps in a global.
	customOpenAPI bool
	// copyOps are the copy operations of its JSON 6902 patches.
	copyOps []manifest.Location
	// feedback are its replacements that read an object an earlier
	// replacement wrote to (see feedbackReplacements).
	feedback []manifest.Location
	// helm are its helmCharts entries (kustomize_helm.go).
	helm []helmUse
	// remotes are its remote entries, refused without --allow-remote:
	// the target is reported once as not rendered.
	remotes []remoteRef
}

type remoteRef struct {
	path  manifest.Path
	entry string
}

type edge struct {
	dir   string
	entry manifest.Path
}

// graph checks kustomizations once each and walks their relations.
type graph struct {
	kc          *kustomizationCache
	docs        *docCache
	allowRemote bool

	mu    sync.Mutex
	nodes map[string]*nodeEntry
}

type nodeEntry struct {
	once sync.Once
	n    *node
}

func newGraph(kc *kustomizationCache, docs *docCache, allowRemote bool) *graph {
	return &graph{kc: kc, docs: docs, allowRemote: allowRemote, nodes: map[string]*nodeEntry{}}
}

// node returns the checked kustomization of dir, nil when dir has none.
func (g *graph) node(dir string) *node {
	g.mu.Lock()
	e := g.nodes[dir]
	if e == nil {
		e = &nodeEntry{}
		g.nodes[dir] = e
	}
	g.mu.Unlock()
	e.once.Do(func() {
		if k := g.kc.get(dir); k != nil {
			e.n = g.check(k)
		}
	})
	return e.n
}

// check validates every entry of one kustomization that names a file or
// directory, so a broken build is reported at the line to fix rather than
// as krusty's wrapped error.
func (g *graph) check(k *kustomization) *node {
	n := &node{k: k, inputs: map[string]manifest.SkipReason{}}
	if k.problem != nil {
		if !k.reported {
			n.problems = append(n.problems, *k.problem)
		} else {
			// Keep the target from rendering without a second report.
			p := *k.problem
			p.Rule = ""
			n.problems = append(n.problems, p)
		}
		return n
	}
	fail := func(p manifest.Path, format string, args ...any) {
		n.problems = append(n.problems, *kustProblem(k.at(p), "%s: %s", p, fmt.Sprintf(format, args...)))
	}
	fsys := g.kc.files.fsys

	// file checks a path entry that must name a file (or, with dirOK, a
	// directory) in or below the kustomization's directory, which the
	// kustomization reads as role.
	file := func(p manifest.Path, entry string, dirOK bool, role manifest.SkipReason) {
		if isRemote(entry) {
			g.remote(n, p, entry)
			return
		}
		full, err := resolve(k.Dir, entry)
		if err != nil {
			fail(p, "%v", err)
			return
		}
		st, err := fs.Stat(fsys, full)
		switch {
		case err != nil:
			fail(p, "%s", statMessage(entry, err))
		case !inDir(full, k.Dir):
			fail(p, "%q is outside the kustomization's directory: kustomize loads files only from the kustomization's directory and below (list a kustomization directory instead)", entry)
		case linkLeavesDir(g.kc.files, full, k.Dir):
			fail(p, "%q is a symlink (or lies under one) that leads outside the kustomization's directory: kustomize refuses to load it (security: files must be in or below the kustomization's directory); copy the file into the directory instead", entry)
		case st.IsDir() && !dirOK:
			fail(p, "%q is a directory, not a file", entry)
		case st.IsDir():
			for _, f := range dirFiles(fsys, full) {
				n.files = append(n.files, f)
				n.inputs[f] = role
			}
		default:
			n.files = append(n.files, full)
			n.inputs[full] = role
		}
	}

	for i, entry := range k.K.Resources {
		p := k.resourcePath(i)
		if strings.TrimSpace(entry) == "" {
			// An empty entry resolves to the kustomization's own directory.
			fail(p, "the entry is empty: name a resource file or a kustomization directory")
			continue
		}
		if isRemote(entry) {
			g.remote(n, p, entry)
			continue
		}
		full, err := resolve(k.Dir, entry)
		if err != nil {
			fail(p, "%v", err)
			continue
		}
		st, err := fs.Stat(fsys, full)
		switch {
		case err != nil:
			fail(p, "resource %s", statMessage(entry, err))
		case st.IsDir():
			sub := g.kc.get(full)
			switch {
			case sub == nil:
				fail(p, "%q is a directory without a kustomization file (kustomization.yaml, kustomization.yml or Kustomization)", entry)
			case sub.problem == nil && sub.IsComponent():
				fail(p, "%q is a Component: list it under components, not resources", entry)
			default:
				n.children = append(n.children, edge{dir: full, entry: p})
			}
		case !inDir(full, k.Dir):
			fail(p, "%q is outside the kustomization's directory: kustomize loads resource files only from the kustomization's directory and below (make its directory a kustomization and list that instead)", entry)
		case linkLeavesDir(g.kc.files, full, k.Dir):
			fail(p, "%q is a symlink (or lies under one) that leads outside the kustomization's directory: kustomize refuses to load it (security: files must be in or below the kustomization's directory); copy the file into the directory, or make its directory a kustomization and list that instead", entry)
		default:
			n.files = append(n.files, full)
		}
	}
	for i, entry := range k.K.Components {
		p := manifest.Path{manifest.Key("components"), manifest.Index(i)}
		if strings.TrimSpace(entry) == "" {
			fail(p, "the entry is empty: name a component directory")
			continue
		}
		if isRemote(entry) {
			g.remote(n, p, entry)
			continue
		}
		full, err := resolve(k.Dir, entry)
		if err != nil {
			fail(p, "%v", err)
			continue
		}
		st, err := fs.Stat(fsys, full)
		switch {
		case err != nil:
			fail(p, "component %s", statMessage(entry, err))
		case !st.IsDir():
			fail(p, "component %q is a file: components are directories holding a kind: Component kustomization", entry)
		default:
			sub := g.kc.get(full)
			switch {
			case sub == nil:
				fail(p, "component %q has no kustomization file", entry)
			case sub.problem == nil && !sub.IsComponent():
				fail(p, "%q is a Kustomization, not a Component: list it under resources, or make it kind: Component", entry)
			default:
				n.children = append(n.children, edge{dir: full, entry: p})
			}
		}
	}

	for _, field := range []string{"patches", "patchesJson6902"} {
		list := k.K.Patches
		if field == "patchesJson6902" {
			list = k.K.PatchesJson6902
		}
		for i, pt := range list {
			entry := manifest.Path{manifest.Key(field), manifest.Index(i)}
			if pt.Path == "" && pt.Patch == "" {
				fail(entry, "a patch entry needs path (a patch file) or patch (the patch inline)")
				continue
			}
			if pt.Path != "" {
				before := len(n.problems)
				file(entry.Child(manifest.Key("path")), pt.Path, false, manifest.SkipKustomizePatch)
				if len(n.problems) == before {
					g.checkPatch(n, entry, pt.Path, nil, pt.Target != nil, false, field == "patchesJson6902")
				}
				continue
			}
			g.checkPatch(n, entry, "", entry.Child(manifest.Key("patch")), pt.Target != nil, false, field == "patchesJson6902")
		}
	}
	for i, entry := range k.K.PatchesStrategicMerge {
		p := manifest.Path{manifest.Key("patchesStrategicMerge"), manifest.Index(i)}
		if isInlinePatch(string(entry)) {
			g.checkPatch(n, p, "", p, false, true, false)
			continue
		}
		before := len(n.problems)
		file(p, string(entry), false, manifest.SkipKustomizePatch)
		if len(n.problems) == before {
			g.checkPatch(n, p, string(entry), nil, false, true, false)
		}
	}
	for gi, gen := range k.K.ConfigMapGenerator {
		g.checkKV(file, "configMapGenerator", gi, gen.FileSources, gen.EnvSources, k)
	}
	for gi, gen := range k.K.SecretGenerator {
		g.checkKV(file, "secretGenerator", gi, gen.FileSources, gen.EnvSources, k)
	}
	for i, entry := range k.K.Crds {
		file(manifest.Path{manifest.Key("crds"), manifest.Index(i)}, entry, false, manifest.SkipKustomizeConfig)
	}
	for i, entry := range k.K.Configurations {
		file(manifest.Path{manifest.Key("configurations"), manifest.Index(i)}, entry, false, manifest.SkipKustomizeConfig)
	}
	if p := k.K.OpenAPI["path"]; p != "" {
		file(manifest.Path{manifest.Key("openapi"), manifest.Key("path")}, p, false, manifest.SkipKustomizeConfig)
		n.customOpenAPI = true
	}
	if len(k.K.OpenAPI) > 0 {
		n.customOpenAPI = true
	}
	for i, r := range k.K.Replacements {
		if r.Path != "" {
			file(manifest.Path{manifest.Key("replacements"), manifest.Index(i), manifest.Key("path")}, r.Path, false, manifest.SkipKustomizeReplacement)
		}
	}
	n.feedback = g.feedbackReplacements(k)
	for _, field := range []string{"generators", "transformers", "validators"} {
		var entries []string
		switch field {
		case "generators":
			entries = k.K.Generators
		case "transformers":
			entries = k.K.Transformers
		default:
			entries = k.K.Validators
		}
		for i, entry := range entries {
			if isInlinePatch(entry) {
				continue
			}
			p := manifest.Path{manifest.Key(field), manifest.Index(i)}
			full, err := resolve(k.Dir, entry)
			if err == nil {
				if st, serr := fs.Stat(fsys, full); serr == nil && st.IsDir() {
					if g.kc.get(full) == nil {
						fail(p, "%q is a directory without a kustomization file", entry)
					} else {
						n.children = append(n.children, edge{dir: full, entry: p})
					}
					continue
				}
			}
			before := len(n.problems)
			file(p, entry, false, manifest.SkipKustomizeConfig)
			if len(n.problems) == before {
				if full, err := resolve(k.Dir, entry); err == nil {
					if what := g.plugin(full); what != "" {
						n.problems = append(n.problems, unsupported(k.at(p), p, fmt.Sprintf(
							"%s is %s: not supported, plumb does not run kustomize plugins, so the target is not rendered. "+
								"Render it with kustomize build --enable-alpha-plugins into the repository and check that, or exclude this kustomization", entry, what)))
					}
				}
			}
		}
	}
	g.checkHelmCharts(n, fail)
	if len(n.remotes) > 0 {
		n.problems = append(n.problems, remoteProblem(n))
	}
	return n
}

// checkKV checks the files and env files of a generator entry. A file
// source is "path" or "key=path".
func (g *graph) checkKV(file func(manifest.Path, string, bool, manifest.SkipReason), field string, gi int, files, envs []string, k *kustomization) {
	for i, src := range files {
		if _, p, ok := strings.Cut(src, "="); ok {
			src = p
		}
		file(manifest.Path{manifest.Key(field), manifest.Index(gi), manifest.Key("files"), manifest.Index(i)}, src, true, manifest.SkipKustomizeGeneratorInput)
	}
	_, envsNode := k.node(manifest.Path{manifest.Key(field), manifest.Index(gi), manifest.Key("envs")})
	nEnvs := 0
	if envsNode != nil {
		nEnvs = len(envsNode.Content)
	}
	for i, src := range envs {
		p := manifest.Path{manifest.Key(field), manifest.Index(gi), manifest.Key("envs"), manifest.Index(i)}
		if i >= nEnvs {
			p = manifest.Path{manifest.Key(field), manifest.Index(gi), manifest.Key("env")}
		}
		file(p, src, false, manifest.SkipKustomizeGeneratorInput)
	}
}

// remote refuses a remote entry unless --allow-remote was given.
func (g *graph) remote(n *node, p manifest.Path, entry string) {
	if !g.allowRemote {
		n.remotes = append(n.remotes, remoteRef{p, entry})
	}
}

// remoteProblem is the one warning about a kustomization's remote entries,
// at the first: the target is not rendered.
func remoteProblem(n *node) manifest.Problem {
	first := n.remotes[0]
	what := fmt.Sprintf("%s: remote %q", first.path, first.entry)
	if more := len(n.remotes) - 1; more == 1 {
		what += fmt.Sprintf(" (and %s: %q)", n.remotes[1].path, n.remotes[1].entry)
	} else if more > 1 {
		what += fmt.Sprintf(" (and %d more remote entries)", more)
	}
	return manifest.Problem{Rule: RuleRemote, Level: "warning", Location: n.k.at(first.path), Key: "remote:" + first.path.String(),
		Message: what + ": target not rendered, because plumb builds only from the repository; " +
			"pass --allow-remote to let kustomize fetch it, or vendor it into the repository"}
}

// statMessage explains why an entry cannot be read.
func statMessage(entry string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%q not found: no such file or directory", entry)
	case errors.Is(cleanFSError(err), errOutside):
		return fmt.Sprintf("%q leads outside the repository (through a symlink)", entry)
	}
	return fmt.Sprintf("%q cannot be read: %v", entry, cleanFSError(err))
}

// dirFiles lists the regular files directly in a directory (a generator's
// directory file source).
func dirFiles(fsys fs.FS, dir string) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, dir+"/"+e.Name())
		}
	}
	return out
}

// isInlinePatch tells an inline YAML document in a string entry from a path,
// as krusty does for patchesStrategicMerge, transformers and generators.
func isInlinePatch(s string) bool {
	return strings.Contains(s, "\n") || strings.HasPrefix(strings.TrimSpace(s), "{") || strings.HasPrefix(strings.TrimSpace(s), "[") ||
		strings.Contains(s, ": ")
}

// closure is everything one target builds on.
type closure struct {
	nodes    []*node // depth first, the target first
	problems []manifest.Problem
	// customOpenAPI is set when a kustomization of the closure changes the
	// global OpenAPI schema.
	customOpenAPI bool
}

// walk collects the kustomizations a target builds on and every problem in
// them, including cycles (reported at the entry that closes the cycle).
func (g *graph) walk(dir string) *closure {
	c := &closure{}
	seen := map[string]bool{}
	var stack []string
	var visit func(dir string)
	visit = func(dir string) {
		n := g.node(dir)
		if n == nil {
			return
		}
		seen[dir] = true
		stack = append(stack, dir)
		c.nodes = append(c.nodes, n)
		c.problems = append(c.problems, n.problems...)
		c.customOpenAPI = c.customOpenAPI || n.customOpenAPI
		for _, e := range n.children {
			if i := slices.Index(stack, e.dir); i >= 0 {
				c.problems = append(c.problems, g.cycleProblem(stack[i:]))
				continue
			}
			if !seen[e.dir] {
				visit(e.dir)
			}
		}
		stack = stack[:len(stack)-1]
	}
	visit(dir)
	if len(c.problems) == 0 {
		c.problems = append(c.problems, g.buildCountProblems(c.nodes)...)
		c.problems = append(c.problems, copyProblems(c.nodes)...)
		c.problems = append(c.problems, feedbackProblems(c.nodes)...)
	}
	return c
}

// maxJSONPatchCopies bounds the copy operations of the JSON 6902 patches
// one target applies. Each can double an object (copy /spec to
// /spec/again): thirty make it a billion times larger, which kustomize
// builds until memory runs out.
const maxJSONPatchCopies = 10

// copyProblems reports a closure whose patches copy more than
// maxJSONPatchCopies times, at the first copy operation of the
// kustomization that has the most.
func copyProblems(nodes []*node) []manifest.Problem {
	total := 0
	var most *node
	for _, n := range nodes {
		total += len(n.copyOps)
		if len(n.copyOps) > 0 && (most == nil || len(n.copyOps) > len(most.copyOps)) {
			most = n
		}
	}
	if total <= maxJSONPatchCopies {
		return nil
	}
	return []manifest.Problem{{Rule: RuleKustomize, Level: "error", Location: most.copyOps[0], Input: true, Key: "copies:" + most.k.Dir,
		Message: fmt.Sprintf("more than %d JSON patch copy operations apply to the objects built with %s (each can double an object: "+
			"thirty make it a billion times larger): copy fewer fields, or write the values where they belong", maxJSONPatchCopies, most.k.File)}}
}

// maxKustomizeBuilds bounds how many kustomizations one target builds.
// krusty builds a base once for every path that reaches it: ten layers that
// each include the next twice build the last one 1,024 times, and twenty
// layers a million times (minutes, then hours, for a few files). An
// overlay with its bases and components builds tens.
const maxKustomizeBuilds = 10_000

// buildCountProblems reports, in a closure without cycles, the
// kustomizations whose builds pass maxKustomizeBuilds while none of their
// own bases does: the layer to change. Targets above it are not built.
func (g *graph) buildCountProblems(nodes []*node) []manifest.Problem {
	counts := map[string]int{}
	var count func(n *node) int
	count = func(n *node) int {
		if c, ok := counts[n.k.Dir]; ok {
			return c
		}
		total := 1
		for _, e := range n.children {
			if child := g.node(e.dir); child != nil {
				total = min(total+count(child), maxKustomizeBuilds+1)
			}
		}
		counts[n.k.Dir] = total
		return total
	}
	var out []manifest.Problem
	for _, n := range nodes {
		if count(n) <= maxKustomizeBuilds {
			continue
		}
		lowest, largest := true, edge{}
		most := 0
		for _, e := range n.children {
			child := g.node(e.dir)
			if child == nil {
				continue
			}
			if c := count(child); c > maxKustomizeBuilds {
				lowest = false
			} else if c > most {
				most, largest = c, e
			}
		}
		if !lowest {
			continue
		}
		out = append(out, manifest.Problem{Rule: RuleKustomize, Level: "error", Location: n.k.at(largest.entry), Input: true, Key: "builds:" + n.k.Dir,
			Message: fmt.Sprintf("%s: building %s takes more than %d kustomize builds (kustomize builds a base once for every path that reaches it, "+
				"and this entry alone takes %d): include each base once, or through fewer layers that include the same bases",
				largest.entry, n.k.Dir, maxKustomizeBuilds, most)})
	}
	return out
}

// cycleProblem reports a cycle of kustomizations once, however it was
// entered: it starts at the first directory in sort order and is located
// at the entry that leads back to it.
func (g *graph) cycleProblem(cycle []string) manifest.Problem {
	start := 0
	for i, d := range cycle {
		if d < cycle[start] {
			start = i
		}
	}
	rotated := append(append([]string(nil), cycle[start:]...), cycle[:start]...)
	last := g.node(rotated[len(rotated)-1])
	var at manifest.Location
	var entry manifest.Path
	for _, e := range last.children {
		if e.dir == rotated[0] {
			at, entry = last.k.at(e.entry), e.entry
			break
		}
	}
	path := strings.Join(append(rotated, rotated[0]), " → ")
	return manifest.Problem{Rule: RuleKustomize, Level: "error", Location: at, Input: true, Key: "cycle:" + path,
		Message: fmt.Sprintf("%s: cyclic kustomization: %s (kustomize cannot build a kustomization that includes itself)", entry, path)}
}

// unsupported is the warning about a kustomization entry plumb cannot
// build offline; the target is not rendered and the rest is checked.
func unsupported(at manifest.Location, p manifest.Path, msg string) manifest.Problem {
	return manifest.Problem{Rule: RuleUnsupported, Level: "warning", Location: at, Key: "unsupported:" + p.String(),
		Message: p.String() + ": " + msg}
}

// plugin says what kind of plugin a generators/transformers/validators
// file configures ("" for a built-in one, which krusty runs): a KRM
// function (the config.kubernetes.io/function annotation: an exec or
// container function) or an external plugin (any kind that is not
// apiVersion: builtin).
func (g *graph) plugin(file string) string {
	for _, d := range g.docs.get(file) {
		m, ok := d.doc.Value.(map[string]any)
		if !ok {
			continue
		}
		md, _ := m["metadata"].(map[string]any)
		annotations, _ := md["annotations"].(map[string]any)
		for _, a := range []string{"config.kubernetes.io/function", "config.k8s.io/function"} {
			if fn, ok := annotations[a].(string); ok {
				switch {
				case strings.Contains(fn, "exec:"):
					return "an exec KRM function"
				case strings.Contains(fn, "container:"):
					return "a container KRM function"
				}
				return "a KRM function"
			}
		}
		if api, _ := m["apiVersion"].(string); api != "builtin" && api != "" {
			kind, _ := m["kind"].(string)
			return fmt.Sprintf("an external plugin (%s %s)", api, kind)
		}
	}
	return ""
}
