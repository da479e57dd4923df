package config

import (
	"fmt"
	"path/filepath"
)

// SchemaFile is the schema section of .plumb.yaml.
type SchemaFile struct {
	// Enabled turns schema validation off with false (default on).
	Enabled *bool `yaml:"enabled"`
	// KubernetesVersion overrides kubernetes_version for schema validation
	// and the removed-API check.
	KubernetesVersion string `yaml:"kubernetes_version"`
	// CRDs are CustomResourceDefinition files or directories, relative to
	// the configuration file.
	CRDs []string `yaml:"crds"`
	// SkipKinds are kinds left alone: Kind, group/Kind or apiVersion/Kind,
	// with * wildcards.
	SkipKinds []string `yaml:"skip_kinds"`
}

// SchemaSettings is the resolved schema configuration.
type SchemaSettings struct {
	Enabled bool
	// KubernetesVersion is the version objects are validated for:
	// schema.kubernetes_version, else the run's KubernetesVersion.
	KubernetesVersion KubernetesVersion
	// CRDs are the CRD files and directories of schema.crds and --crds,
	// each marked Workflow when the workflow gives it.
	CRDs      []InputPath
	SkipKinds []string
}

// InputPath is a file or directory read outside the checked inputs: Path
// is what to open, Display how findings name it (repository-relative when
// it lies inside the repository, else as written).
type InputPath struct {
	Path, Display string
	// Workflow is set when the workflow names it (a flag, an action input,
	// a configuration file outside the repository) rather than the
	// repository's own configuration.
	Workflow bool
}

// resolveSchema merges the schema section with --crds: the file's paths
// (relative to the file) come first, then the flag's (relative to the
// working directory).
func resolveSchema(file *File, fl *Flags, root, cwd, configFile string, version KubernetesVersion) (SchemaSettings, error) {
	s := SchemaSettings{Enabled: true, KubernetesVersion: version, SkipKinds: file.Schema.SkipKinds}
	if file.Schema.Enabled != nil {
		s.Enabled = *file.Schema.Enabled
	}
	if v := file.Schema.KubernetesVersion; v != "" && !fl.changed("kubernetes-version") {
		parsed, err := ParseKubernetesVersion(v)
		if err != nil {
			return s, file.src.errorf("schema.kubernetes_version", "%v", err)
		}
		s.KubernetesVersion = parsed
	}
	for i, k := range file.Schema.SkipKinds {
		if _, err := filepath.Match(k, ""); err != nil || k == "" {
			return s, file.src.errorf(fmt.Sprintf("schema.skip_kinds[%d]", i), "skip_kinds entry %q is not a valid pattern (Kind, group/Kind or apiVersion/Kind, with * wildcards)", k)
		}
	}
	add := func(base, p string, workflow bool) {
		abs, display := resolveInputPath(root, base, p)
		s.CRDs = append(s.CRDs, InputPath{Path: abs, Display: display, Workflow: workflow})
	}
	fileIsWorkflows := file.path != "" && !InRepository(root, file.path)
	for _, p := range file.Schema.CRDs {
		add(configDir(cwd, configFile), p, fileIsWorkflows)
	}
	for _, p := range fl.CRDs {
		add(cwd, p, true)
	}
	return s, nil
}
