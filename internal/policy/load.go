package policy

import "github.com/plumb-ci/plumb/internal/manifest"

// The API group and kinds of the admission policies the analyzer reads.
const (
	admissionGroup = "admissionregistration.k8s.io"
	kindPolicy     = "ValidatingAdmissionPolicy"
	kindBinding    = "ValidatingAdmissionPolicyBinding"
)

// isPolicyObject reports whether o is an admission policy or a binding of
// one, in an API version the analyzer reads (v1, and v1beta1, whose JSON
// shape is the same), or one of Kyverno's CEL validating policies.
func isPolicyObject(o *manifest.Object) bool {
	if isKyvernoPolicy(o.ID.APIVersion, o.ID.Kind) {
		return true
	}
	switch o.ID.APIVersion {
	case admissionGroup + "/v1", admissionGroup + "/v1beta1":
		return o.ID.Kind == kindPolicy || o.ID.Kind == kindBinding
	}
	return false
}

// Load reads the admission policies and bindings of files and directories
// (directories are walked for .yaml, .yml and .json files; other objects
// are ignored), through the content boundary (manifest.LoadExternal opens
// each directory with manifest.OpenContent: no link leads out of it or
// into .git). A path that cannot be read, or a file that does not parse,
// is a problem with plumb's own input (exit 2); the objects that did load
// come back with them.
func Load(sources []manifest.Source, limits manifest.Limits) ([]*manifest.Object, []manifest.Problem) {
	return manifest.LoadSources("--policies", sources, limits, isPolicyObject)
}
