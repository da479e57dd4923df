package compare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/cluster"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// Kinds are the apiVersion and kind of every template, as its empty-data
// rendering fixes them, in reference order without repeats: what live mode
// fetches (kube-compare pkg/compare/compare.go reads only these kinds,
// which is why references carry "fetch-only" templates for lookupCRs).
func (ref *Reference) Kinds() []cluster.Kind {
	var out []cluster.Kind
	seen := map[cluster.Kind]bool{}
	for _, t := range ref.Templates {
		k := cluster.Kind{APIVersion: t.fixed.APIVersion, Kind: t.fixed.Kind}
		if k.Kind == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
	}
	return out
}

// ClusterOptions select the cluster read in live mode.
type ClusterOptions struct {
	Kubeconfig, Context string
	Concurrency         int
}

// ReadCluster reads the objects of kinds from the cluster the kubeconfig
// names. The warnings name each kind the cluster does not serve or RBAC
// does not let the user list; err is set when the cluster cannot be read
// at all.
func ReadCluster(ctx context.Context, kinds []cluster.Kind, opts ClusterOptions) ([]*manifest.Object, []string, error) {
	cfg, err := cluster.RESTConfig(cluster.Options{Kubeconfig: opts.Kubeconfig, Context: opts.Context})
	if err != nil {
		return nil, nil, err
	}
	res, err := cluster.Fetch(ctx, cfg, kinds, cluster.Options{Concurrency: opts.Concurrency})
	if err != nil {
		return nil, nil, err
	}
	objs := make([]*manifest.Object, 0, len(res.Objects))
	for _, content := range res.Objects {
		objs = append(objs, &manifest.Object{ID: manifest.IDOf(content, ""), Content: content})
	}
	return objs, res.Warnings, nil
}

// ReadKustomization renders the kustomization in dir in-process, as
// `kubectl cluster-compare -k DIR` (kubectl's -k) does, and returns its
// objects. Bases outside dir are read from the repository holding it (the
// nearest directory above with .git, else the working directory when it
// holds dir). A kustomization that does not build is an error.
func ReadKustomization(ctx context.Context, dir string, limits manifest.Limits) ([]*manifest.Object, Problems) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, Problems{{Location: loc(dir, 0), Message: err.Error()}}
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, Problems{{Location: loc(dir, 0), Message: "-k needs a directory holding a kustomization"}}
	}
	if !slices.ContainsFunc(manifest.KustomizationFileNames, func(name string) bool {
		st, err := os.Stat(filepath.Join(abs, name))
		return err == nil && st.Mode().IsRegular()
	}) {
		return nil, Problems{{Location: loc(dir, 0), Message: "no kustomization.yaml, kustomization.yml or Kustomization in this directory"}}
	}
	root := kustomizeRoot(abs)
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, Problems{{Location: loc(dir, 0), Message: err.Error()}}
	}
	rel = filepath.ToSlash(rel)
	fsys, r, err := manifest.OpenContent(root)
	if err != nil {
		return nil, Problems{{Location: loc(dir, 0), Message: fmt.Sprintf("opening %s: %v", root, err)}}
	}
	defer r.Close()
	set := manifest.Load(fsys, []string{rel}, manifest.LoadOptions{Limits: limits})
	res := render.Render(ctx, fsys, set, render.Options{Limits: limits, Targets: []render.TargetSpec{{Pattern: rel}}})
	var problems Problems
	for _, p := range append(set.Problems, res.Problems...) {
		at := p.Location
		if at.File != "" && root != "" {
			at.File = displayPath(root, at.File)
		}
		warning := p.Level != "error" || p.Rule == manifest.RuleDuplicateKey
		problems = append(problems, Problem{Location: at, Message: p.Message, Warning: warning})
	}
	for _, t := range res.Targets {
		if t.Name == rel && t.Kind == render.KindKustomize {
			return t.Objects, problems
		}
	}
	if len(problems.Errors()) == 0 {
		problems = append(problems, Problem{Location: loc(dir, 0), Message: "no kustomization.yaml, kustomization.yml or Kustomization in this directory"})
	}
	return nil, problems
}

// kustomizeRoot is the directory -k reads through: the repository holding
// dir, else the working directory when it holds dir, else dir.
func kustomizeRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return wd
		}
	}
	return dir
}

// displayPath prints a root-relative file as the user would reach it from
// the working directory.
func displayPath(root, file string) string {
	wd, err := os.Getwd()
	if err != nil {
		return file
	}
	abs := filepath.Join(root, filepath.FromSlash(file))
	if rel, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}
