package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A configuration file inside the repository is the pull request's own
// content: whoever opens the pull request writes it, and plumb runs with
// the job's permissions. Every path it names is therefore confined to the
// repository: relative, inside the repository root once resolved, through
// symbolic links too, and never into .git (a report written to
// .git/hooks/post-checkout would be a hook a later git step runs; .git/config
// may hold the checkout's token). Paths given on the command line or as
// action inputs come from the workflow's author and may name anything.
// Violations are configuration errors (exit 2) at the line of the value.

// errInGit refuses a path into the repository's .git directory.
var errInGit = errors.New("it leads into .git, which plumb never reads or writes for the repository's configuration")

// InRepository reports whether path (absolute) lies lexically inside root.
func InRepository(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// confinePath checks a path the repository's configuration names, relative
// to base; it returns the absolute path. The path need not exist (a report
// to write): its nearest existing ancestor is what symbolic links are
// resolved from.
func confinePath(root, base, p string) (string, error) {
	if p == "" {
		return "", errors.New("the path is empty")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, `\`) {
		return "", errors.New("it is an absolute path; a path in the repository's own configuration must be relative and stay inside the repository (a path given on the command line or as an action input may name anything)")
	}
	abs := filepath.Clean(filepath.Join(base, p))
	rel, err := filepath.Rel(root, abs)
	if err != nil || !InRepository(root, abs) {
		return "", errors.New("it leads outside the repository; a path in the repository's own configuration must stay inside it (a path given on the command line or as an action input may name anything)")
	}
	if inGitDir(rel) {
		return "", errInGit
	}
	real, err := resolveExisting(abs)
	if err != nil {
		return "", err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	realRel, err := filepath.Rel(realRoot, real)
	if err != nil || !InRepository(realRoot, real) {
		return "", errors.New("it leads outside the repository through a symbolic link; a path in the repository's own configuration must stay inside it")
	}
	if inGitDir(realRel) {
		return "", fmt.Errorf("through a symbolic link, %w", errInGit)
	}
	return abs, nil
}

// inGitDir reports whether a root-relative path is a .git directory (the
// repository's or a submodule's) or below one.
func inGitDir(rel string) bool {
	return manifest.IsGitPath(filepath.ToSlash(rel))
}

// resolveExisting resolves the symbolic links of the longest existing
// prefix of an absolute path and appends the rest.
func resolveExisting(abs string) (string, error) {
	rest := ""
	for p := abs; ; {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("it cannot be resolved: %w", err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// confineFileValues applies the confinement to every path the
// configuration file sets and the command line does not override. (Report
// files inside the repository are then written without following its links,
// whoever named them: report.WithinRoot.)
func confineFileValues(cfg *Config, file *File, fl *Flags, cwd string) []error {
	if file.path == "" || !InRepository(cfg.Root, file.path) {
		return nil
	}
	root := cfg.Root
	var errs []error
	check := func(key, base, p string) {
		if _, err := confinePath(root, base, p); err != nil {
			errs = append(errs, file.src.errorf(key, "%s %q: %v", key, p, err))
		}
	}
	if len(fl.Paths) == 0 {
		for i, p := range file.Paths {
			check(fmt.Sprintf("paths[%d]", i), cwd, p)
		}
	}
	if len(cfg.FormatsAt) > 0 {
		for i, spec := range file.Format {
			if _, out, ok := strings.Cut(spec, "="); ok && out != "" {
				if _, err := confinePath(root, cwd, out); err != nil {
					errs = append(errs, file.src.errorf(fmt.Sprintf("format[%d]", i), "format %q: the report file: %v", spec, err))
				}
			}
		}
	}
	for i, p := range file.Rules.Files {
		check(fmt.Sprintf("rules.files[%d]", i), cwd, p)
	}
	// checks.dirs, schema.crds and policies are relative to a --config file's
	// directory; a file found by its name was rebased to the working
	// directory.
	fileBase := cwd
	if fl.ConfigFile != "" {
		fileBase = filepath.Dir(file.path)
	}
	for i, d := range file.Checks.Dirs {
		check(fmt.Sprintf("checks.dirs[%d]", i), fileBase, d)
	}
	for i, p := range file.Schema.CRDs {
		check(fmt.Sprintf("schema.crds[%d]", i), fileBase, p)
	}
	for i, p := range file.Policies {
		check(fmt.Sprintf("policies[%d]", i), fileBase, p)
	}
	if file.Reference.Path != "" && !fl.changed("reference") {
		check("reference.path", cwd, file.Reference.Path)
	}
	if file.Reference.DiffConfig != "" && !fl.changed("diff-config") {
		check("reference.diff_config", cwd, file.Reference.DiffConfig)
	}
	if file.Reference.Overrides != "" {
		check("reference.overrides", cwd, file.Reference.Overrides)
	}
	for i, d := range file.KubeVirt.Templates {
		check(fmt.Sprintf("kubevirt.templates[%d]", i), cwd, d)
	}
	return errs
}

// confineConfigFile refuses a configuration file inside the repository
// that is a symbolic link out of it (or into .git): its content would be
// another file's, which an error message could quote.
func confineConfigFile(fl *Flags, cwd, name, display string) error {
	root, err := resolveRoot(fl, cwd)
	if err != nil || !InRepository(root, name) {
		return nil
	}
	rel, err := filepath.Rel(root, name)
	if err != nil {
		return nil
	}
	if _, err := confinePath(root, root, rel); err != nil {
		return fmt.Errorf("%s: the configuration file is inside the repository but %v", display, err)
	}
	return nil
}
