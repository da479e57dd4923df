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
	// TemplateDirs are the parent Template directories: the file's, then
	// the --kubevirt-templates flags', relative to the working directory or
	// absolute. Files found there are reported under these names.
	TemplateDirs []string
}

// resolveKubeVirt merges the file's kubevirt section with the flags: both
// lists of directories are used.
func resolveKubeVirt(file *File, fl *Flags) KubeVirtSettings {
	var s KubeVirtSettings
	for _, d := range append(append([]string(nil), file.KubeVirt.Templates...), fl.KubeVirtTemplates...) {
		s.TemplateDirs = append(s.TemplateDirs, filepath.Clean(d))
	}
	return s
}
