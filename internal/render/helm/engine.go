/*
Copyright The Helm Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// plumb: parts of this file (render, recAllTpls, includeFun, tplFun, the
// required and fail functions, sortTemplates, cleanupParseError and the
// error reformatting) are derived from Helm's pkg/engine/engine.go
// (helm.sh/helm/v4 v4.3.1), modified, so that the output is `helm
// template`'s. NOTICE names it; TestHelmCopiesMatchThePinnedModule fails
// when the pinned module's engine.go changes, for the parts to be ported. What differs: each template file is parsed
// once per chart and its tree reused for every values set, and the trees
// are instrumented (instrument.go) so the render records where each byte of
// its output came from, and checks the render's budget (budget.go).

package helm

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"text/template/parse"
	"unicode/utf8"

	ci "helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"

	"github.com/plumb-ci/plumb/internal/tmplcheck"
)

// tmplFile is one template file as the engine names it
// ("podinfo/templates/deployment.yaml"), with where it lives in the
// repository.
type tmplFile struct {
	name string
	src  string
	// repoFile is the repository-relative file, "" inside a .tgz archive
	// (whose archive file is then archive).
	repoFile, archive string
	// lines are the byte offsets of line starts, indexed on first use;
	// analyzers locate findings concurrently (Object.Locate), hence the
	// Once.
	linesOnce sync.Once
	lines     []int
}

// position returns the 1-based line and column of byte offset off.
func (f *tmplFile) position(off int) (line, col int) {
	f.linesOnce.Do(func() { f.lines = lineStarts(f.src) })
	i := sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, runeCount(f.src[f.lines[i]:min(off, len(f.src))]) + 1
}

func lineStarts(s string) []int {
	out := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, i+1)
		}
	}
	return out
}

func runeCount(s string) int { return utf8.RuneCountInString(s) }

// parsedFile is a template file parsed and instrumented once.
type parsedFile struct {
	file  *tmplFile
	trees []namedTree
	base  int // id of its first node
	nodes []nodeInfo
	err   error
}

type namedTree struct {
	name string
	tree *parse.Tree
}

// nextFileBase hands out node id ranges: ids are unique across every file
// parsed in the process, so a render can use trees of any chart.
var nextFileBase atomic.Int64

// maxNodesPerFile bounds one file's node ids (1<<24 nodes).
const maxNodesPerFile = 1 << 24

// treeCache keeps the parsed files of one chart, by template name and
// source (an aliased subchart names the same file differently).
type treeCache struct {
	mu    sync.Mutex
	files map[string]*parsedFile
}

func newTreeCache() *treeCache { return &treeCache{files: map[string]*parsedFile{}} }

// parse returns the instrumented trees of a template file.
func (c *treeCache) parse(f *tmplFile) *parsedFile {
	key := f.name + "\x00" + f.src
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.files[key]; p != nil {
		return p
	}
	p := &parsedFile{file: f, base: int(nextFileBase.Add(maxNodesPerFile) - maxNodesPerFile)}
	c.files[key] = p
	t := template.New(f.name).Option("missingkey=zero").Funcs(parseFuncs)
	if _, err := t.Parse(f.src); err != nil {
		p.err = cleanupParseError(f.name, err)
		return p
	}
	in := &instrumenter{file: f, base: p.base}
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		in.list(tt.Tree.Root, nil)
		nestCalls(tt.Tree, tt.Name())
		p.trees = append(p.trees, namedTree{tt.Name(), tt.Tree})
	}
	sort.Slice(p.trees, func(i, j int) bool { return p.trees[i].name < p.trees[j].name })
	if len(in.nodes) >= maxNodesPerFile {
		p.err = fmt.Errorf("template %s is too large to trace (%d nodes)", f.name, len(in.nodes))
		p.trees = nil
		return p
	}
	p.nodes = in.nodes
	return p
}

// parseFuncs are the names a template may call, for the parser.
var parseFuncs = func() template.FuncMap {
	m := funcMap()
	m[fnAt] = func(int, ...any) string { return "" }
	m[fnIter] = func(int) string { return "" }
	m[fnBudget] = func() string { return "" }
	m[fnEnter] = func(string) string { return "" }
	m[fnLeave] = func() string { return "" }
	return m
}()

// renderable is a template with the values it renders with (engine.go's).
type renderable struct {
	file     *tmplFile
	vals     common.Values
	basePath string
}

const (
	warnStartDelim   = "HELM_ERR_START"
	warnEndDelim     = "HELM_ERR_END"
	recursionMaxNums = 1000
)

var warnRegex = regexp.MustCompile(warnStartDelim + `((?s).*)` + warnEndDelim)

func warnWrap(warn string) string { return warnStartDelim + warn + warnEndDelim }

// rendered is the engine's output for one template file and its trace.
type rendered struct {
	file   *tmplFile
	frame  *frame
	tracer *tracer
}

// engineRun is one render of a chart: the assembled template set, the
// trace being recorded, and the node table of every file it uses.
type engineRun struct {
	t      *template.Template
	tracer *tracer
	nodes  map[int]*parsedFile // by base id
}

// render executes every template of tpls (engine.go's render), recording
// the trace. files maps template names to their files.
//
// b bounds the render (budget.go; nil: unbounded). The templates run on
// a goroutine of their own, which a bound ends at once (nesting.go).
func render(cache *treeCache, tpls map[string]renderable, seed string, b *budget) (out map[string]*rendered, err error) {
	run := &engineRun{t: template.New("gotpl"), tracer: newTracer(), nodes: map[int]*parsedFile{}}
	run.tracer.budget = b
	done := make(chan struct{})
	var name string // the template being rendered
	go func() {
		defer close(done)
		out, err = run.render(cache, tpls, seed, &name)
	}()
	<-done
	if s := run.tracer.stopped; s != nil {
		return nil, s.placed(name)
	}
	return out, err
}

// render is render's work, on the goroutine a stop ends; name is set to
// each template as it is rendered.
func (r *engineRun) render(cache *treeCache, tpls map[string]renderable, seed string, rendering *string) (out map[string]*rendered, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			err = fmt.Errorf("rendering template failed: %v", rec)
		}
	}()
	r.t.Option("missingkey=zero")
	r.initFunMap(seed)

	keys := sortTemplates(tpls)
	for _, name := range keys {
		p := cache.parse(tpls[name].file)
		if p.err != nil {
			return nil, p.err
		}
		r.nodes[p.base] = p
		for _, nt := range p.trees {
			if _, err := r.t.AddParseTree(nt.name, nt.tree); err != nil {
				return nil, cleanupParseError(name, err)
			}
		}
	}
	r.tracer.nodes = r.nodes

	out = make(map[string]*rendered, len(keys))
	for _, name := range keys {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		vals := tpls[name].vals
		vals["Template"] = common.Values{"Name": name, "BasePath": tpls[name].basePath}
		*rendering = name
		f := r.tracer.push()
		err := r.t.ExecuteTemplate(&f.buf, name, vals)
		r.tracer.pop()
		if err != nil {
			return nil, reformatExecErrorMsg(name, err)
		}
		r.tracer.done += int64(f.buf.Len())
		out[name] = &rendered{file: tpls[name].file, frame: f, tracer: r.tracer}
	}
	return out, nil
}

// initFunMap binds the functions that close over the template set (engine.go's
// initFunMap for `helm template`: no cluster, no DNS, lookup empty).
func (r *engineRun) initFunMap(seed string) {
	var fm template.FuncMap
	rnd := seededRandom(seed)
	if b := r.tracer.budget; b != nil {
		fm = maps.Clone(guardedFuncs(b.maxBytes))
		tmplcheck.BoundSizes(rnd, maxListLen, clampInt(b.maxBytes))
	} else {
		fm = funcMap()
	}
	includedNames := map[string]int{}
	fm["include"] = r.includeFun(r.t, includedNames)
	fm["tpl"] = r.tplFun(r.t, includedNames)
	fm["required"] = func(warn string, val any) (any, error) {
		if val == nil {
			return val, errors.New(warnWrap(warn))
		} else if s, ok := val.(string); ok && s == "" {
			return val, errors.New(warnWrap(warn))
		}
		return val, nil
	}
	fm["fail"] = func(msg string) (string, error) { return "", errors.New(warnWrap(msg)) }
	fm["getHostByName"] = func(string) string { return "" }
	maps.Copy(fm, rnd)
	fm[fnAt] = r.tracer.at
	fm[fnIter] = r.tracer.iter
	fm[fnBudget] = func() string { r.tracer.checkBudget(); return "" }
	fm[fnEnter] = r.tracer.enter
	fm[fnLeave] = r.tracer.leave
	r.t.Funcs(fm)
}

// includeFun is Helm's include, recording the included template's trace in
// a frame of its own (trace.go splices it into the caller's output). Its
// recursion limit stops the render (nesting.go) where Helm's fails it.
func (r *engineRun) includeFun(t *template.Template, includedNames map[string]int) func(string, any) (string, error) {
	return func(name string, data any) (string, error) {
		r.tracer.include(name, includedNames[name])
		includedNames[name]++
		r.tracer.checkBudget()
		last := r.tracer.last
		f := r.tracer.push()
		err := t.ExecuteTemplate(&f.buf, name, data)
		r.tracer.pop()
		r.tracer.last = last
		r.tracer.endCall(0)
		includedNames[name]--
		s := f.buf.String()
		if err == nil {
			r.tracer.spliced(s, f)
		}
		return s, err
	}
}

// tplFun is Helm's tpl. Its text is not instrumented: what it writes is
// attributed to the action that called it; templates it includes record
// into a frame that is thrown away.
func (r *engineRun) tplFun(parent *template.Template, includedNames map[string]int) func(string, any) (string, error) {
	return func(tpl string, vals any) (string, error) {
		t, err := parent.Clone()
		if err != nil {
			return "", fmt.Errorf("cannot clone template: %w", err)
		}
		copies := max(len(t.Templates()), 1)
		r.tracer.tpl(copies)
		defer r.tracer.endCall(copies)
		t.Option("missingkey=zero")
		t.Funcs(template.FuncMap{
			"include": r.includeFun(t, includedNames),
			"tpl":     r.tplFun(t, includedNames),
		})
		t, err = t.New(parent.Name()).Parse(tpl)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", tpl, err)
		}
		instrumentTpl(t)
		last := r.tracer.last
		f := r.tracer.push()
		f.muted = true
		err = t.Execute(&f.buf, vals)
		r.tracer.pop()
		r.tracer.last = last
		if err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", tpl, err)
		}
		return strings.ReplaceAll(f.buf.String(), "<no value>", ""), nil
	}
}

// instrumentTpl puts the budget and nesting calls into the templates tpl's
// text made: its own (named "tpl" in a cycle's message) and those it
// defines. The templates cloned from the chart have them already.
func instrumentTpl(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil || isNestCall(tt.Tree.Root) {
			continue
		}
		tmplcheck.Instrument(tt.Tree, fnBudget)
		name := tt.Name()
		if tt.Name() == t.Name() {
			name = "tpl"
		}
		nestCalls(tt.Tree, name)
	}
}

func cleanupParseError(filename string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		return fmt.Errorf("parse error in (%s): %w", filename, err)
	}
	location := tokens[1]
	errMsg := tokens[len(tokens)-1]
	return fmt.Errorf("parse error at (%s): %s", location, errMsg)
}

// reformatExecErrorMsg keeps Helm's message for a failed required or fail
// ("execution error at (FILE:LINE:COL): MESSAGE") and text/template's for
// the rest.
func reformatExecErrorMsg(filename string, err error) error {
	var execErr template.ExecError
	if !errors.As(err, &execErr) {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %w", filename, err)
	}
	location := tokens[1]
	if parts := warnRegex.FindStringSubmatch(tokens[2]); len(parts) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", location, parts[1])
	}
	return fmt.Errorf("execution error at (%s): %s", location, tokens[2])
}

func sortTemplates(tpls map[string]renderable) []string {
	keys := make([]string, 0, len(tpls))
	for key := range tpls {
		keys = append(keys, key)
	}
	sort.Sort(sort.Reverse(byPathLen(keys)))
	return keys
}

type byPathLen []string

func (p byPathLen) Len() int      { return len(p) }
func (p byPathLen) Swap(i, j int) { p[j], p[i] = p[i], p[j] }
func (p byPathLen) Less(i, j int) bool {
	a, b := p[i], p[j]
	ca, cb := strings.Count(a, "/"), strings.Count(b, "/")
	if ca == cb {
		return a < b
	}
	return ca < cb
}

// allTemplates returns the templates of a chart and its dependencies with
// their scoped values (engine.go's allTemplates and recAllTpls). fileOf
// maps a chart and one of its template files to the tmplFile.
func allTemplates(c ci.Charter, vals common.Values, fileOf func(ci.Accessor, *common.File) *tmplFile) (map[string]renderable, error) {
	templates := map[string]renderable{}
	_, err := recAllTpls(c, templates, vals, fileOf)
	return templates, err
}

func recAllTpls(c ci.Charter, templates map[string]renderable, values common.Values, fileOf func(ci.Accessor, *common.File) *tmplFile) (map[string]any, error) {
	vals := values.AsMap()
	subCharts := make(map[string]any)
	accessor, err := ci.NewAccessor(c)
	if err != nil {
		return nil, err
	}
	chartMetaData := accessor.MetadataAsMap()
	chartMetaData["IsRoot"] = accessor.IsRoot()

	next := map[string]any{
		"Chart":        chartMetaData,
		"Files":        newFiles(accessor.Files()),
		"Release":      vals["Release"],
		"Capabilities": vals["Capabilities"],
		"Values":       make(common.Values),
		"Subcharts":    subCharts,
	}
	if accessor.IsRoot() {
		next["Values"] = vals["Values"]
	} else if vs, err := values.Table("Values." + accessor.Name()); err == nil {
		next["Values"] = vs
	}
	for _, child := range accessor.Dependencies() {
		sub, err := ci.NewAccessor(child)
		if err != nil {
			return nil, err
		}
		if subCharts[sub.Name()], err = recAllTpls(child, templates, next, fileOf); err != nil {
			return nil, err
		}
	}
	newParentID := accessor.ChartFullPath()
	for _, t := range accessor.Templates() {
		if t == nil {
			continue
		}
		if accessor.IsLibraryChart() && !strings.HasPrefix(filepath.Base(t.Name), "_") {
			continue
		}
		name := path.Join(newParentID, t.Name)
		f := fileOf(accessor, t)
		f.name = name
		templates[name] = renderable{file: f, vals: next, basePath: path.Join(newParentID, "templates")}
	}
	return next, nil
}
