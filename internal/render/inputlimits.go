package render

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// krusty and the YAML library under it have none of the loader's limits:
// a resource whose aliases refer to themselves (data: &A {b: *A}) made a
// build spin for minutes or die of a stack overflow after 3 GB, a 100 MB
// generator file took 3.5 GB, and a named pipe blocked the run forever.
// Every file a build reads is therefore held to the loader's limits before
// krusty sees it: the graph checks each entry that names a file (and
// reports the entry), and the file system krusty reads through refuses
// what slipped past (a file no entry names directly).

// loadedLimitProblems collects, by file, the limit problems the loader
// found in the files it read; a file it read without one maps to nil.
func loadedLimitProblems(set *manifest.Set) map[string][]manifest.Problem {
	out := map[string][]manifest.Problem{}
	if set == nil {
		return out
	}
	for _, f := range set.Files {
		out[f] = nil
	}
	for _, p := range set.Problems {
		if manifest.IsLimitProblem(p) {
			out[p.Location.File] = append(out[p.Location.File], p)
		}
	}
	return out
}

// limitProblems returns the problems that keep a file from being parsed
// safely as YAML: nesting or aliases past the limits (the loader's, for a
// file it read; checked on first use otherwise).
func (c *fileCache) limitProblems(name string) []manifest.Problem {
	if ps, ok := c.loaded[name]; ok {
		return ps
	}
	f := c.entry(name)
	f.limitOnce.Do(func() {
		data, err := c.read(name)
		if err != nil {
			return // the read fails where it is met
		}
		f.limits = manifest.LimitProblems(name, data, c.limits)
	})
	return f.limits
}

// unsafeInput says why a file an entry names cannot be given to krusty
// ("" when it can): not a regular file, over the file-size limit, or (for
// a file read as YAML, not a generator's data) nesting or aliases past the
// limits. st is the file's information when the caller has it; name is
// the file as the entry writes it.
func (g *graph) unsafeInput(file, name string, st fs.FileInfo, data bool) string {
	files := g.kc.files
	if st == nil {
		var err error
		if st, err = files.stat(file); err != nil {
			return fmt.Sprintf("%q cannot be read: %v", name, cleanFSError(err))
		}
	}
	if err := manifest.CheckRegular(st, files.limits.MaxFileBytes); err != nil {
		return inputMessage(name, err)
	}
	if data {
		return ""
	}
	if ps := files.limitProblems(file); len(ps) > 0 {
		return limitMessage(name, ps[0])
	}
	return ""
}

// inputMessage explains a file refused by manifest.CheckRegular.
func inputMessage(file string, err error) string {
	var tl *manifest.TooLargeError
	if errors.As(err, &tl) {
		return fmt.Sprintf("%q is %d bytes, over the %d-byte file-size limit: kustomize would hold all of it, and every copy it makes, in memory (raise the limit with --max-file-size)",
			file, tl.Size, tl.Limit)
	}
	return fmt.Sprintf("%q is %v", file, err)
}

// limitMessage explains a file whose YAML breaks a limit.
func limitMessage(file string, p manifest.Problem) string {
	return fmt.Sprintf("%q cannot be given to kustomize, which has no nesting or alias limits and would crash or spin on it: %s: %s",
		file, manifest.FormatLocation(p.Location), p.Message)
}

// addFile records a file the kustomization reads; data files are a
// generator's sources, read as bytes.
func (n *node) addFile(file string, data bool, at manifest.Location) {
	n.files = append(n.files, file)
	if data {
		if n.dataFiles == nil {
			n.dataFiles = map[string]bool{}
		}
		n.dataFiles[file] = true
		n.dataReads = append(n.dataReads, dataRead{file: file, at: at})
	}
}

// dataRead is one generator source a kustomization reads (a file named
// twice is read twice).
type dataRead struct {
	file string
	at   manifest.Location
}

// checkRead refuses, at krusty's read of a file, what the graph's checks
// of the entries did not see: a file over the limits. data tells the
// generators' sources, which are not parsed as YAML.
func (k *kustomizeFS) checkRead(name string) error {
	if k.guard != nil && k.guard.dataFiles[name] {
		return nil
	}
	if ps := k.files.limitProblems(name); len(ps) > 0 {
		return errors.New(limitMessage(name, ps[0]))
	}
	return nil
}
