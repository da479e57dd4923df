package manifest

import (
	"io/fs"
	"path"
	"slices"
	"strings"
)

// SkipReason says why a file is not read as Kubernetes objects.
type SkipReason string

// Skip reasons, in the order summaries list them.
const (
	// SkipKustomizePatch is a file a kustomization applies as a patch.
	SkipKustomizePatch SkipReason = "kustomize patch"
	// SkipKustomizeGeneratorInput is a file a configMapGenerator or
	// secretGenerator reads.
	SkipKustomizeGeneratorInput SkipReason = "kustomize generator input"
	// SkipKustomizeReplacement is a replacements source file.
	SkipKustomizeReplacement SkipReason = "kustomize replacement source"
	// SkipKustomizeConfig is a transformer configuration, a generator,
	// transformer or validator plugin configuration, or an OpenAPI schema
	// a kustomization reads.
	SkipKustomizeConfig SkipReason = "kustomize configuration"
	// SkipToolConfig is a dotfile (.pre-commit-config.yaml, .yamllint):
	// the configuration of a tool.
	SkipToolConfig SkipReason = "tool configuration"
	// SkipComponentConfig is the configuration file of a Kubernetes
	// component or tool that has apiVersion and kind but is not an API
	// object (a KubeletConfiguration, a kubeconfig).
	SkipComponentConfig SkipReason = "component configuration"
	// SkipNotObject is a file none of whose documents is a Kubernetes
	// object (no apiVersion and kind: values files, empty files).
	SkipNotObject SkipReason = "not a Kubernetes object"
	// SkipTestData is a file in a testdata/ directory: test input, which
	// the go tool ignores too (notdeployed.go).
	SkipTestData SkipReason = "test data"
	// SkipKubeadmPatch is a file of a kubeadm patches directory
	// (kube-apiserver+strategic.yaml): a partial static Pod or
	// configuration kubeadm patches, not an object (tools.go).
	SkipKubeadmPatch SkipReason = "kubeadm patch"
	// SkipVendored is a file in vendor/ beside a go.mod or in
	// node_modules/: someone else's package (notdeployed.go).
	SkipVendored SkipReason = "vendored dependency"
)

// SkipReasons lists every reason in summary order.
var SkipReasons = []SkipReason{SkipKustomizePatch, SkipKustomizeGeneratorInput,
	SkipKustomizeReplacement, SkipKustomizeConfig, SkipToolConfig, SkipComponentConfig, SkipKubeadmPatch, SkipNotObject,
	SkipTemplateSource, SkipTestData, SkipVendored}

// Skipped is a file that is not read as
// Kubernetes objects and is never the subject of a finding (a file that
// does not parse still gets its syntax errors).
type Skipped struct {
	// Path is the repository-relative file.
	Path   string     `json:"path"`
	Reason SkipReason `json:"reason"`
}

// SortSkipped orders skipped entries by path, then reason.
func SortSkipped(s []Skipped) {
	slices.SortFunc(s, func(a, b Skipped) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(string(a.Reason), string(b.Reason))
	})
}

// ChartFile is the file that makes a directory a Helm chart.
const ChartFile = "Chart.yaml"

// IsHelmChartDir reports whether dir holds a Chart.yaml.
func IsHelmChartDir(fsys fs.FS, dir string) bool {
	st, err := fs.Stat(fsys, path.Join(dir, ChartFile))
	return err == nil && !st.IsDir()
}

// isDotfile reports whether a file name starts with a dot: the
// configuration of a tool, not a manifest.
func isDotfile(name string) bool { return strings.HasPrefix(path.Base(name), ".") }

// componentConfigGroups are API groups whose kinds configure a Kubernetes
// component or tool from a file; they are never applied to a cluster.
var componentConfigGroups = []string{
	".config.k8s.io", // kubelet, kube-proxy, kube-scheduler, apiserver, ...
	"audit.k8s.io", "kubeadm.k8s.io", "kind.x-k8s.io", "k3d.io", "ctlptl.dev",
	"clientauthentication.k8s.io", "kustomize.config.k8s.io", "config.kubernetes.io",
	"clusterctl.cluster.x-k8s.io", // clusterctl's metadata.yaml (kind: Metadata) and its configuration
}

// IsComponentConfig reports whether apiVersion and kind name a
// configuration file format rather than an API object: the groups above,
// and two group-less v1 kinds that the core API does not have — a
// kubeconfig (kind: Config) and kube-scheduler's legacy policy file
// (kind: Policy).
func IsComponentConfig(apiVersion, kind string) bool {
	group, _, hasGroup := strings.Cut(apiVersion, "/")
	if !hasGroup {
		return apiVersion == "v1" && (kind == "Config" || kind == "Policy")
	}
	for _, g := range componentConfigGroups {
		if group == strings.TrimPrefix(g, ".") || strings.HasPrefix(g, ".") && strings.HasSuffix(group, g) {
			return true
		}
	}
	return false
}
