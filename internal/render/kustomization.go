package render

import (
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// kustomization is one kustomization file as plumb reads it: kustomize's own
// typed view (so the semantics are krusty's) next to the YAML nodes (so every
// entry has a line and column).
type kustomization struct {
	Dir  string // repository-relative directory
	File string // repository-relative path of the kustomization file
	Doc  *manifest.Document
	K    types.Kustomization // after kustomize's FixKustomization
	// problem is set when the file could not be read as a kustomization;
	// reported when the loader has already reported it.
	problem  *manifest.Problem
	reported bool
}

// IsComponent reports whether the kustomization is a kind: Component.
func (k *kustomization) IsComponent() bool { return k.K.Kind == types.ComponentKind }

// at locates a path of the kustomization document (nearest present
// ancestor when absent).
func (k *kustomization) at(p manifest.Path) manifest.Location {
	if k.Doc == nil {
		return manifest.Location{File: k.File, Line: 1, Column: 1}
	}
	loc, _ := k.Doc.Locate(p)
	return loc
}

// node returns the key and value nodes at p, or nil.
func (k *kustomization) node(p manifest.Path) (key, value *yaml.Node) {
	if k.Doc == nil {
		return nil, nil
	}
	return manifest.NodeAt(k.Doc.Node, p)
}

// listEntry is the path of an entry of a kustomization list field. krusty
// appends deprecated fields to their successors (bases to resources,
// imageTags to images), so an index past the first list continues in the
// second.
func (k *kustomization) listEntry(field, legacy string, i int) manifest.Path {
	_, n := k.node(manifest.Path{manifest.Key(field)})
	size := 0
	if n != nil && n.Kind == yaml.SequenceNode {
		size = len(n.Content)
	}
	if i < size || legacy == "" {
		return manifest.Path{manifest.Key(field), manifest.Index(i)}
	}
	return manifest.Path{manifest.Key(legacy), manifest.Index(i - size)}
}

// resourcePath is the path of resources[i] (bases after resources).
func (k *kustomization) resourcePath(i int) manifest.Path {
	return k.listEntry("resources", "bases", i)
}

// kustomizationCache loads each kustomization once per render.
type kustomizationCache struct {
	files  *fileCache
	limits manifest.Limits
	// known holds documents already parsed by the loader, by file, and
	// reported the first input problem the loader found in a file.
	known    map[string][]*manifest.Document
	reported map[string]manifest.Problem

	mu sync.Mutex
	m  map[string]*kustEntry
}

type kustEntry struct {
	once sync.Once
	k    *kustomization
}

func newKustomizationCache(files *fileCache, set *manifest.Set, limits manifest.Limits) *kustomizationCache {
	c := &kustomizationCache{files: files, limits: limits, known: map[string][]*manifest.Document{},
		reported: map[string]manifest.Problem{}, m: map[string]*kustEntry{}}
	if set != nil {
		for _, f := range set.Files {
			c.known[f] = nil
		}
		for _, d := range set.Documents {
			c.known[d.File] = append(c.known[d.File], d)
		}
		for _, p := range set.Problems {
			if _, seen := c.reported[p.Location.File]; p.Input && !seen {
				c.reported[p.Location.File] = p
			}
		}
	}
	return c
}

// kustomizationFile finds the kustomization file of a directory: "" when
// there is none, an error when there are several (as krusty refuses).
func kustomizationFile(fsys fs.FS, dir string) (string, error) {
	var found []string
	for _, n := range manifest.KustomizationFileNames {
		p := path.Join(dir, n)
		if st, err := fs.Stat(fsys, p); err == nil && !st.IsDir() {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return found[len(found)-1], fmt.Errorf("%s has several kustomization files (%s); kustomize requires exactly one", dir, strings.Join(found, ", "))
}

// get loads the kustomization of dir; nil when dir has none.
func (c *kustomizationCache) get(dir string) *kustomization {
	c.mu.Lock()
	e := c.m[dir]
	if e == nil {
		e = &kustEntry{}
		c.m[dir] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.k = c.load(dir) })
	return e.k
}

func (c *kustomizationCache) load(dir string) *kustomization {
	file, err := kustomizationFile(c.files.fsys, dir)
	if err != nil {
		// Several kustomization files: reported at the one kustomize
		// would not pick.
		k := &kustomization{Dir: dir, File: file}
		k.problem = kustProblem(manifest.Location{File: file, Line: 1, Column: 1}, "%v", err)
		return k
	}
	if file == "" {
		return nil
	}
	k := &kustomization{Dir: dir, File: file}
	data, err := c.files.read(file)
	if err != nil {
		k.problem = kustProblem(manifest.Location{File: file, Line: 1, Column: 1}, "cannot read the kustomization: %v", cleanFSError(err))
		return k
	}
	docs, known := c.known[file]
	if p, bad := c.reported[file]; bad {
		// The loader has reported why the file cannot be read; the target
		// fails without a second finding.
		k.problem, k.reported = &p, true
		return k
	}
	if !known {
		var problems []manifest.Problem
		docs, problems = manifest.Parse(file, data, c.limits)
		for _, p := range problems {
			if p.Input {
				k.problem = &p
				return k
			}
		}
	}
	if len(docs) == 0 {
		// An empty kustomization: krusty refuses it.
		k.problem = kustProblem(manifest.Location{File: file, Line: 1, Column: 1}, "%s", emptyKustomization)
		return k
	}
	k.Doc = docs[0]
	if err := k.K.Unmarshal(data); err != nil {
		if loc, msg, ok := k.typeError(err); ok {
			k.problem = kustProblem(loc, "%s", msg)
			return k
		}
		msg := strings.TrimPrefix(err.Error(), "invalid Kustomization: ")
		if m := unknownFieldRE.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("unknown field %q: kustomize rejects the kustomization; check the field's spelling and indentation", m[1])
		}
		k.problem = kustProblem(k.unknownFieldLocation(err), "%s", msg)
		return k
	}
	if isEmptyKustomization(&k.K) {
		// Only apiVersion and kind: krusty refuses it as it refuses an
		// empty file, so it gets the same words.
		k.problem = kustProblem(k.Doc.Start(), "%s", emptyKustomization)
		return k
	}
	k.K.FixKustomization()
	if errs := k.K.EnforceFields(); len(errs) > 0 {
		k.problem = kustProblem(k.at(manifest.Path{manifest.Key("kind")}), "%s", strings.Join(errs, "; "))
	}
	return k
}

var unknownFieldRE = regexp.MustCompile(`unknown field "([^"]+)"`)

// unknownFieldLocation points a decoding error at the offending key.
func (k *kustomization) unknownFieldLocation(err error) manifest.Location {
	if m := unknownFieldRE.FindStringSubmatch(err.Error()); m != nil {
		// The field may be nested (patches[0].pathh): find the key anywhere.
		if n := findKey(k.Doc.Node, m[1]); n != nil {
			return manifest.Location{File: k.File, Line: n.Line + k.Doc.LineOffset, Column: n.Column}
		}
	}
	return k.Doc.Start()
}

// typeErrorRE reads encoding/json's type errors: "json: cannot unmarshal
// string into Go struct field Kustomization.resources of type []string".
var typeErrorRE = regexp.MustCompile(`cannot unmarshal (\S+) into Go struct field \w+\.(\S+) of type (\S+)`)

// typeError turns a value of the wrong type into a message about the
// field, at the field's key: the first segment of the field's path is a
// top-level key, the last is looked for below it.
func (k *kustomization) typeError(err error) (manifest.Location, string, bool) {
	m := typeErrorRE.FindStringSubmatch(err.Error())
	if m == nil {
		return manifest.Location{}, "", false
	}
	field := strings.Split(m[2], ".")
	loc := k.Doc.Start()
	if key, value := k.node(manifest.Path{manifest.Key(field[0])}); key != nil {
		loc = k.at(manifest.Path{manifest.Key(field[0])})
		if len(field) > 1 {
			if n := findKey(value, field[len(field)-1]); n != nil {
				loc = manifest.Location{File: k.File, Line: n.Line + k.Doc.LineOffset, Column: n.Column}
			}
		}
	}
	return loc, fmt.Sprintf("%s: the value is %s, kustomize wants %s", m[2], jsonKind(m[1]), goTypeName(m[3])), true
}

// jsonKind names a JSON value kind as people read YAML.
func jsonKind(kind string) string {
	switch kind {
	case "array":
		return "a list"
	case "object":
		return "a mapping"
	case "bool":
		return "a boolean"
	case "number":
		return "a number"
	case "string":
		return "a string"
	}
	return kind
}

// goTypeName names the Go types of kustomization fields as people read
// YAML.
func goTypeName(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "[]string":
		return "a list of strings"
	case t == "bool":
		return "a boolean"
	case strings.HasPrefix(t, "int"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.Contains(t, "."):
		return "a mapping"
	}
	return t
}

// findKey returns the first mapping key node named name, depth first.
func findKey(n *yaml.Node, name string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == name {
				return n.Content[i]
			}
		}
	}
	for _, c := range n.Content {
		if k := findKey(c, name); k != nil {
			return k
		}
	}
	return nil
}

func kustProblem(loc manifest.Location, format string, args ...any) *manifest.Problem {
	return &manifest.Problem{Rule: RuleKustomize, Level: "error", Location: loc, Message: fmt.Sprintf(format, args...), Input: true}
}

var scpUserRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// isRemote reports whether kustomize would fetch a resource entry from the
// network (a git repository or an http(s) URL), following the forms krusty
// accepts.
func isRemote(entry string) bool {
	switch {
	case strings.Contains(entry, "://"), strings.HasPrefix(entry, "git::"),
		scpUserRE.MatchString(entry),
		strings.HasPrefix(entry, "github.com/"), strings.HasPrefix(entry, "github.com:"):
		return true
	}
	return false
}

// resolve joins a kustomization entry to the kustomization's directory and
// checks that the result stays inside the repository.
func resolve(dir, entry string) (string, error) {
	if path.IsAbs(entry) || strings.HasPrefix(entry, `\`) {
		return "", fmt.Errorf("%q is an absolute path: kustomize paths are relative to the kustomization, and plumb reads only the repository", entry)
	}
	p := path.Join(dir, entry)
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", fmt.Errorf("%q leads outside the repository", entry)
	}
	return p, nil
}

// inDir reports whether p is dir or below it (krusty's root-only load
// restriction for files).
func inDir(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// emptyKustomization is the one wording of a kustomization with nothing in
// it (an empty file, comments only, or only apiVersion and kind).
const emptyKustomization = "the kustomization is empty: list resources, components or generators, or delete it (kustomize refuses an empty kustomization)"

// isEmptyKustomization reports whether a kustomization sets nothing but
// apiVersion and kind, which kustomize refuses ("kustomization.yaml is
// empty").
func isEmptyKustomization(k *types.Kustomization) bool {
	c := *k
	c.TypeMeta = types.TypeMeta{}
	return reflect.DeepEqual(c, types.Kustomization{})
}
