// Package validation implements the semantics of KubeVirt's template
// validator (ssp-operator internal/template-validator/validation): parsing
// the vm.kubevirt.io/validations annotation, Kubernetes JSONPath on the
// typed VirtualMachine with the zero-filled reference-VM fallback, type
// conversion, the four rule types, aggregation and the validator's message
// texts. It knows nothing of files or findings; the kubevirt package turns
// its results into findings.
//
// Deliberate differences from the validator (documented in docs/kubevirt.md):
// quantities are converted to their exact byte count (so 1.5Gi works, as it
// does in a cluster where virt-api re-serialises it first), and the cases
// where the validator's webhook panics (a rule without path, a null
// *resource.Quantity) are errors with an explanation.
package validation
