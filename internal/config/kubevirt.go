package config

import (
	"path/filepath"
)

// KubeVirtConfig is the kubevirt section of .plumb.yaml.
type KubeVirtConfig struct {
	// Templates are directories of OpenShift Templates in which the parent
	// Templates that VMs name (vm.kubevirt.io/template) are looked up, in
	// addition to the Templates among the checked inputs.
	Templates []string `yaml:"templates"`
}

// KubeVirtSettings is the resolved KubeVirt configuration.
type KubeVirtSettings struct {
	// TemplateDirs are the --kubevirt-templates directories (from the file
	// first, then the flags), relative to the working directory or
	// absolute, as given.
	TemplateDirs []string
}

// resolveKubeVirt merges the file's kubevirt section with the flags: both
// lists of directories are used. Relative directories in the file are
// relative to the working directory, like the file's paths.
func resolveKubeVirt(file *File, fl *Flags, cwd string) KubeVirtSettings {
	var s KubeVirtSettings
	for _, d := range append(append([]string(nil), file.KubeVirt.Templates...), fl.KubeVirtTemplates...) {
		if !filepath.IsAbs(d) && cwd != "" {
			if rel, err := filepath.Rel(cwd, filepath.Join(cwd, d)); err == nil {
				d = rel
			}
		}
		s.TemplateDirs = append(s.TemplateDirs, d)
	}
	return s
}
