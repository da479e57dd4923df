package config

import (
	"fmt"
	"path"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// HelmFile is the helm: section of .plumb.yaml.
type HelmFile struct {
	// ValuesConvention renders a chart once per values-*.yaml and
	// values.*.yaml file next to its Chart.yaml, besides its defaults (on
	// unless set to false).
	ValuesConvention *bool `yaml:"values_convention"`
	// Targets name the renders of charts explicitly; a chart named by any
	// entry renders only as its entries say.
	Targets []HelmTarget `yaml:"targets"`
}

// HelmTarget is one helm.targets entry: a chart rendered with one set of
// values, `helm template` style.
type HelmTarget struct {
	// Chart is the chart's directory, relative to the repository root.
	Chart string `yaml:"chart"`
	// Name is the target's name (default CHART[values files]).
	Name        string `yaml:"name"`
	ReleaseName string `yaml:"release_name"`
	Namespace   string `yaml:"namespace"`
	// Values are values files, relative to the repository root, in Helm's
	// order (later files win).
	Values    []string `yaml:"values"`
	Set       []string `yaml:"set"`
	SetString []string `yaml:"set_string"`
	// KubernetesVersion overrides kubernetes_version for this chart.
	KubernetesVersion string   `yaml:"kubernetes_version"`
	APIVersions       []string `yaml:"api_versions"`
	// File, Line and Column are where the entry is written.
	File         string `yaml:"-"`
	Line, Column int    `yaml:"-"`
}

// HelmConfig is the resolved Helm configuration.
type HelmConfig struct {
	ValuesConvention bool
	Targets          []HelmTarget
	// Command line (helm template's own flags): applied to every chart
	// among the inputs, replacing the convention.
	ValuesFiles, Set, SetString []string
	ReleaseName, Namespace      string
}

// HasFlags reports whether values were given on the command line.
func (h HelmConfig) HasFlags() bool {
	return len(h.ValuesFiles) > 0 || len(h.Set) > 0 || len(h.SetString) > 0 || h.ReleaseName != "" || h.Namespace != ""
}

// helmFlags are `helm template`'s flags, on render and check.
type helmFlags struct {
	HelmValues    []string
	HelmSet       []string
	HelmSetString []string
	ReleaseName   string
	Namespace     string
}

func bindHelmFlags(fs *pflag.FlagSet, fl *Flags) {
	fs.StringArrayVarP(&fl.HelmValues, "values", "f", nil, "Helm values file for the charts among the inputs, as helm template -f (repeatable; later files win)")
	fs.StringArrayVar(&fl.HelmSet, "set", nil, "Helm value key=value for the charts among the inputs, as helm template --set (repeatable)")
	fs.StringArrayVar(&fl.HelmSetString, "set-string", nil, "Helm string value key=value, as helm template --set-string (repeatable)")
	fs.StringVar(&fl.ReleaseName, "release-name", "", "Helm release name (default release-name, as helm template)")
	fs.StringVar(&fl.Namespace, "namespace", "", "Helm release namespace (default default, as helm template)")
}

// resolveHelm merges the helm: section with the flags. Values files given
// on the command line are resolved against the working directory, like
// every other path argument.
func resolveHelm(file *File, fl *Flags, root, cwd string) (HelmConfig, []error) {
	h := HelmConfig{ValuesConvention: true, Targets: append([]HelmTarget(nil), file.Helm.Targets...),
		Set: fl.HelmSet, SetString: fl.HelmSetString, ReleaseName: fl.ReleaseName, Namespace: fl.Namespace}
	if file.Helm.ValuesConvention != nil {
		h.ValuesConvention = *file.Helm.ValuesConvention
	}
	var errs []error
	for _, v := range fl.HelmValues {
		rel, err := RepoPath(root, cwd, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("--values %s: %w", v, err))
			continue
		}
		h.ValuesFiles = append(h.ValuesFiles, rel)
	}
	for i, t := range h.Targets {
		key := fmt.Sprintf("helm.targets[%d]", i)
		if file.src.root != nil {
			if _, n := manifest.NodeAt(file.src.root, manifest.MustParsePath(key)); n != nil {
				h.Targets[i].File, h.Targets[i].Line, h.Targets[i].Column = file.src.name, n.Line, n.Column
			}
		}
		if t.Chart == "" {
			errs = append(errs, file.src.errorf(key, "a helm.targets entry needs chart: (the chart's directory)"))
			continue
		}
		h.Targets[i].Chart = path.Clean(t.Chart)
		for j, v := range t.Values {
			h.Targets[i].Values[j] = path.Clean(v)
		}
		if t.KubernetesVersion != "" {
			if _, err := ParseKubernetesVersion(t.KubernetesVersion); err != nil {
				errs = append(errs, file.src.errorf(key+".kubernetes_version", "%v", err))
			}
		}
	}
	return h, errs
}
