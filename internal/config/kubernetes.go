package config

import (
	"fmt"
	"strconv"
	"strings"
)

// DefaultKubernetesVersion is the Kubernetes version plumb assumes when
// none is configured: the version of the Kubernetes libraries (and the API
// schema) built into the binary (k8s.io/client-go v0.37 is Kubernetes 1.37).
var DefaultKubernetesVersion = KubernetesVersion{Major: 1, Minor: 37}

// KubernetesVersion is the cluster version manifests are checked for: Helm
// charts see it as .Capabilities.KubeVersion, schema validation and the
// removed-API table use its minor version.
type KubernetesVersion struct {
	Major, Minor, Patch int
}

// String is the version as Helm and kubectl write it: v1.37.0.
func (v KubernetesVersion) String() string {
	return fmt.Sprintf("v%d.%d.%d", v.Major, v.Minor, v.Patch)
}

// MinorString is the version without its patch: 1.37.
func (v KubernetesVersion) MinorString() string {
	return fmt.Sprintf("%d.%d", v.Major, v.Minor)
}

// Less reports whether v is an older version than w.
func (v KubernetesVersion) Less(w KubernetesVersion) bool {
	if v.Major != w.Major {
		return v.Major < w.Major
	}
	if v.Minor != w.Minor {
		return v.Minor < w.Minor
	}
	return v.Patch < w.Patch
}

// ParseKubernetesVersion reads 1.30, v1.30 or v1.30.2.
func ParseKubernetesVersion(s string) (KubernetesVersion, error) {
	parts := strings.Split(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".")
	if len(parts) < 2 || len(parts) > 3 {
		return KubernetesVersion{}, fmt.Errorf("kubernetes version %q: want MAJOR.MINOR or vMAJOR.MINOR.PATCH, e.g. 1.30 or v1.30.2", s)
	}
	var n [3]int
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || p == "" || (len(p) > 1 && p[0] == '0') {
			return KubernetesVersion{}, fmt.Errorf("kubernetes version %q: %q is not a version number; want e.g. 1.30 or v1.30.2", s, p)
		}
		n[i] = v
	}
	if n[0] != 1 {
		return KubernetesVersion{}, fmt.Errorf("kubernetes version %q: only Kubernetes 1.x exists", s)
	}
	return KubernetesVersion{Major: n[0], Minor: n[1], Patch: n[2]}, nil
}

// resolveKubernetesVersion picks --kubernetes-version, else the file's
// kubernetes_version, else the default.
func resolveKubernetesVersion(file *File, fl *Flags) (KubernetesVersion, error) {
	switch {
	case fl.changed("kubernetes-version"):
		v, err := ParseKubernetesVersion(fl.KubernetesVersion)
		if err != nil {
			return v, fmt.Errorf("--kubernetes-version: %w", err)
		}
		return v, nil
	case file.KubernetesVersion != "":
		v, err := ParseKubernetesVersion(file.KubernetesVersion)
		if err != nil {
			return v, file.src.errorf("kubernetes_version", "%v", err)
		}
		return v, nil
	}
	return DefaultKubernetesVersion, nil
}
