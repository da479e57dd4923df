package change

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/finding"
)

// RuleUnpinnedImage is the default catalog's check that images are
// pinned to a version (no tag, or latest, is not).
const RuleUnpinnedImage = "check/C10001"

// suggestBasePins gives the open findings of an unpinned image whose
// container ran a pinned image of the same repository at the base a fix:
// that image (web:latest → web:1.4.2, the tag the change dropped).
// Findings that have a fix keep it.
func suggestBasePins(fs []finding.Finding, tps []TargetPairs) {
	pairs := map[string]Pair{}
	for _, tp := range tps {
		for _, p := range tp.Pairs {
			if p.Base != nil && p.Head != nil {
				pairs[p.Head.ID.Key()] = p
			}
		}
	}
	for i := range fs {
		f := &fs[i]
		if f.RuleID != RuleUnpinnedImage || f.Fix != nil || f.Status == finding.StatusFixed || f.Suppressed != nil {
			continue
		}
		if p, ok := pairs[f.Object.Key()]; ok {
			f.Fix = basePin(p, f)
		}
	}
}

// basePin is the fix of the unpinned image the finding points at: the
// base's image of the container of that name, when it was pinned and of
// the same repository; nil otherwise.
func basePin(p Pair, f *finding.Finding) *finding.Fix {
	var name, image string
	for _, c := range containers(p.Head) {
		if c.path.Equal(f.Path) {
			name, image = c.name, c.image
		}
	}
	if name == "" || pinned(image) {
		return nil
	}
	repo, _ := splitImage(image)
	for _, c := range containers(p.Base) {
		if c.name != name || !pinned(c.image) {
			continue
		}
		if r, _ := splitImage(c.image); r != repo {
			return nil
		}
		return &finding.Fix{
			Description: fmt.Sprintf("pin the image to %s, as the base revision does", c.image),
			Changes:     []finding.Change{{Op: finding.ChangeSet, Path: f.Path, Value: c.image}},
			ObjectValue: true,
		}
	}
	return nil
}

// pinned reports whether an image names a digest or a tag other than
// latest (check C10001's rule).
func pinned(image string) bool {
	for i := len(image) - 1; i >= 0 && image[i] != '/'; i-- {
		if image[i] == '@' {
			return true
		}
	}
	_, tag := splitImage(image)
	return tag != "" && tag != "latest"
}
