package schema

import (
	"fmt"
	"slices"
)

// The OpenAPI documents list as required every field whose Go type has no
// omitempty, but the API server never checks that list for built-in kinds:
// it decodes a missing field as its zero value and then runs its own
// validation, which rejects most zero values (a container without a name,
// a port 0) but not all. A missing field is reported only when the API
// server rejects the object for it:
//   - never for a boolean: missing is false, a value like any other;
//   - never for the fields below, whose zero value the validation accepts
//     (each row names the validation function, k8s.io/kubernetes v1.37.2,
//     pkg/apis/<group>/validation, that accepts it).
var requiredNotEnforced = map[string]map[string]string{
	// SetDefaults_CSIDriver fills every field of the spec, and
	// validateCSIDriverSpec accepts the defaults.
	"io.k8s.api.storage.v1.CSIDriver": {"spec": "storage/validation.ValidateCSIDriver"},
	// An empty audience asks for the API server's own audiences.
	"io.k8s.api.storage.v1.TokenRequest": {"audience": "storage/validation.validateTokenRequests"},
	// An empty preference matches every node.
	coreV1 + "PreferredSchedulingTerm": {"preference": core + "ValidatePreferredSchedulingTerms"},
	coreV1 + "HTTPHeader":              {"value": core + "validateHTTPGetAction (header names only)"},
	coreV1 + "Sysctl":                  {"value": core + "validateSysctls (names only)"},
	coreV1 + "SleepAction":             {"seconds": core + "validateSleepAction (0 to terminationGracePeriodSeconds)"},
	coreV1 + "ISCSIVolumeSource":       {"lun": core + "validateISCSIVolumeSource (0 to 255)"},
	coreV1 + "ISCSIPersistentVolumeSource": {
		"lun": core + "validateISCSIPersistentVolumeSource (0 to 255)",
	},
	coreV1 + "LimitRangeSpec":              {"limits": core + "ValidateLimitRange (no limits is a valid LimitRange)"},
	"io.k8s.api.batch.v1.PodFailurePolicy": {"rules": batch + "validatePodFailurePolicy (no rules is a valid policy)"},
}

// requiredByValidation are the fields the OpenAPI documents leave optional
// but the API server's validation requires whenever the object is created
// (each row names the validation function, k8s.io/kubernetes v1.37.2):
//   - a container's image: the schema makes it optional "to allow higher
//     level config management to default or override container images in
//     workload controller templates", but validateContainerCommon rejects
//     an empty image in a Pod and in every pod template alike (a
//     Deployment without one fails with containers[0].image: Required
//     value); an ephemeral container's likewise.
var requiredByValidation = map[string]map[string]string{
	coreV1 + "Container":          {"image": core + "validateContainerCommon"},
	coreV1 + "EphemeralContainer": {"image": core + "validateEphemeralContainers"},
}

// enforceRequired drops from the types' required lists what the API
// server does not enforce, and adds what its validation requires
// (requiredByValidation). An exception that names no required field of
// the schema is an error: a new Kubernetes release must be looked at again.
func enforceRequired(types []*apiType, byName map[string]*apiType, exceptions map[string]map[string]string) error {
	for def, props := range exceptions {
		t := byName[def]
		if t == nil {
			return fmt.Errorf("required exceptions: no definition %s in the embedded schema", def)
		}
		for prop := range props {
			if !slices.Contains(t.required, prop) {
				return fmt.Errorf("required exceptions: %s.%s is not a required field", def, prop)
			}
		}
	}
	for def, props := range requiredByValidation {
		t := byName[def]
		if t == nil {
			continue // a test's schema without the definition
		}
		for prop := range props {
			if slices.Contains(t.required, prop) {
				return fmt.Errorf("required additions: %s.%s is already required by the schema", def, prop)
			}
			t.required = append(t.required, prop)
		}
	}
	for _, t := range types {
		if len(t.required) == 0 {
			continue
		}
		skip := exceptions[t.name]
		t.required = slices.DeleteFunc(t.required, func(r string) bool {
			if _, ok := skip[r]; ok {
				return true
			}
			f := t.props[r]
			return f != nil && f.typ.kind == kindBoolean
		})
	}
	return nil
}
