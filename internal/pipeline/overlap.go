package pipeline

import (
	"slices"

	"github.com/plumb-ci/plumb/internal/finding"
)

// dropOverlaps keeps one finding per problem where two engines judge the
// same value: a check finding at the very place (object, file, line and
// column) where the VM's own KubeVirt validation rules already report is
// dropped — the validation is what the cluster enforces, and the reader
// needs to change that value once (K10003 and a template's
// windows-virtio-bus rule on a sata disk).
func dropOverlaps(fs []finding.Finding) []finding.Finding {
	type place struct {
		obj string
		loc finding.Location
	}
	validated := map[place]bool{}
	for i := range fs {
		if f := &fs[i]; f.Source == finding.SourceKubeVirt && f.Location.Line > 0 {
			validated[place{f.Object.Key(), f.Location}] = true
		}
	}
	if len(validated) == 0 {
		return fs
	}
	return slices.DeleteFunc(fs, func(f finding.Finding) bool {
		return f.Source == finding.SourceCheck && validated[place{f.Object.Key(), f.Location}]
	})
}
