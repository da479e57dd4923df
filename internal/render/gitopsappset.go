package render

import (
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/valyala/fasttemplate"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// An Argo CD ApplicationSet makes one Application per parameter set its
// generators give, from spec.template, as the ApplicationSet controller
// does with its default (fasttemplate) rendering: each string of the
// template has {{name}} replaced by the parameter of that name, and a tag
// no parameter names left as written. The generators read from the
// repository are resolved here — list, git directories, git files, and a
// matrix of two of those — and each generated Application renders its
// Helm sources like any Application, its fields placed at the template's
// lines. goTemplate, the cluster, pull-request and SCM generators, and
// merge are not rendered; a note says so.

// maxGenerated bounds the Applications one ApplicationSet may make: a
// glob over every directory of a large repository, or a matrix of two
// long lists, would otherwise multiply the renders.
const maxGenerated = 1000

// appSetParams are one generated Application's parameters.
type appSetParams map[string]string

// applicationSet generates the Applications of the ApplicationSet o.
func applicationSet(fsys fs.FS, o *manifest.Object, limits manifest.Limits) ([]*manifest.Object, *manifest.Problem) {
	spec := specMap(o.Content)
	if gt, _ := spec["goTemplate"].(bool); gt {
		return nil, notRendered(o, pathOf("spec", "goTemplate"), "ApplicationSet %s uses goTemplate, which plumb does not render yet, so the charts its Applications deploy are not checked", o.ID.Name)
	}
	tmpl, _ := spec["template"].(map[string]any)
	if tmpl == nil {
		return nil, nil
	}
	var all []appSetParams
	gens := pathOf("spec", "generators")
	for i, g := range listOf(o.Content, "spec", "generators") {
		gm, _ := g.(map[string]any)
		params, p := generate(fsys, o, gens.Child(manifest.Index(i)), gm, limits, 0)
		if p != nil {
			return nil, p
		}
		all = append(all, params...)
		if len(all) > maxGenerated {
			return nil, notRendered(o, gens, "ApplicationSet %s generates more than %d Applications; plumb renders none of them", o.ID.Name, maxGenerated)
		}
	}
	out := make([]*manifest.Object, 0, len(all))
	for _, params := range all {
		app := map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application"}
		for k, v := range fill(tmpl, params).(map[string]any) {
			app[k] = v
		}
		ga := &manifest.Object{Content: app, Origin: appSetOrigin{set: o}}
		ga.ID = manifest.IDOf(app, o.ID.Target)
		if ga.ID.Namespace == "" {
			ga.ID.Namespace = o.ID.Namespace
		}
		out = append(out, ga)
	}
	return out, nil
}

// generate gives the parameter sets of the generator g at at. depth is
// the nesting of matrices (Argo CD allows two levels).
func generate(fsys fs.FS, o *manifest.Object, at manifest.Path, g map[string]any, limits manifest.Limits, depth int) ([]appSetParams, *manifest.Problem) {
	switch {
	case g["list"] != nil:
		return listGenerator(o, at.Child(manifest.Key("list")), g["list"])
	case g["git"] != nil:
		gm, _ := g["git"].(map[string]any)
		return gitGenerator(fsys, o, at.Child(manifest.Key("git")), gm, limits)
	case g["matrix"] != nil && depth < 2:
		mm, _ := g["matrix"].(map[string]any)
		return matrixGenerator(fsys, o, at.Child(manifest.Key("matrix")), mm, limits, depth)
	}
	kinds := slices.Sorted(maps.Keys(g))
	return nil, notRendered(o, at, "ApplicationSet %s: the %s generator needs the cluster or a service plumb does not read, so the charts its Applications deploy are not checked", o.ID.Name, strings.Join(kinds, ", "))
}

// listGenerator gives each element's string values (and values.KEY for
// its values mapping), as the controller reads them without goTemplate.
func listGenerator(o *manifest.Object, at manifest.Path, v any) ([]appSetParams, *manifest.Problem) {
	lm, _ := v.(map[string]any)
	elems, _ := lm["elements"].([]any)
	out := make([]appSetParams, 0, len(elems))
	for i, e := range elems {
		em, _ := e.(map[string]any)
		params := appSetParams{}
		for k, v := range em {
			if k == "values" {
				vm, _ := v.(map[string]any)
				for vk, vv := range vm {
					s, _ := vv.(string)
					params["values."+vk] = s
				}
				continue
			}
			s, ok := v.(string)
			if !ok {
				return nil, notRendered(o, at.Child(manifest.Key("elements"), manifest.Index(i), manifest.Key(k)),
					"ApplicationSet %s: list element value %s is not a string, which the controller refuses without goTemplate", o.ID.Name, k)
			}
			params[k] = s
		}
		out = append(out, params)
	}
	return out, nil
}

// matrixGenerator is the product of its two generators' parameter sets.
func matrixGenerator(fsys fs.FS, o *manifest.Object, at manifest.Path, m map[string]any, limits manifest.Limits, depth int) ([]appSetParams, *manifest.Problem) {
	children, _ := m["generators"].([]any)
	if len(children) != 2 {
		return nil, notRendered(o, at, "ApplicationSet %s: a matrix generator combines exactly two generators", o.ID.Name)
	}
	var sets [2][]appSetParams
	for i, c := range children {
		cm, _ := c.(map[string]any)
		params, p := generate(fsys, o, at.Child(manifest.Key("generators"), manifest.Index(i)), cm, limits, depth+1)
		if p != nil {
			return nil, p
		}
		sets[i] = params
	}
	if len(sets[0])*len(sets[1]) > maxGenerated {
		return nil, notRendered(o, at, "ApplicationSet %s generates more than %d Applications; plumb renders none of them", o.ID.Name, maxGenerated)
	}
	var out []appSetParams
	for _, a := range sets[0] {
		for _, b := range sets[1] {
			p := maps.Clone(a)
			maps.Copy(p, b)
			out = append(out, p)
		}
	}
	return out, nil
}

// fill replaces {{name}} in every string of v (keys are left as written).
func fill(v any, params appSetParams) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = fill(e, params)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = fill(e, params)
		}
		return out
	case string:
		if !strings.Contains(t, "{{") {
			return t
		}
		ft, err := fasttemplate.NewTemplate(t, "{{", "}}")
		if err != nil {
			return t // an unclosed tag: the controller leaves it too
		}
		return ft.ExecuteFuncString(func(w io.Writer, tag string) (int, error) {
			if s, ok := params[strings.TrimSpace(tag)]; ok && strings.TrimSpace(tag) != "" {
				return w.Write([]byte(s))
			}
			return w.Write([]byte("{{" + tag + "}}"))
		})
	}
	return v
}

// appSetOrigin places a generated Application's fields at the
// ApplicationSet's template lines.
type appSetOrigin struct{ set *manifest.Object }

func (t appSetOrigin) Locate(p manifest.Path) (manifest.Location, bool) {
	return t.set.Locate(pathOf("spec", "template").Child(p...))
}

// gitGenerator resolves a git generator over this repository: its
// directories or files. The generator's repoURL is taken to be this
// repository (the ApplicationSet is committed here; another repository's
// paths would not exist here, and give nothing).
func gitGenerator(fsys fs.FS, o *manifest.Object, at manifest.Path, g map[string]any, limits manifest.Limits) ([]appSetParams, *manifest.Problem) {
	if dirs, ok := g["directories"].([]any); ok {
		return gitDirectories(fsys, o, at.Child(manifest.Key("directories")), dirs)
	}
	if files, ok := g["files"].([]any); ok {
		return gitFiles(fsys, o, at.Child(manifest.Key("files")), files, limits)
	}
	return nil, nil
}

// gitDirectories matches every directory of the repository against the
// entries' patterns (path.Match, as the controller), less the excluded.
func gitDirectories(fsys fs.FS, o *manifest.Object, at manifest.Path, entries []any) ([]appSetParams, *manifest.Problem) {
	var include, exclude []string
	for i, e := range entries {
		em, _ := e.(map[string]any)
		p, _ := em["path"].(string)
		if _, err := path.Match(p, ""); err != nil || p == "" {
			return nil, notRendered(o, at.Child(manifest.Index(i), manifest.Key("path")), "ApplicationSet %s: directory pattern %q does not parse", o.ID.Name, p)
		}
		if ex, _ := em["exclude"].(bool); ex {
			exclude = append(exclude, p)
		} else {
			include = append(include, p)
		}
	}
	var out []appSetParams
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || name == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir // .git and other hidden directories
		}
		if matchAny(include, name) && !matchAny(exclude, name) {
			out = append(out, pathParams(name))
			if len(out) > maxGenerated {
				return fs.SkipAll
			}
		}
		return nil
	})
	if err != nil || len(out) > maxGenerated {
		return nil, notRendered(o, at, "ApplicationSet %s: its directories generator matches more than %d directories; plumb renders none of them", o.ID.Name, maxGenerated)
	}
	return out, nil
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// gitFiles reads each file the entries match (doublestar globs) as JSON or
// YAML: an object, or a list of objects, each one parameter set of its
// flattened keys ("cluster.name"), with the file's path parameters.
func gitFiles(fsys fs.FS, o *manifest.Object, at manifest.Path, entries []any, limits manifest.Limits) ([]appSetParams, *manifest.Problem) {
	var out []appSetParams
	for i, e := range entries {
		em, _ := e.(map[string]any)
		pattern, _ := em["path"].(string)
		field := at.Child(manifest.Index(i), manifest.Key("path"))
		if !doublestar.ValidatePattern(pattern) || strings.HasPrefix(pattern, "/") || strings.Contains(pattern, "..") {
			return nil, notRendered(o, field, "ApplicationSet %s: file pattern %q is not a pattern inside the repository", o.ID.Name, pattern)
		}
		matches, err := doublestar.Glob(fsys, pattern, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
		if err != nil || len(matches) > maxGenerated {
			return nil, notRendered(o, field, "ApplicationSet %s: file pattern %q cannot be read or matches more than %d files", o.ID.Name, pattern, maxGenerated)
		}
		for _, m := range matches {
			sets, p := fileParams(fsys, o, field, m, limits)
			if p != nil {
				return nil, p
			}
			out = append(out, sets...)
		}
		if len(out) > maxGenerated {
			return nil, notRendered(o, field, "ApplicationSet %s generates more than %d Applications; plumb renders none of them", o.ID.Name, maxGenerated)
		}
	}
	return out, nil
}

// fileParams are the parameter sets of one generator file.
func fileParams(fsys fs.FS, o *manifest.Object, field manifest.Path, file string, limits manifest.Limits) ([]appSetParams, *manifest.Problem) {
	data, err := manifest.ReadRegular(fsys, file, limits.OrDefault().MaxFileBytes)
	if err != nil {
		return nil, notRendered(o, field, "ApplicationSet %s: %s cannot be read: %v", o.ID.Name, file, err)
	}
	docs, problems := manifest.ParseYAML(file, data, limits)
	if len(problems) > 0 {
		return nil, notRendered(o, field, "ApplicationSet %s: %s is not JSON or YAML the controller reads: %s", o.ID.Name, file, problems[0].Message)
	}
	var out []appSetParams
	for _, d := range docs {
		// A file of a list gives one parameter set per element.
		items := []any{d.Value}
		if l, ok := d.Value.([]any); ok {
			items = l
		}
		for _, item := range items {
			params := pathParams(path.Dir(file))
			params["path.filename"] = path.Base(file)
			params["path.filenameNormalized"] = normalizedName(path.Base(file))
			flatten("", item, params)
			out = append(out, params)
		}
	}
	return out, nil
}

// flatten writes v's leaves as "a.b.c" parameters, as the controller's
// flatten (dot style) does, values printed as %v.
func flatten(prefix string, v any, out appSetParams) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			flatten(join(prefix, k), e, out)
		}
	case []any:
		for i, e := range t {
			flatten(join(prefix, strconv.Itoa(i)), e, out)
		}
	case nil:
		out[prefix] = ""
	default:
		out[prefix] = fmt.Sprintf("%v", t)
	}
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

// pathParams are a directory's parameters: path, path.basename,
// path.basenameNormalized and path[N] for each segment.
func pathParams(dir string) appSetParams {
	params := appSetParams{"path": dir, "path.basename": path.Base(dir), "path.basenameNormalized": normalizedName(path.Base(dir))}
	for i, seg := range strings.Split(dir, "/") {
		params["path["+strconv.Itoa(i)+"]"] = seg
	}
	return params
}

var notNameChars = regexp.MustCompile(`[^a-z0-9.]+`)

// normalizedName is the controller's sanitised name: lower case, runs of
// other characters a dash, trimmed of dashes.
func normalizedName(s string) string {
	return strings.Trim(notNameChars.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
