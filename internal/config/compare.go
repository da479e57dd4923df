package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// ReferenceFile is the reference section of .plumb.yaml: a kube-compare
// reference configuration every render target is compared with.
type ReferenceFile struct {
	// Path is the reference's metadata.yaml or its directory.
	Path string `yaml:"path"`
	// DiffConfig is a kube-compare diff configuration (manual correlation).
	DiffConfig string `yaml:"diff_config"`
	// Overrides is a kube-compare user overrides file (accepted deviations).
	Overrides string `yaml:"overrides"`
	// Targets are doublestar patterns of the render targets to compare
	// (default: all).
	Targets []string `yaml:"targets"`
}

// Reference is the resolved reference configuration; Path is "" when the
// comparison is off. Each file has a local path to read and a display path
// (repository-relative when inside the repository) for findings.
type Reference struct {
	Path, Display                 string
	DiffConfig, DiffConfigDisplay string
	Overrides, OverridesDisplay   string
	Targets                       []string
	// Exclude are the reference's own files inside the repository: its
	// templates are not manifests, so they are never loaded as inputs.
	Exclude []string
}

// resolveReference merges the reference section with --reference and
// --diff-config. Paths are relative to the working directory.
func resolveReference(file ReferenceFile, fl *Flags, root, cwd string) (Reference, error) {
	ref := Reference{Targets: file.Targets}
	path, diffConfig := file.Path, file.DiffConfig
	if fl.changed("reference") {
		path = fl.Reference
	}
	if fl.changed("diff-config") {
		diffConfig = fl.DiffConfig
	}
	if path == "" {
		if diffConfig != "" || file.Overrides != "" {
			return ref, fmt.Errorf("reference: diff_config and overrides need a reference (reference.path or --reference)")
		}
		return ref, nil
	}
	ref.Path, ref.Display = localAndDisplay(root, cwd, path)
	dir := ref.Path
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	if rel, err := RepoPath(root, cwd, dir); err == nil && rel != "." {
		ref.Exclude = append(ref.Exclude, rel+"/**")
	}
	if diffConfig != "" {
		ref.DiffConfig, ref.DiffConfigDisplay = localAndDisplay(root, cwd, diffConfig)
		if _, err := RepoPath(root, cwd, diffConfig); err == nil {
			ref.Exclude = append(ref.Exclude, ref.DiffConfigDisplay)
		}
	}
	if file.Overrides != "" {
		ref.Overrides, ref.OverridesDisplay = localAndDisplay(root, cwd, file.Overrides)
		if _, err := RepoPath(root, cwd, file.Overrides); err == nil {
			ref.Exclude = append(ref.Exclude, ref.OverridesDisplay)
		}
	}
	return ref, nil
}

// localAndDisplay returns the path to open and the path to print: relative
// to the repository root when the file is inside it, as given otherwise.
func localAndDisplay(root, cwd, p string) (string, string) {
	local := p
	if !filepath.IsAbs(local) {
		local = filepath.Join(cwd, p)
	}
	if rel, err := RepoPath(root, cwd, p); err == nil {
		return local, rel
	}
	return local, filepath.ToSlash(p)
}
