package compare

import (
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
			if q != p && !opts.Recursive || sameDir(q, opts.SkipDir) {
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
	f, err := os.Open(name)
	if err != nil {
		return nil, Problems{{Location: loc(name, 0), Message: fmt.Sprintf("cannot read the file: %v", cleanPathErr(err))}}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLimit(limits)+1))
	if err != nil {
		return nil, Problems{{Location: loc(name, 0), Message: fmt.Sprintf("cannot read the file: %v", cleanPathErr(err))}}
	}
	return parseInput(filepath.ToSlash(name), data, limits)
}

func parseInput(name string, data []byte, limits manifest.Limits) ([]*manifest.Object, Problems) {
	docs, parseProblems := manifest.Parse(name, data, limits)
	var problems Problems
	for _, p := range parseProblems {
		problems = append(problems, Problem{Location: p.Location, Message: p.Message, Warning: !p.Input})
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
				problems = append(problems, Problem{Location: p.Location, Warning: true,
					Message: "Skipping: Input contains additional files or documents that are not Kubernetes objects: " + p.Message})
			}
		}
		objs = append(objs, o...)
	}
	return objs, problems
}
