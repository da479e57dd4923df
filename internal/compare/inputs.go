package compare

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// InputOptions configure ReadInputs.
type InputOptions struct {
	// Recursive walks directories below the named ones (-R).
	Recursive bool
	Limits    manifest.Limits
	// Stdin is read for the path "-".
	Stdin io.Reader
	// SkipDir is a directory never read from (the reference's own, whose
	// templates are not manifests).
	SkipDir string
}

// ReadInputs reads the objects of -f paths the way kubectl's resource
// builder does: files (any extension when named), directories (.yaml, .yml
// and .json files; subdirectories with Recursive), multi-document YAML and
// List kinds. Documents that are not objects (no kind) are skipped with a
// warning, as kube-compare does for must-gather archives; a path that does
// not exist or a file that is not valid YAML is an error.
func ReadInputs(paths []string, opts InputOptions) ([]*manifest.Object, Problems) {
	var objs []*manifest.Object
	var problems Problems
	for _, p := range paths {
		for _, f := range strings.Split(p, ",") {
			if f == "" {
				continue
			}
			o, ps := readInputPath(f, opts)
			objs = append(objs, o...)
			problems = append(problems, ps...)
		}
	}
	return objs, problems
}

func readInputPath(p string, opts InputOptions) ([]*manifest.Object, Problems) {
	if p == "-" {
		if opts.Stdin == nil {
			return nil, Problems{{Location: loc("-", 0), Message: "no standard input to read"}}
		}
		data, err := io.ReadAll(io.LimitReader(opts.Stdin, maxLimit(opts.Limits)+1))
		if err != nil {
			return nil, Problems{{Location: loc("-", 0), Message: fmt.Sprintf("reading standard input: %v", err)}}
		}
		return parseInput("-", data, opts.Limits)
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, Problems{{Location: loc(p, 0), Message: fmt.Sprintf("the path %q does not exist", p)}}
	}
	if !st.IsDir() {
		return readInputFile(p, opts.Limits)
	}
	var files []string
	err = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if q != p && (!opts.Recursive || strings.EqualFold(d.Name(), ".git")) || sameDir(q, opts.SkipDir) {
				return fs.SkipDir
			}
			return nil
		}
		if slices.Contains(manifest.ManifestExtensions, strings.ToLower(filepath.Ext(q))) {
			files = append(files, q)
		}
		return nil
	})
	if err != nil {
		return nil, Problems{{Location: loc(p, 0), Message: fmt.Sprintf("reading the directory: %v", cleanPathErr(err))}}
	}
	slices.Sort(files)
	var objs []*manifest.Object
	var problems Problems
	for _, f := range files {
		o, ps := readInputFile(f, opts.Limits)
		objs = append(objs, o...)
		problems = append(problems, ps...)
	}
	return objs, problems
}

func sameDir(a, b string) bool {
	if b == "" {
		return false
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

func maxLimit(l manifest.Limits) int64 {
	if l.MaxFileBytes > 0 {
		return l.MaxFileBytes
	}
	return manifest.DefaultLimits.MaxFileBytes
}

func readInputFile(name string, limits manifest.Limits) ([]*manifest.Object, Problems) {
	// A named pipe is refused unopened: opening it would block.
	data, err := manifest.ReadRegularFile(name, maxLimit(limits))
	var tl *manifest.TooLargeError
	if errors.As(err, &tl) {
		return nil, Problems{{Location: loc(filepath.ToSlash(name), 1), Message: tl.Error()}}
	}
	if err != nil {
		return nil, Problems{{Location: loc(name, 0), Message: fmt.Sprintf("cannot read the file: %v", cleanPathErr(err))}}
	}
	return parseInput(filepath.ToSlash(name), data, limits)
}

// parseInput reads one input file as kube-compare's resource builder does
// (pkg/compare/compare.go, the visitor errors it downgrades to warnings):
// what does not hold a valid resource — YAML that does not parse, a
// document that is not an object or has no kind — is skipped with a
// warning and the run goes on; a duplicate key keeps its last value, as
// kubectl's decoder does, with a warning. Only the input limits (size,
// nesting, alias expansion) stay errors: they guard plumb itself.
func parseInput(name string, data []byte, limits manifest.Limits) ([]*manifest.Object, Problems) {
	docs, parseProblems := manifest.Parse(name, data, limits)
	var problems Problems
	for _, p := range parseProblems {
		switch {
		case p.Rule == manifest.RuleDuplicateKey:
			msg, _, _ := strings.Cut(p.Message, ": keep one of them")
			problems = append(problems, Problem{Location: p.Location, Warning: true,
				Message: msg + ": the last value is used, as kube-compare's reader uses it; keep one of them"})
		case p.Rule == manifest.RuleYAMLSyntax || p.Rule == manifest.RuleInvalidUTF8:
			problems = append(problems, skipped(p.Location, p.Message))
		default:
			problems = append(problems, Problem{Location: p.Location, Message: p.Message, Warning: !p.Input})
		}
	}
	var objs []*manifest.Object
	for _, d := range docs {
		if why := d.NotObject(); why != "" {
			// kube-compare warns about what it skips (shown with -v).
			problems = append(problems, Problem{Location: d.Start(), Warning: true,
				Message: "Skipping: Input contains additional files or documents that are not Kubernetes objects: " + string(why)})
			continue
		}
		o, ps := d.Objects("")
		for _, p := range ps {
			switch p.Rule {
			case manifest.RuleNotAnObject, manifest.RuleMissingKind:
				problems = append(problems, skipped(p.Location, p.Message))
			}
		}
		objs = append(objs, o...)
	}
	return objs, problems
}

// skipped is kube-compare's warning for input that holds no valid
// resource (its skipInvalidResources message).
func skipped(at manifest.Location, why string) Problem {
	return Problem{Warning: true, Message: fmt.Sprintf("Skipping %s: Input contains additional files from supported file extensions"+
		" (json/yaml) that do not contain a valid resource, error: %s. In case this file is expected to be a valid resource modify it accordingly.",
		manifest.FormatLocation(at), why)}
}
