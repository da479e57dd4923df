package change

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Warnings about a workload's update.
const (
	// RuleReplicasZero is a workload scaled to zero by the change.
	RuleReplicasZero = "change/replicas-zero"
	// RuleImageDowngrade is a container image whose tag moves to a lower
	// semantic version.
	RuleImageDowngrade = "change/image-downgrade"
)

// workloadChanges reports replicas set to 0 and image tags moving back.
func workloadChanges(p Pair) []finding.Finding {
	b, h := p.Base, p.Head
	var out []finding.Finding
	switch h.ID.Kind {
	case "Deployment", "StatefulSet", "ReplicaSet":
		hv, hok := dig(h.Content, "spec", "replicas")
		bv, bok := dig(b.Content, "spec", "replicas")
		if hok && isZero(hv) && (!bok || !isZero(bv)) {
			from := "1 (the default)"
			if bok {
				from = fmt.Sprint(bv)
			}
			msg := fmt.Sprintf("%s is scaled from %s to 0 replicas: once applied it runs no pod. If the workload is being retired, delete it; "+
				"if this is temporary, say so in the pull request", describe(h.ID), from)
			out = append(out, at(RuleReplicasZero, finding.Warning, h, path("spec", "replicas"), "Workload scaled to zero", msg))
		}
	}
	out = append(out, downgrades(b, h)...)
	return out
}

func isZero(v any) bool {
	switch t := v.(type) {
	case int64:
		return t == 0
	case float64:
		return t == 0
	}
	return false
}

// containerImages lists a workload's containers: name, image and path.
type container struct {
	name, image string
	path        manifest.Path
}

func containers(o *manifest.Object) []container {
	pod, p := podSpec(o)
	if pod == nil {
		return nil
	}
	var out []container
	for _, ck := range []string{"initContainers", "containers"} {
		for i, c := range list(pod, ck) {
			out = append(out, container{name: ck + "/" + str(c, "name"), image: str(c, "image"),
				path: p.Child(manifest.Key(ck), manifest.Index(i), manifest.Key("image"))})
		}
	}
	return out
}

// downgrades compares the images of containers of one name: same
// repository, both tags semantic versions with the same suffix, the
// head's lower.
func downgrades(b, h *manifest.Object) []finding.Finding {
	baseImages := map[string]string{}
	for _, c := range containers(b) {
		baseImages[c.name] = c.image
	}
	var out []finding.Finding
	for _, c := range containers(h) {
		old, ok := baseImages[c.name]
		if !ok || old == c.image {
			continue
		}
		br, bt := splitImage(old)
		hr, ht := splitImage(c.image)
		if br != hr || bt == "" || ht == "" {
			continue
		}
		bv, bs, ok1 := parseVersion(bt)
		hv, hs, ok2 := parseVersion(ht)
		if !ok1 || !ok2 || bs != hs || compareVersions(hv, bv) >= 0 {
			continue
		}
		msg := fmt.Sprintf("%s: container %s's image moves back from %s to %s (a lower version). If this is a rollback, say so in the pull request; "+
			"otherwise keep %s or a later version", describe(h.ID), strings.SplitN(c.name, "/", 2)[1], old, c.image, bt)
		out = append(out, at(RuleImageDowngrade, finding.Warning, h, c.path, "Image tag moves to a lower version", msg))
	}
	return out
}

// splitImage splits an image reference into repository and tag (no tag
// when pinned by digest or untagged).
func splitImage(ref string) (repo, tag string) {
	if i := strings.IndexByte(ref, '@'); i >= 0 {
		return ref[:i], ""
	}
	slash := strings.LastIndexByte(ref, '/')
	if i := strings.LastIndexByte(ref, ':'); i > slash {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}

// parseVersion reads a tag like v1.2.3, 1.25 or 1.2.3-alpine: at least
// two dot-separated numbers, then an optional suffix (compared as a
// whole: 1.2-alpine and 1.3-alpine compare, 1.2-alpine and 1.3 do not).
func parseVersion(tag string) ([]int, string, bool) {
	t := strings.TrimPrefix(tag, "v")
	core, suffix := t, ""
	if i := strings.IndexAny(t, "-+_"); i >= 0 {
		core, suffix = t[:i], t[i:]
	}
	parts := strings.Split(core, ".")
	if len(parts) < 2 || len(parts) > 4 {
		return nil, "", false
	}
	nums := make([]int, len(parts))
	for i, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil || s == "" {
			return nil, "", false
		}
		nums[i] = n
	}
	return nums, suffix, true
}

func compareVersions(a, b []int) int {
	for i := range max(len(a), len(b)) {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x - y
		}
	}
	return 0
}
