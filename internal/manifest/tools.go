package manifest

import (
	"path"
	"regexp"
	"strings"
)

// The configuration files of common tools that have apiVersion or kind
// but are not API objects, beyond the groups of componentConfigGroups:
//
//   - a KRM function's configuration (kpt, kustomize's generators,
//     transformers and validators): a document annotated
//     config.kubernetes.io/function (or the older config.k8s.io/function);
//   - kube-state-metrics' custom resource state configuration (kind:
//     CustomResourceStateMetrics, no apiVersion);
//   - a Helm repository index (index.yaml: apiVersion v1, entries, no kind);
//   - kubebuilder's PROJECT file.
//
// Each is the input of a tool, never applied to a cluster.
var krmFunctionAnnotations = []string{"config.kubernetes.io/function", "config.k8s.io/function"}

// isToolConfig reports whether a document is one of the tool
// configurations above. m is its mapping, a and k its apiVersion and kind.
func isToolConfig(file string, m map[string]any, a, k string, hasKind bool) bool {
	switch {
	case path.Base(file) == "PROJECT":
		return true
	case k == "CustomResourceStateMetrics" && a == "":
		return true
	case a == "v1" && !hasKind && m["entries"] != nil:
		return true
	}
	meta, _ := m["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	for _, name := range krmFunctionAnnotations {
		if _, ok := ann[name]; ok {
			return true
		}
	}
	return false
}

// kubeadmPatchRE is kubeadm's patch file name: target[suffix][+patchtype].ext
// (kubeadm init --patches; k8s.io/kubernetes cmd/kubeadm/app/util/patches).
var kubeadmPatchRE = regexp.MustCompile(`^(etcd|kube-apiserver|kube-controller-manager|kube-scheduler|kubeletconfiguration|corednsdeployment)[^+.]*(\+(strategic|merge|json))?\.(ya?ml|json)$`)

// ScaffoldPatch says why a file no kustomization reads is a patch of a
// tool and not an object, "" when it is not: a file named as kubeadm names
// its patches (kubeadm reads a directory of them) with a patch type
// (kube-apiserver+strategic.yaml) or in a directory whose name says patch
// (a plain etcd.yaml elsewhere is an object); or a file in a patches/
// directory (kubebuilder scaffolds patches there that the kustomization
// names only in commented-out entries until a feature is enabled).
func ScaffoldPatch(file string) SkipReason {
	if m := kubeadmPatchRE.FindStringSubmatch(path.Base(file)); m != nil &&
		(m[2] != "" || strings.Contains(strings.ToLower(path.Base(path.Dir(file))), "patch")) {
		return SkipKubeadmPatch
	}
	if path.Base(path.Dir(file)) == "patches" {
		return SkipKustomizePatch
	}
	return ""
}
