package change

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/value"
)

// RuleImmutable is an update the API server rejects: a field that cannot
// change once the object exists.
const RuleImmutable = "change/immutable-field"

// immutableField is one field the API server refuses to change.
type immutableField struct {
	keys []string
	// validation is the API server function that refuses it.
	validation string
	// unset is the value the API server defaults the field to ("" when
	// an absent field is not compared: the API server keeps or
	// generates the old value).
	unset any
}

// immutableFields are, by kind, the fields compared as a whole. The
// kinds' own rules (Service, PVC, bindings, ConfigMap, Secret, CRD) are
// below.
var immutableFields = map[string][]immutableField{
	"Deployment": {{keys: []string{"spec", "selector"}, validation: "apps ValidateDeploymentUpdate"}},
	"ReplicaSet": {{keys: []string{"spec", "selector"}, validation: "apps ValidateReplicaSetUpdate"}},
	"DaemonSet":  {{keys: []string{"spec", "selector"}, validation: "apps ValidateDaemonSetUpdate"}},
	"StatefulSet": {
		{keys: []string{"spec", "selector"}, validation: "apps ValidateStatefulSetUpdate"},
		{keys: []string{"spec", "serviceName"}, validation: "apps ValidateStatefulSetUpdate", unset: ""},
		{keys: []string{"spec", "podManagementPolicy"}, validation: "apps ValidateStatefulSetUpdate", unset: "OrderedReady"},
		{keys: []string{"spec", "volumeClaimTemplates"}, validation: "apps ValidateStatefulSetUpdate"},
	},
	"Job": {
		{keys: []string{"spec", "selector"}, validation: "batch ValidateJobUpdate"},
		{keys: []string{"spec", "template"}, validation: "batch ValidateJobUpdate"},
	},
}

// immutable finds the updates of one object (same identity at base and
// head) that the API server rejects.
func immutable(p Pair) []finding.Finding {
	b, h := p.Base, p.Head
	if identity(b.ID) != identity(h.ID) || recreatedByTool(h) || isHook(h) {
		return nil // a new object (generated name), or one its tool recreates
	}
	var out []finding.Finding
	kind := h.ID.Kind
	if kind == "Job" && (h.ID.Group() != "batch" || dig2(h, "spec", "ttlSecondsAfterFinished")) {
		// A finished Job with a TTL is deleted by the cluster and created
		// anew by the next apply: its template may well change.
		return nil
	}
	for _, f := range immutableFields[kind] {
		if appsKind(kind) && h.ID.Group() != "apps" {
			continue
		}
		bv, bok := dig(b.Content, f.keys...)
		hv, hok := dig(h.Content, f.keys...)
		if f.unset != nil {
			if !bok {
				bv, bok = f.unset, true
			}
			if !hok {
				hv, hok = f.unset, true
			}
		}
		if !bok || !hok || value.Equal(bv, hv) {
			continue
		}
		out = append(out, immutableFinding(h, path(f.keys...), f.validation, bv, hv))
	}
	switch {
	case kind == "Service" && h.ID.Group() == "":
		out = append(out, service(b, h)...)
	case kind == "PersistentVolumeClaim" && h.ID.Group() == "":
		out = append(out, claim(b, h)...)
	case (kind == "RoleBinding" || kind == "ClusterRoleBinding") && h.ID.Group() == "rbac.authorization.k8s.io":
		out = append(out, roleRef(b, h)...)
	case (kind == "ConfigMap" || kind == "Secret") && h.ID.Group() == "":
		out = append(out, immutableData(b, h)...)
	case kind == "CustomResourceDefinition" && h.ID.Group() == "apiextensions.k8s.io":
		out = append(out, crd(b, h)...)
	}
	return out
}

func appsKind(kind string) bool {
	return kind == "Deployment" || kind == "ReplicaSet" || kind == "DaemonSet" || kind == "StatefulSet"
}

func dig2(o *manifest.Object, keys ...string) bool {
	_, ok := dig(o.Content, keys...)
	return ok
}

// immutableFinding words one refused update: what changed, which
// validation refuses it, and the ways out.
func immutableFinding(h *manifest.Object, p manifest.Path, validation string, from, to any) finding.Finding {
	msg := fmt.Sprintf("%s: %s changes from %s to %s, which the API server rejects on update (%s: field is immutable). "+
		"%s", describe(h.ID), p, show(from), show(to), validation, recreateAdvice(h.ID.Kind, p.String()))
	return at(RuleImmutable, finding.Error, h, p, "Field the API server will not change", msg)
}

// recreateAdvice says how to make such a change.
func recreateAdvice(kind, field string) string {
	return fmt.Sprintf("Keep the old %s, or delete and recreate the %s (a GitOps tool can do it: Argo CD's Replace=true sync option, Flux's kustomize.toolkit.fluxcd.io/force: enabled)", field, kind)
}

// service: spec.clusterIP and spec.clusterIPs cannot change once set
// (core ValidateServiceUpdate); the cluster allocates them when the
// manifest leaves them out, so only values both revisions write are
// compared. Switching to ExternalName while the manifest still sets a
// cluster IP is refused too (ExternalName Services have none).
func service(b, h *manifest.Object) []finding.Finding {
	var out []finding.Finding
	bip, hip := str(b.Content, "spec", "clusterIP"), str(h.Content, "spec", "clusterIP")
	if bip != "" && hip != "" && bip != hip {
		out = append(out, immutableFinding(h, path("spec", "clusterIP"), "core ValidateServiceUpdate", bip, hip))
	} else if bl, hl := list(b.Content, "spec", "clusterIPs"), list(h.Content, "spec", "clusterIPs"); len(bl) > 0 && len(hl) > 0 && !value.Equal(bl[0], hl[0]) {
		out = append(out, immutableFinding(h, path("spec", "clusterIPs"), "core ValidateServiceUpdate", bl, hl))
	}
	btype, htype := serviceType(b), serviceType(h)
	if btype != htype && htype == "ExternalName" && hip != "" {
		msg := fmt.Sprintf("%s changes type from %s to ExternalName but still sets spec.clusterIP %q, which the API server rejects "+
			"(core ValidateService: may not be set for ExternalName Services). Remove spec.clusterIP and spec.clusterIPs", describe(h.ID), btype, hip)
		out = append(out, at(RuleImmutable, finding.Error, h, path("spec", "clusterIP"), "Field the API server will not change", msg))
	}
	return out
}

func serviceType(o *manifest.Object) string {
	if t := str(o.Content, "spec", "type"); t != "" {
		return t
	}
	return "ClusterIP"
}

// claim: a PersistentVolumeClaim's spec is immutable once bound except
// its storage request, which may only grow (core
// ValidatePersistentVolumeClaimUpdate).
func claim(b, h *manifest.Object) []finding.Finding {
	const validation = "core ValidatePersistentVolumeClaimUpdate"
	var out []finding.Finding
	for _, k := range []string{"storageClassName", "volumeName"} {
		bv, hv := str(b.Content, "spec", k), str(h.Content, "spec", k)
		if bv != "" && hv != "" && bv != hv {
			out = append(out, immutableFinding(h, path("spec", k), validation, bv, hv))
		}
	}
	if bm, hm := stringSet(list(b.Content, "spec", "accessModes")), stringSet(list(h.Content, "spec", "accessModes")); len(bm) > 0 && len(hm) > 0 && !slices.Equal(bm, hm) {
		out = append(out, immutableFinding(h, path("spec", "accessModes"), validation, list(b.Content, "spec", "accessModes"), list(h.Content, "spec", "accessModes")))
	}
	bq, bok := quantity(dig(b.Content, "spec", "resources", "requests", "storage"))
	hq, hok := quantity(dig(h.Content, "spec", "resources", "requests", "storage"))
	if bok && hok && hq.Cmp(bq) < 0 {
		p := path("spec", "resources", "requests", "storage")
		msg := fmt.Sprintf("%s: the storage request shrinks from %s to %s, which the API server rejects (%s: field can not be less than previous value; "+
			"only a failed expansion may be walked back). Keep %s, or move the data to a new, smaller claim",
			describe(h.ID), bq.String(), hq.String(), validation, bq.String())
		out = append(out, at(RuleImmutable, finding.Error, h, p, "Field the API server will not change", msg))
	}
	return out
}

// stringSet is a list of strings, sorted and without duplicates.
func stringSet(l []any) []string {
	var out []string
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// quantity parses a Kubernetes quantity (a string or a number).
func quantity(v any, ok bool) (resource.Quantity, bool) {
	if !ok {
		return resource.Quantity{}, false
	}
	var s string
	switch t := v.(type) {
	case string:
		s = t
	case int64:
		s = fmt.Sprint(t)
	case float64:
		s = fmt.Sprint(t)
	default:
		return resource.Quantity{}, false
	}
	q, err := resource.ParseQuantity(s)
	return q, err == nil
}

// roleRef: a binding's roleRef cannot change (rbac
// ValidateRoleBindingUpdate, ValidateClusterRoleBindingUpdate).
func roleRef(b, h *manifest.Object) []finding.Finding {
	norm := func(o *manifest.Object) map[string]any {
		m := mapping(o.Content, "roleRef")
		if m == nil {
			return nil
		}
		g := str(m, "apiGroup")
		if g == "" {
			g = "rbac.authorization.k8s.io"
		}
		return map[string]any{"apiGroup": g, "kind": str(m, "kind"), "name": str(m, "name")}
	}
	bv, hv := norm(b), norm(h)
	if bv == nil || hv == nil || value.Equal(bv, hv) {
		return nil
	}
	validation := "rbac ValidateRoleBindingUpdate"
	if h.ID.Kind == "ClusterRoleBinding" {
		validation = "rbac ValidateClusterRoleBindingUpdate"
	}
	msg := fmt.Sprintf("%s: roleRef changes from %s %s to %s %s, which the API server rejects (%s: cannot change roleRef). "+
		"Create a new binding under another name for the new role and delete this one, or keep the roleRef",
		describe(h.ID), bv["kind"], bv["name"], hv["kind"], hv["name"], validation)
	return []finding.Finding{at(RuleImmutable, finding.Error, h, path("roleRef"), "Field the API server will not change", msg)}
}

// immutableData: a ConfigMap or Secret marked immutable keeps its data
// and its mark (core ValidateConfigMapUpdate, ValidateSecretUpdate).
func immutableData(b, h *manifest.Object) []finding.Finding {
	if v, _ := dig(b.Content, "immutable"); v != true {
		return nil
	}
	validation := "core ValidateConfigMapUpdate"
	if h.ID.Kind == "Secret" {
		validation = "core ValidateSecretUpdate"
	}
	advice := fmt.Sprintf("Create the %s under a new name (a kustomize generator's content hash does it) and point its users at it", h.ID.Kind)
	if v, _ := dig(h.Content, "immutable"); v != true {
		msg := fmt.Sprintf("%s was marked immutable and no longer is, which the API server rejects (%s: field is immutable when `immutable` is set). %s",
			describe(h.ID), validation, advice)
		return []finding.Finding{at(RuleImmutable, finding.Error, h, path("immutable"), "Field the API server will not change", msg)}
	}
	var out []finding.Finding
	for _, k := range []string{"data", "binaryData", "stringData"} {
		bv, _ := dig(b.Content, k)
		hv, _ := dig(h.Content, k)
		if value.Equal(bv, hv) {
			continue
		}
		// Secret values are never printed: the message names keys only.
		msg := fmt.Sprintf("%s is immutable and its %s changes (%s), which the API server rejects (%s: field is immutable when `immutable` is set). %s",
			describe(h.ID), k, changedKeys(bv, hv), validation, advice)
		out = append(out, at(RuleImmutable, finding.Error, h, path(k), "Field the API server will not change", msg))
	}
	return out
}

// changedKeys names the keys of two mappings that differ.
func changedKeys(a, b any) string {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	var keys []string
	for k, v := range am {
		if w, ok := bm[k]; !ok || !value.Equal(v, w) {
			keys = append(keys, k)
		}
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	if len(keys) > 5 {
		return fmt.Sprintf("keys %s and %d more", strings.Join(keys[:5], ", "), len(keys)-5)
	}
	return "keys " + strings.Join(keys, ", ")
}

// crd: an established CRD keeps its scope and kind
// (apiextensions ValidateCustomResourceDefinitionUpdate), and spec.versions
// must keep every stored version (ValidateCustomResourceDefinitionStoredVersions:
// status.storedVersions must appear in spec.versions) — the base's
// storage version has stored objects, so it is one of them.
func crd(b, h *manifest.Object) []finding.Finding {
	const validation = "apiextensions ValidateCustomResourceDefinitionUpdate"
	var out []finding.Finding
	for _, keys := range [][]string{{"spec", "scope"}, {"spec", "names", "kind"}} {
		bv, hv := str(b.Content, keys...), str(h.Content, keys...)
		if bv != "" && hv != "" && bv != hv {
			out = append(out, immutableFinding(h, path(keys...), validation, bv, hv))
		}
	}
	head := map[string]bool{}
	for _, v := range list(h.Content, "spec", "versions") {
		head[str(v, "name")] = true
	}
	if len(head) == 0 {
		return out
	}
	for _, v := range list(b.Content, "spec", "versions") {
		if st, _ := dig(v, "storage"); st != true || head[str(v, "name")] {
			continue
		}
		name := str(v, "name")
		msg := fmt.Sprintf("%s removes version %s, the base's storage version, from spec.versions, which the API server rejects while objects are stored in it "+
			"(apiextensions ValidateCustomResourceDefinitionStoredVersions: status.storedVersions must appear in spec.versions). "+
			"Keep %s (served: false is enough), migrate the stored objects to the new storage version, then remove %s from status.storedVersions before dropping it",
			describe(h.ID), name, name, name)
		out = append(out, at(RuleImmutable, finding.Error, h, path("spec", "versions"), "Field the API server will not change", msg))
	}
	return out
}
