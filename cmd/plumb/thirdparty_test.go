package main

import (
	"debug/buildinfo"
	"testing"
)

// The patched kustomize libraries (third_party/, NOTICE) are what the
// binary runs: a go.mod without their replace lines still builds and
// passes the tests that compare them with upstream, but ships the
// quadratic append and the copying de-anchoring again.
func TestPatchedLibrariesAreLinked(t *testing.T) {
	info, err := buildinfo.ReadFile(plumbBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"sigs.k8s.io/kustomize/kyaml": "./third_party/kyaml",
		"sigs.k8s.io/kustomize/api":   "./third_party/kustomize-api",
	}
	for _, dep := range info.Deps {
		dir, ok := want[dep.Path]
		if !ok {
			continue
		}
		if dep.Replace == nil || dep.Replace.Path != dir {
			t.Errorf("%s %s is linked from the module proxy, not from %s: restore its replace line in go.mod", dep.Path, dep.Version, dir)
		}
		delete(want, dep.Path)
	}
	for path := range want {
		t.Errorf("%s is not linked into the binary at all", path)
	}
}
