// Package v1 models the VirtualMachine as KubeVirt's template validator sees
// it: the typed kubevirt.io/api/core/v1 structs, decoded with plain
// encoding/json, on which Kubernetes JSONPath is evaluated by reflection.
//
// kubevirt.io/api cannot be fetched from the module proxy, so the types are
// written out here after kubevirt.io/api v1.8 (the version the validator in
// ssp-operator pins), for every field reachable from a rule: the rules are
// rooted at the VM's spec.template, so the whole VirtualMachineInstance
// template (metadata and spec, the domain in full) is modelled, while the
// VM-level fields next to it (runStrategy, dataVolumeTemplates, status) are
// not, because no rule can reach them. The Kubernetes core and meta types the
// VMI spec embeds (ObjectMeta, Affinity, Toleration, ...) are modelled here
// too, under their upstream names, instead of importing k8s.io/api.
//
// Why a typed model and not the YAML maps: the validator's notion of "the
// field exists" is the typed one. A non-pointer field of a present struct
// always exists (with its zero value), a nil pointer at the end of a path is
// found (holding nil), a nil pointer in the middle is "not found", and a
// JSON key the type does not declare is dropped when decoding. Go field
// names, JSON tags, inline (embedded) structs, pointer-ness and the named
// types (DiskBus, ...) all change what a rule sees, so they mirror upstream:
// type names appear in the validator's messages ("mismatching type:
// *resource.Quantity, not int or resource.Quantity", "<uint32 Value>"), and
// this package is called v1 so that they print the same.
//
// Limits: a field added to kubevirt.io/api after v1.8, or one missed here,
// is unknown to the model: a rule on it ends in "invalid JSONPath", and the
// YAML value is ignored when decoding, exactly as an older validator would
// treat it.
package v1
