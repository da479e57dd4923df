package change

import (
	"fmt"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Rules about objects that go away.
const (
	// RuleDeletion is a deletion that takes more with it than the object:
	// data (a claim, a volume), every object in a namespace, every custom
	// resource of a CRD, a StatefulSet's identity.
	RuleDeletion = "change/deletion"
	// RuleDangling is an object deleted while the head still names it.
	RuleDangling = "change/deleted-still-referenced"
	// RuleRename is an object deleted and a near-identical one created
	// under another name or namespace.
	RuleRename = "change/rename"
)

// consequence says what deleting an object of a kind takes with it.
var consequence = map[string]string{
	"PersistentVolumeClaim":    "its volume and the data on it (with the usual reclaim policy Delete)",
	"PersistentVolume":         "the volume and, with reclaim policy Delete, its data",
	"Namespace":                "every object in the namespace, including those no manifest lists",
	"CustomResourceDefinition": "every custom resource of that type in the cluster",
	"StatefulSet":              "its pods and their stable identities; its claims stay, detached",
}

// deletions reports the deleted objects of one target whose deletion has
// a consequence, and those the head still references.
func deletions(tp TargetPairs) []finding.Finding {
	refs := references(tp.Head.Objects)
	present := map[string]bool{}
	for _, o := range tp.Head.Objects {
		present[refKey(o.ID.Kind, o.ID.Namespace, o.ID.Name)] = true
	}
	var out []finding.Finding
	for _, p := range tp.Pairs {
		var gone *manifest.Object
		switch {
		case p.Deleted():
			gone = p.Base
		case p.RenamedFrom:
			gone = p.Base // still referenced under its old name?
		default:
			continue
		}
		k := refKey(gone.ID.Kind, gone.ID.Namespace, gone.ID.Name)
		if present[k] {
			continue // another group or version of the same name remains
		}
		if by := refs[k]; len(by) > 0 {
			out = append(out, dangling(gone, by))
			continue
		}
		if what, ok := consequence[gone.ID.Kind]; ok && p.Deleted() && coreGroupOf(gone.ID) {
			msg := fmt.Sprintf("%s is deleted by this change: deleting it deletes %s. If that is intended, say so in the pull request; "+
				"to keep it, restore the manifest (or, to stop managing it without deleting it, use the GitOps tool's prune protection: "+
				"Argo CD's Prune=false sync option, Flux's kustomize.toolkit.fluxcd.io/prune: disabled)", describe(gone.ID), what)
			out = append(out, deleted(RuleDeletion, finding.Warning, gone, "Deletion that takes data or other objects with it", msg))
		}
	}
	return out
}

// coreGroupOf reports whether the id is of the built-in kind its name
// says (a CRD of another group may reuse the name StatefulSet).
func coreGroupOf(id manifest.ObjectID) bool {
	switch id.Kind {
	case "StatefulSet":
		return id.Group() == "apps"
	case "CustomResourceDefinition":
		return id.Group() == "apiextensions.k8s.io"
	}
	return id.Group() == ""
}

// deleted is a finding at the base line of a deleted object: the head has
// no line for it.
func deleted(rule string, level finding.Level, gone *manifest.Object, title, msg string) finding.Finding {
	loc, _ := gone.Locate(nil)
	return finding.Finding{
		RuleID: rule, Level: level, Title: title, Message: msg, Help: ruleHelp[rule],
		Object: gone.ID, Location: loc, Side: finding.SideBase,
	}
}

func dangling(gone *manifest.Object, by []reference) finding.Finding {
	names := make([]string, 0, min(len(by), 3))
	for _, r := range by[:min(len(by), 3)] {
		names = append(names, describe(r.from.ID)+" ("+r.field+")")
	}
	more := ""
	if len(by) > 3 {
		more = fmt.Sprintf(" and %d more", len(by)-3)
	}
	msg := fmt.Sprintf("%s is deleted by this change but %s%s still name it: once applied they point at nothing. "+
		"Keep %s, or change what still names it in the same pull request", describe(gone.ID), strings.Join(names, ", "), more, gone.ID.Name)
	f := deleted(RuleDangling, finding.Error, gone, "Deleted object still referenced", msg)
	for _, r := range by {
		if loc, _ := r.from.Locate(r.path); !loc.IsZero() {
			f.Related = append(f.Related, finding.Related{Location: loc, Message: "still names " + gone.ID.Name})
		}
	}
	return f
}

// renamed reports a rename of a kind whose rename recreates it with a
// consequence.
func renamed(p Pair) []finding.Finding {
	b, h := p.Base, p.Head
	var what string
	switch h.ID.Kind {
	case "PersistentVolumeClaim":
		what = "a new, empty volume is provisioned and the old claim's data is deleted with it"
	default:
		what = "the old pods are deleted at once and new ones started, not rolled: expect downtime"
	}
	msg := fmt.Sprintf("%s replaces %s, which it is nearly identical to: the cluster sees a deletion and a creation, so %s. "+
		"Keep the old name and namespace, or add the new object first and delete the old one in a later change",
		describe(h.ID), describe(b.ID), what)
	f := at(RuleRename, finding.Warning, h, path("metadata", "name"), "Rename that recreates the object", msg)
	if loc, _ := b.Locate(nil); !loc.IsZero() {
		f.Related = []finding.Related{{Location: loc, Message: "the old object, at the base revision"}}
	}
	return []finding.Finding{f}
}
