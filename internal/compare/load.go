package compare

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/re2"
)

// DefaultEntry is the reference metadata file looked for in a directory.
const DefaultEntry = "metadata.yaml"

// maxTemplateBytes bounds every file of a reference.
const maxTemplateBytes = 8 << 20

// LoadPath loads a reference from the local path of its metadata file, or
// of a directory holding metadata.yaml. display is the name printed for the
// reference directory in problems ("" prints p's directory as given). Every
// file is read through an os.Root of the reference directory: nothing
// outside it can be read, symlinks included, nor anything in .git
// (manifest.OpenContent).
func LoadPath(p, display string) (*Reference, Problems) {
	dir, entry := p, DefaultEntry
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return nil, Problems{{Location: loc(p, 0), Message: "Reference config file doesn't exist"}}
	case !st.IsDir():
		dir, entry = filepath.Dir(p), filepath.Base(p)
	}
	if display == "" {
		display = filepath.ToSlash(dir)
	}
	fsys, root, err := manifest.OpenContent(dir)
	if err != nil {
		return nil, Problems{{Location: loc(display, 0), Message: fmt.Sprintf("cannot open the reference directory: %v", err)}}
	}
	defer root.Close()
	return Load(fsys, entry, display)
}

// Load reads and validates the reference whose metadata file is entry in
// fsys (the reference directory). display prefixes file names in problems.
// All problems are returned together; the reference is nil when any is an
// error.
func Load(fsys fs.FS, entry, display string) (*Reference, Problems) {
	l := &loader{fsys: fsys, display: display, hash: sha256.New()}
	ref := l.load(entry)
	if len(l.problems.Errors()) > 0 {
		return nil, l.problems
	}
	ref.Warnings = l.problems
	return ref, l.problems
}

type loader struct {
	fsys     fs.FS
	display  string
	entry    string // display path of the metadata file
	problems Problems
	hash     hash.Hash
}

func (l *loader) file(rel string) string {
	if l.display == "" || l.display == "." {
		return rel
	}
	return path.Join(l.display, rel)
}

func (l *loader) errorf(file string, line int, format string, args ...any) {
	l.problems = append(l.problems, Problem{Location: loc(file, line), Message: fmt.Sprintf(format, args...)})
}

func (l *loader) warnf(file string, line int, format string, args ...any) {
	l.problems = append(l.problems, Problem{Location: loc(file, line), Message: fmt.Sprintf(format, args...), Warning: true})
}

// readFile reads a reference file. Paths are relative to the reference
// directory and may not leave it.
func (l *loader) readFile(rel string) ([]byte, error) {
	clean := path.Clean(filepath.ToSlash(rel))
	if !fs.ValidPath(clean) || clean == "." {
		return nil, fmt.Errorf("the path must be relative and stay inside the reference directory")
	}
	data, err := manifest.ReadRegular(l.fsys, clean, maxTemplateBytes)
	var tl *manifest.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, fmt.Errorf("the file is over %d bytes", maxTemplateBytes)
	case manifest.IsNotRegular(err):
		return nil, fmt.Errorf("the file is %w", err)
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errors.New("the file does not exist")
		}
		return nil, err
	}
	fmt.Fprintf(l.hash, "%s\x00%d\x00", clean, len(data))
	l.hash.Write(data)
	return data, nil
}

func (l *loader) load(entry string) *Reference {
	entryFile := l.file(entry)
	l.entry = entryFile
	ref := &Reference{Entry: entryFile, Dir: l.display, byPath: map[string]*Template{}}
	data, err := l.readFile(entry)
	if err != nil {
		l.errorf(entryFile, 0, "Reference config file cannot be read: %v", err)
		return ref
	}
	root, ps := parseYAMLNode(entryFile, data)
	if len(ps) > 0 {
		l.problems = append(l.problems, ps...)
		return ref
	}
	if root == nil {
		l.errorf(entryFile, 0, "Reference config isn't in correct format: the file is empty")
		return ref
	}
	r := newNodeReader(entryFile, data)
	ref.Version = readVersion(r, root)
	if ref.Version == 0 {
		l.problems = append(l.problems, r.problems...)
		return ref
	}
	md := decodeMetadata(r, root, ref.Version)
	l.problems = append(l.problems, r.problems...)
	if len(l.problems.Errors()) > 0 {
		return ref
	}
	ref.Parts = md.parts
	ref.FunctionFiles = md.functionFiles
	// A path listed twice (in requiredTemplates and optionalTemplates, or
	// in two components) is one template: kube-compare counts matches per
	// path (pkg/compare/compare.go, the per-template match counts), so
	// every listing is satisfied by the same matches. The later listings
	// are left out of correlation and only take part in validation.
	for _, t := range md.templates {
		t.File = l.file(t.Path)
		if first, dup := ref.byPath[t.Path]; dup {
			l.warnf(entryFile, t.Line, "template %s is listed again (first at line %d): both listings are satisfied by the same matches; list it once", t.Path, first.Line)
			continue
		}
		t.order = len(ref.Templates)
		ref.byPath[t.Path] = t
		ref.Templates = append(ref.Templates, t)
	}

	omit, ps2 := resolveOmit(md.omitRaw, md.omitLines, md.defaultOmit, entryFile)
	l.problems = append(l.problems, ps2...)
	ref.omit = omit
	for _, t := range ref.Templates {
		for _, name := range t.Config.FieldsToOmitRefs {
			if _, ok := omit.items[name]; !ok {
				// kube-compare's wording, its typo ("it") included.
				l.errorf(entryFile, t.Line, "template %s: fieldsToOmitRefs entry %q not found it fieldsToOmit Items", t.Path, name)
			}
		}
		t.omit = omit.pathsFor(t.Config.FieldsToOmitRefs)
		// Checked here, not after the template renders: a template that
		// fails to parse must not hide its misspelled inline diff function.
		l.readPerField(t)
	}

	ref.base = l.parseFunctionFiles(md.functionFiles, md.functionFileLines)
	if ref.base == nil {
		// The templates cannot be parsed without the functions, but the
		// files they name are checked all the same: every problem at once.
		for _, t := range ref.Templates {
			if _, err := l.readFile(t.Path); err != nil {
				l.templateReadError(t, err)
			}
		}
		return ref
	}
	for _, t := range ref.Templates {
		l.parseTemplate(ref.base, t)
	}
	for _, t := range ref.Templates {
		if t.tmpl != nil {
			l.preRender(t)
		}
	}
	ids := make([]identity, len(ref.Templates))
	for i, t := range ref.Templates {
		ids[i] = t.fixed
	}
	ref.index = newGroupIndex(ids)
	ref.Overlaps = ref.index.overlaps(func(i int) string { return ref.Templates[i].Path })
	if len(ref.Overlaps) > 0 {
		l.problems = append(l.problems, Problem{Location: loc(entryFile, 0), Warning: true, Info: true,
			Message: "The reference contains overlapping object definitions which may result in unexpected correlation results. Re-run with '--verbose' output enabled to view a detailed description of the issues"})
	}
	ref.Hash = hex.EncodeToString(l.hash.Sum(nil))
	return ref
}

// parseFunctionFiles parses the templateFunctionFiles into the base
// template set every template is cloned from.
// A file that cannot be read is reported at its entry in the metadata
// file (lines), the line to change.
func (l *loader) parseFunctionFiles(files []string, lines []int) *template.Template {
	base := template.New("").Option("missingkey=default").Funcs(funcMap(nil, true))
	ok := true
	for i, f := range files {
		data, err := l.readFile(f)
		if err != nil {
			l.errorf(l.entry, lines[i], "an error occurred while parsing the template function files specified in the config. error: templateFunctionFiles[%d] %q: %v", i, f, err)
			ok = false
			continue
		}
		if _, err := base.New(f).Parse(string(data)); err != nil {
			l.errorf(l.file(f), templateErrorLine(err, f), "an error occurred while parsing the template function files specified in the config. error: %v%s", err, functionHint(err))
			ok = false
		}
	}
	if !ok {
		return nil
	}
	instrument(base)
	return base
}

func (l *loader) parseTemplate(base *template.Template, t *Template) {
	data, err := l.readFile(t.Path)
	if err != nil {
		l.templateReadError(t, err)
		return
	}
	t.source = strings.Split(string(data), "\n")
	set, err := base.Clone()
	if err != nil {
		l.errorf(t.File, 0, "an error occurred while parsing template: %s: %v", t.Path, err)
		return
	}
	tmpl, err := set.New(path.Base(t.Path)).Parse(string(data))
	if err != nil {
		l.errorf(t.File, templateErrorLine(err, path.Base(t.Path)), "an error occurred while parsing template: %s specified in the config. error: %v%s", t.Path, err, functionHint(err))
		return
	}
	run, err := tmpl.Clone()
	if err != nil {
		l.errorf(t.File, 0, "an error occurred while parsing template: %s: %v", t.Path, err)
		return
	}
	instrument(tmpl) // run shares the trees
	t.tmpl = tmpl
	t.run = run.Funcs(template.FuncMap{"doNotMatch": funcMap(nil, false)["doNotMatch"]})
	t.preExec, t.runExec = bounded(t.tmpl), bounded(t.run)
	t.mutatesData = mutatesData(tmpl)
	t.lookups = usesLookups(tmpl)
}

// templateReadError reports a template file that cannot be read at its
// entry in the metadata file: the file may not exist, and the entry is the
// line to change.
func (l *loader) templateReadError(t *Template, err error) {
	l.errorf(l.entry, t.Line, "an error occurred while reading template: %s specified in the config. error: %v", t.Path, err)
}

// preRender executes a template with empty data. The result decides which
// correlation fields are fixed and validates the perField configuration.
func (l *loader) preRender(t *Template) {
	meta, _, err := renderTemplate(t.preExec, map[string]any{}, t.Path)
	if err != nil {
		msg := err.Error()
		if ny, ok := err.(*notYAMLError); ok {
			msg = ny.withOutput() // empty data: the output holds no input values
		}
		l.errorf(t.File, t.errorLine(err), "failed to parse template %s with empty data: %s", t.Path, msg)
		return
	}
	t.meta = meta
	t.fixed = identityOf(meta)
	if t.fixed.Kind == "" {
		l.errorf(t.File, 0, "template missing kind: %s", t.Path)
	}
	// A pattern is validated when the empty-data rendering already holds it
	// (kube-compare's rule); others are checked when they first render.
	for _, f := range t.perField {
		v, ok := lookupPath(meta, f.segs, true)
		pattern, isString := v.(string)
		if !ok || !isString {
			continue
		}
		var err error
		if f.cfg.InlineDiffFunc == InlineRegex {
			if _, err = regexp.Compile(pattern); err != nil {
				err = fmt.Errorf("%w%s", err, re2.Hint(pattern))
			}
		} else {
			err = validateCaptureGroups(pattern)
		}
		if err != nil {
			l.errorf(t.File, 0, "template %s: perField %s: the %s pattern is invalid: %v", t.Path, f.cfg.PathToKey, f.cfg.InlineDiffFunc, err)
		}
	}
}

// readPerField checks a template's perField entries (path syntax, function
// name) and keeps the valid ones, in the sorted order kube-compare
// processes them in.
func (l *loader) readPerField(t *Template) {
	for _, pf := range t.Config.PerField {
		segs, err := parseKeyPath(pf.PathToKey)
		if err != nil {
			l.errorf(l.entry, pf.Line, "template %s: perField pathToKey: %v", t.Path, err)
			continue
		}
		if !slices.Contains(inlineFuncs, pf.InlineDiffFunc) {
			l.errorf(l.entry, pf.Line, "template %s: perField %s: InlineDiffFunc that does not exist. InlineDiffFunc: %s (want %s)",
				t.Path, pf.PathToKey, pf.InlineDiffFunc, strings.Join(inlineFuncs, " or "))
			continue
		}
		t.perField = append(t.perField, perFieldFunc{cfg: pf, segs: segs})
	}
	slices.SortStableFunc(t.perField, func(a, b perFieldFunc) int { return strings.Compare(a.cfg.PathToKey, b.cfg.PathToKey) })
}

var templateLineRE = regexp.MustCompile(`template: ([^:]+):(\d+)`)

// templateErrorLine extracts the line of a text/template error that is
// about the named template (0 when the error is elsewhere).
func templateErrorLine(err error, name string) int {
	for _, m := range templateLineRE.FindAllStringSubmatch(err.Error(), -1) {
		if m[1] == name {
			n, _ := strconv.Atoi(m[2])
			return n
		}
	}
	return 0
}
