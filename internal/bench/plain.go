package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// PlainSpec sizes a generated repository of plain manifests: the apps of
// the kustomize corpus's bases written out as they are deployed, with no
// kustomization, the way `helm template`, `kubectl get -o yaml` and
// vendor install bundles leave them.
type PlainSpec struct {
	// Seed drives the same random choices as Spec.Seed.
	Seed uint64
	// Objects is the number of objects written.
	Objects int
	// PerFile is the number of objects in each file (the last file holds
	// what is left): Objects puts them all in one file.
	PerFile int
	// Bare writes small Deployments of one container with none of the
	// settings the default checks ask for, as install bundles often carry
	// them, instead of the apps: eleven findings an object, five with an
	// edit, which is what makes the fix stage work hardest.
	Bare bool
}

// PlainCorpus is a generated repository of plain manifests.
type PlainCorpus struct {
	Spec PlainSpec
	// Dir is the repository root.
	Dir string
	// Files are the manifest files, relative to Dir.
	Files []string
}

// GeneratePlain writes the plain-manifest repository described by s under
// dir: s.Objects objects of the benchmark's apps (with their defects) in
// manifests/, s.PerFile to a file, each object named uniquely in the
// namespace of its app.
func GeneratePlain(dir string, s PlainSpec) (*PlainCorpus, error) {
	if s.Objects < 1 || s.PerFile < 1 {
		return nil, fmt.Errorf("bench: a plain corpus needs at least one object and one object per file (got %+v)", s)
	}
	g := &generator{spec: Spec{Bases: 1, ObjectsPerBase: len(appKinds)}, files: map[string]string{}, rng: rand.New(rand.NewPCG(s.Seed, 0x706c756d62))}
	c := &PlainCorpus{Spec: s, Dir: dir}
	var file strings.Builder
	inFile := 0
	flush := func() {
		if inFile == 0 {
			return
		}
		name := fmt.Sprintf("manifests/m%05d.yaml", len(c.Files))
		g.add(name, file.String())
		c.Files = append(c.Files, name)
		file.Reset()
		inFile = 0
	}
	for n, a := 0, 0; n < s.Objects; a++ {
		fam := families[a%len(families)]
		app := fmt.Sprintf("%s-app%d", fam, a)
		image := fmt.Sprintf("registry.example.com/%s/app%d-web", fam, a)
		objs := []string{bareDeployment(app, fam)}
		if !s.Bare {
			objs = objs[:0]
			for _, o := range g.app(0, a, app, image, g.defects()) {
				objs = append(objs, withNamespace(o.text(false), fam))
			}
		}
		for _, text := range objs {
			if n == s.Objects {
				break
			}
			if inFile > 0 {
				file.WriteString("---\n")
			}
			file.WriteString(text)
			n++
			if inFile++; inFile == s.PerFile {
				flush()
			}
		}
	}
	flush()
	return c, g.write(dir)
}

// withNamespace puts an object (as the bases write it, without one) in
// namespace ns.
func withNamespace(text, ns string) string {
	return strings.Replace(text, "\nmetadata:\n", "\nmetadata:\n  namespace: "+ns+"\n", 1)
}

// bareDeployment is a Deployment of one container with no security
// context, resources or probes.
func bareDeployment(name, ns string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  namespace: %[2]s
spec:
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      containers:
        - name: main
          image: registry.example.com/%[2]s/%[1]s:1.0.0
`, name, ns)
}
