package change

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// RuleSelectorOrphaned is a selector that matched pods at the base and
// matches none at the head, while the workloads it matched are still
// there: a label or selector change broke the reference.
const RuleSelectorOrphaned = "change/selector-orphaned"

// selector is a label selector: matchLabels and matchExpressions, or a
// Service's plain map (matchLabels only).
type selector struct {
	labels map[string]string
	exprs  []any
}

func (s selector) empty() bool { return len(s.labels) == 0 && len(s.exprs) == 0 }

func (s selector) matches(labels map[string]string) bool {
	for k, v := range s.labels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	for _, e := range s.exprs {
		key := str(e, "key")
		val, has := labels[key]
		values := stringSet(list(e, "values"))
		switch str(e, "operator") {
		case "In":
			if !has || !slices.Contains(values, val) {
				return false
			}
		case "NotIn":
			if has && slices.Contains(values, val) {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		default:
			return false // unknown operator: the API server rejects it
		}
	}
	return true
}

func labelSelector(v any) selector {
	return selector{labels: stringMapOf(mapping(v, "matchLabels")), exprs: list(v, "matchExpressions")}
}

func stringMapOf(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// selecting is an object whose selector picks pods, with where the
// selector is.
func selecting(o *manifest.Object) (selector, manifest.Path, bool) {
	switch {
	case o.ID.Kind == "Service" && o.ID.Group() == "":
		if str(o.Content, "spec", "type") == "ExternalName" {
			return selector{}, nil, false
		}
		return selector{labels: stringMapOf(mapping(o.Content, "spec", "selector"))}, path("spec", "selector"), true
	case o.ID.Kind == "PodDisruptionBudget" && o.ID.Group() == "policy":
		return labelSelector(mapping(o.Content, "spec", "selector")), path("spec", "selector"), true
	case o.ID.Kind == "NetworkPolicy" && o.ID.Group() == "networking.k8s.io":
		return labelSelector(mapping(o.Content, "spec", "podSelector")), path("spec", "podSelector"), true
	}
	return selector{}, nil, false
}

// podTemplate is a workload in a namespace with its pods' labels.
type podTemplate struct {
	obj    *manifest.Object
	labels map[string]string
}

func podTemplates(objs []*manifest.Object) map[string][]podTemplate {
	out := map[string][]podTemplate{}
	for _, o := range objs {
		var labels map[string]any
		switch o.ID.Kind {
		case "Pod":
			labels = mapping(o.Content, "metadata", "labels")
		case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "ReplicationController":
			labels = mapping(o.Content, "spec", "template", "metadata", "labels")
		case "CronJob":
			labels = mapping(o.Content, "spec", "jobTemplate", "spec", "template", "metadata", "labels")
		default:
			continue
		}
		out[o.ID.Namespace] = append(out[o.ID.Namespace], podTemplate{o, stringMapOf(labels)})
	}
	return out
}

// orphanedSelectors reports the Services, PodDisruptionBudgets and
// NetworkPolicies present on both sides whose selector matched a pod
// template of the target at the base and matches none at the head, while
// a workload it matched is still rendered: the workload's labels or the
// selector changed, not the workload removed. An empty selector (every
// pod, or a Service without selector) is never reported.
func orphanedSelectors(tp TargetPairs) []finding.Finding {
	basePods, headPods := podTemplates(tp.Base.Objects), podTemplates(tp.Head.Objects)
	headIDs := map[string]bool{}
	for _, o := range tp.Head.Objects {
		headIDs[identity(o.ID)] = true
	}
	var out []finding.Finding
	for _, p := range tp.Pairs {
		if p.Base == nil || p.Head == nil || p.RenamedFrom || recreatedByTool(p.Head) {
			continue
		}
		bs, _, ok := selecting(p.Base)
		hs, sp, ok2 := selecting(p.Head)
		if !ok || !ok2 || bs.empty() || hs.empty() {
			continue
		}
		var stillThere []*manifest.Object
		for _, pt := range basePods[p.Base.ID.Namespace] {
			if bs.matches(pt.labels) && headIDs[identity(pt.obj.ID)] {
				stillThere = append(stillThere, pt.obj)
			}
		}
		if len(stillThere) == 0 {
			continue
		}
		matched := false
		for _, pt := range headPods[p.Head.ID.Namespace] {
			if hs.matches(pt.labels) {
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		out = append(out, orphaned(p.Head, sp, hs, stillThere))
	}
	return out
}

func orphaned(h *manifest.Object, sp manifest.Path, hs selector, was []*manifest.Object) finding.Finding {
	names := make([]string, 0, len(was))
	for _, o := range was[:min(len(was), 3)] {
		names = append(names, describe(o.ID))
	}
	effect := map[string]string{
		"Service":             "it routes traffic to no pod (no endpoints)",
		"PodDisruptionBudget": "it protects no pod from eviction",
		"NetworkPolicy":       "its rules apply to no pod any more",
	}[h.ID.Kind]
	level := finding.Warning
	if h.ID.Kind == "Service" {
		level = finding.Error
	}
	msg := fmt.Sprintf("%s selects %s, which matched the pods of %s at the base and matches no pod of this target at the head: %s. "+
		"Make the selector and the pod template labels agree again (a selector change, or the pods' labels, in the same pull request)",
		describe(h.ID), selectorText(hs), strings.Join(names, ", "), effect)
	return at(RuleSelectorOrphaned, level, h, sp, "Selector that no longer matches its pods", msg)
}

func selectorText(s selector) string {
	keys := sortedKeys(s.labels)
	parts := make([]string, 0, len(keys)+len(s.exprs))
	for _, k := range keys {
		parts = append(parts, k+"="+s.labels[k])
	}
	for _, e := range s.exprs {
		parts = append(parts, fmt.Sprintf("%s %s %v", str(e, "key"), str(e, "operator"), stringSet(list(e, "values"))))
	}
	return strings.Join(parts, ",")
}
