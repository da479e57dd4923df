package render

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// originAnnotation is the annotation krusty's originAnnotations build
// option adds: the file an object was read from (relative to the target),
// or the kustomization and generator that made it.
const originAnnotation = "config.kubernetes.io/origin"

// krustyOrigin is the decoded origin annotation.
type krustyOrigin struct {
	Path         string `yaml:"path"`
	Repo         string `yaml:"repo"`
	Ref          string `yaml:"ref"`
	ConfiguredIn string `yaml:"configuredIn"`
	ConfiguredBy struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Name       string `yaml:"name"`
	} `yaml:"configuredBy"`
}

// injectOrigin returns the kustomization content with originAnnotations
// added to buildMetadata, and whether it had to be added (when the user asked
// for it, the annotation stays in the output as krusty would print it).
func injectOrigin(data []byte) ([]byte, bool, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, false, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return data, false, nil // krusty reports the problem
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "buildMetadata" {
			continue
		}
		seq := root.Content[i+1]
		if seq.Kind != yaml.SequenceNode {
			return data, false, nil
		}
		for _, c := range seq.Content {
			if c.Value == types.OriginAnnotations {
				return data, false, nil
			}
		}
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: types.OriginAnnotations})
		out, err := yaml.Marshal(&doc)
		return out, true, err
	}
	root.Content = append(root.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "buildMetadata"},
		&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Tag: "!!str", Value: types.OriginAnnotations},
		}})
	out, err := yaml.Marshal(&doc)
	return out, true, err
}

// krustyOptions are the options `kustomize build` uses by default: load
// restrictions root-only, plugins off, the legacy output order unless the
// kustomization sets sortOptions.
func krustyOptions() *krusty.Options {
	o := krusty.MakeDefaultOptions()
	o.Reorder = krusty.ReorderOptionUnspecified
	o.LoadRestrictions = types.LoadRestrictionsRootOnly
	return o
}

// builtResource is one object of krusty's output.
type builtResource struct {
	origin *krustyOrigin
	// content is the object read straight from krusty's node tree
	// (contentOf); when that cannot model it, json is the object as krusty
	// marshals it instead. `kustomize build` prints that JSON converted to
	// YAML (sigs.k8s.io/yaml), which is how plumb prints either.
	content map[string]any
	json    []byte
}

// runKrusty builds one kustomization directory over the adapter and
// returns krusty's resources in output order.
//
// With withOrigin, originAnnotations is injected into the kustomization
// (through the adapter: the user's file is not touched), read from every
// resource and removed from the output again. It is off on the fast path:
// any buildMetadata makes krusty also record transformer annotations,
// re-marshalling every resource after every transformer, which costs more
// than the build itself (measured: 2.5x the CPU); plumb follows the
// resources through the kustomizations itself and asks krusty for origins
// only when that trace cannot place an object.
//
// log, when set, records what the build read (reuse.go); over replaces
// files' content; guard, when set, holds the build to its budget
// (budget.go).
func runKrusty(files *fileCache, in *interner, k *kustomization, allowRemote, withOrigin bool, log *accessLog, over map[string][]byte, guard *buildGuard) ([]builtResource, error) {
	kfs := &kustomizeFS{files: files, allowRemote: allowRemote, log: log, overrides: over, guard: guard}
	added := false
	if withOrigin {
		data, ok := over[k.File]
		var err error
		if !ok {
			data, err = files.read(k.File)
			log.read(k.File, data, err)
		}
		if err != nil {
			return nil, err
		}
		var injected []byte
		injected, added, err = injectOrigin(data)
		if err != nil {
			return nil, err
		}
		kfs.overrides = map[string][]byte{k.File: injected}
		for f, d := range over {
			if f != k.File {
				kfs.overrides[f] = d
			}
		}
	}
	m, err := krusty.MakeKustomizer(krustyOptions()).Run(kfs, path.Join(virtualRoot, k.Dir))
	if err != nil {
		return nil, err
	}
	return collect(m, added, in)
}

// collect reads the origin of every resource, removes the annotation when
// plumb injected it, and reads each resource's content as krusty's AsYaml
// would give it (before its conversion to YAML, which only printing
// needs).
func collect(m resmap.ResMap, removeOrigin bool, in *interner) ([]builtResource, error) {
	out := make([]builtResource, 0, m.Size())
	for _, r := range m.Resources() {
		b := builtResource{}
		if s, ok := r.GetAnnotations()[originAnnotation]; ok {
			o := &krustyOrigin{}
			if err := yaml.Unmarshal([]byte(s), o); err == nil {
				b.origin = o
			}
			if removeOrigin {
				if err := r.SetOrigin(nil); err != nil {
					return nil, err
				}
			}
		}
		if c, ok := contentOf(r.YNode(), in); ok {
			b.content = c
		} else {
			j, err := r.MarshalJSON()
			if err != nil {
				return nil, fmt.Errorf("printing %s: %w", r.CurId(), err)
			}
			b.json = j
		}
		out = append(out, b)
	}
	return out, nil
}

// originFile converts an origin path (relative to the target directory,
// as krusty joins it) to a repository path; "" when it leaves the
// repository or names a remote file.
func originFile(targetDir, p string) string {
	if p == "" {
		return ""
	}
	full := path.Clean(path.Join(targetDir, filepath.ToSlash(p)))
	if full == ".." || strings.HasPrefix(full, "../") {
		return ""
	}
	return full
}

var (
	virtualRootRE = regexp.MustCompile(regexp.QuoteMeta(virtualRoot) + `/?`)
	// goStructRE matches a Go value printed with %v through a pointer
	// ("&{0xc000123456 <nil>}"): krusty prints its generators that way.
	goStructRE = regexp.MustCompile(` ?&\{0x[0-9a-f]+[^{}]*\}`)
	// goPointerRE matches any other printed pointer.
	goPointerRE = regexp.MustCompile(`0x[0-9a-f]{6,}`)
	// resIDRE matches a resid.ResId printed with %#v.
	resIDRE = regexp.MustCompile(`resid\.ResId\{Gvk:resid\.Gvk\{Group:"([^"]*)", Version:"([^"]*)", Kind:"([^"]*)", isClusterScoped:(?:true|false)\}, Name:"([^"]*)", Namespace:"([^"]*)"\}`)
)

// krustyMessage makes krusty's error readable and deterministic:
// repository-relative paths, object ids as people write them, and no
// memory addresses (which differ from run to run, and reports must not).
func krustyMessage(err error) string {
	msg := virtualRootRE.ReplaceAllString(err.Error(), "")
	msg = goStructRE.ReplaceAllString(msg, "")
	msg = goPointerRE.ReplaceAllString(msg, "(pointer)")
	msg = resIDRE.ReplaceAllStringFunc(msg, func(m string) string {
		g := resIDRE.FindStringSubmatch(m)
		name := g[4]
		if g[5] != "" {
			name = g[5] + "/" + name
		}
		return fmt.Sprintf("%s %q", g[3], name)
	})
	if strings.Contains(msg, "cannot merge or replace") {
		msg += " (behavior: merge and replace change an object of the same name from a base; use behavior: create, or add the base)"
	}
	return strings.Join(strings.Fields(msg), " ")
}

// accumulationMarker starts each level of krusty's wrapping of an error
// met while building a base: "accumulating resources: accumulation
// err='accumulating resources from '../base': 'base' must resolve to a
// file': recursed accumulation of path 'base': <the error>" (the "must
// resolve to a file" part is krusty trying the entry as a file first).
const accumulationMarker = "recursed accumulation of path '"

// unwrapAccumulation returns the error inside krusty's wrapping and the
// directory of the innermost base it was met in.
func unwrapAccumulation(msg string) (inner, dir string, ok bool) {
	i := strings.LastIndex(msg, accumulationMarker)
	if i < 0 {
		return "", "", false
	}
	rest := msg[i+len(accumulationMarker):]
	dir, inner, ok = strings.Cut(rest, "': ")
	return inner, dir, ok && dir != "" && inner != ""
}

// locateKrustyError finds the entry of the closure's kustomizations that a
// krusty error is about: the entry an error about content names
// (krustyerrors.go), else the first entry whose value the message quotes.
// Without one, the target's kustomization file itself.
func locateKrustyError(c *closure, msg string) manifest.Location {
	if loc, ok := locateByContent(c, msg); ok {
		return loc
	}
	for _, n := range c.nodes {
		if n.k.Doc == nil {
			continue
		}
		if loc, ok := findQuoted(n.k, n.k.Doc.Node, nil, msg); ok {
			return loc
		}
	}
	if len(c.nodes) > 0 {
		return c.nodes[0].k.Doc.Start()
	}
	return manifest.Location{}
}

// findQuoted searches the scalar values of a kustomization for one that the
// message mentions (as 'x', "x" or [path: "x"]).
func findQuoted(k *kustomization, n *yaml.Node, p manifest.Path, msg string) (manifest.Location, bool) {
	switch n.Kind {
	case yaml.ScalarNode:
		v := strings.TrimSpace(n.Value)
		if len(v) < 2 {
			return manifest.Location{}, false
		}
		for _, q := range []string{"'" + v + "'", `"` + v + `"`, fmt.Sprintf("%q", v), "'" + path.Join(k.Dir, v) + "'"} {
			if strings.Contains(msg, q) {
				return k.at(p), true
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if loc, ok := findQuoted(k, n.Content[i+1], p.Child(manifest.Key(n.Content[i].Value)), msg); ok {
				return loc, true
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if loc, ok := findQuoted(k, c, p.Child(manifest.Index(i)), msg); ok {
				return loc, true
			}
		}
	}
	return manifest.Location{}, false
}
