// Package bench generates the deterministic repositories plumb's
// benchmarks run on: kustomize overlays over shared bases holding the
// object kinds platform teams deploy (Deployments, StatefulSets, Services,
// ConfigMaps, Secrets, Ingresses, PodDisruptionBudgets, VirtualMachines
// with validation rules), a few OpenShift Templates, a kube-compare
// reference that matches most of the objects, and a file of inspection
// rules. The same Spec and seed always write the same bytes, so numbers
// measured on two machines, or before and after a change, compare.
package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Spec sizes a generated repository.
type Spec struct {
	// Seed drives every choice the generator makes at random (which
	// objects break which best practice, versions, Secret values).
	Seed uint64
	// Overlays is the number of kustomize overlays (render targets), laid
	// out as sites/sNNN/overlays/{dev,test,staging,prod}.
	Overlays int
	// Bases is the number of shared bases; overlay i uses base i%Bases.
	Bases int
	// ObjectsPerBase is the number of objects each base (and so each
	// overlay) renders: apps of ten objects, the last one cut short.
	ObjectsPerBase int
	// Templates is the number of OpenShift Templates (each with one
	// VirtualMachine and validation rules) in templates/, a plain target.
	Templates int
	// ReferenceTemplates is the number of templates in the kube-compare
	// reference under reference/. Templates go to the objects' kinds and
	// names family by family (Secrets excepted: references do not carry
	// them); any left over are optional templates nothing matches.
	ReferenceTemplates int
	// Rules is the number of inspection rules in .plumb/rules.yaml.
	Rules int
}

// Default is the whole-pipeline benchmark: 10,000 objects in 200
// overlays (1,000 of them VirtualMachines), a 100-template reference and
// 50 rules.
var Default = Spec{Seed: 1, Overlays: 200, Bases: 10, ObjectsPerBase: 50, Templates: 4, ReferenceTemplates: 100, Rules: 50}

// Small is Default at a tenth of the size (1,000 objects in 20 overlays),
// to show how cost grows.
var Small = Spec{Seed: 1, Overlays: 20, Bases: 10, ObjectsPerBase: 50, Templates: 4, ReferenceTemplates: 100, Rules: 50}

// Corpus is a generated repository.
type Corpus struct {
	Spec Spec
	// Dir is the repository root.
	Dir string
	// Objects is the number of objects the overlays render (Templates and
	// their processed objects not included).
	Objects int
	// VMs is the number of VirtualMachines among Objects.
	VMs int
	// Reference is the reference directory, relative to Dir.
	Reference string
	// RulesFile is the inspection-rules file, relative to Dir.
	RulesFile string
	// Overlays are the overlay directories, relative to Dir.
	Overlays []string
}

// Environments of a site, in overlay order.
var environments = []string{"dev", "test", "staging", "prod"}

// families name the apps of the bases: base b holds the apps of family
// b%len(families), so overlays of different families deploy different
// workloads, as teams do.
var families = []string{"shop", "pay", "auth", "search", "media", "mail", "chat", "maps"}

// Generate writes the repository described by s under dir (which must
// exist and should be empty).
func Generate(dir string, s Spec) (*Corpus, error) {
	if s.Overlays < 1 || s.Bases < 1 || s.ObjectsPerBase < 1 {
		return nil, fmt.Errorf("bench: a corpus needs at least one overlay, one base and one object per base (got %+v)", s)
	}
	g := &generator{spec: s, files: map[string]string{}, rng: rand.New(rand.NewPCG(s.Seed, 0x706c756d62))}
	c := &Corpus{Spec: s, Dir: dir, Reference: "reference", RulesFile: ".plumb/rules.yaml"}
	bases := make([]base, s.Bases)
	for b := range bases {
		bases[b] = g.base(b)
	}
	for o := 0; o < s.Overlays; o++ {
		b := &bases[o%s.Bases]
		c.Overlays = append(c.Overlays, g.overlay(o, b))
		c.Objects += len(b.objects)
		for _, obj := range b.objects {
			if obj.kind == "VirtualMachine" {
				c.VMs++
			}
		}
	}
	for t := 0; t < s.Templates; t++ {
		g.template(t)
	}
	g.reference(bases)
	g.rules()
	return c, g.write(dir)
}

// generator accumulates the files of a corpus.
type generator struct {
	spec  Spec
	files map[string]string
	rng   *rand.Rand
}

func (g *generator) add(name, content string) { g.files[name] = content }

// write puts the files on disk in name order (so that file system
// timestamps and inode order are the same from run to run too).
func (g *generator) write(dir string) error {
	names := make([]string, 0, len(g.files))
	for n := range g.files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if err := os.WriteFile(p, []byte(g.files[n]), 0o644); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}

// overlay writes overlay o over base b and returns its directory. Every
// overlay sets its namespace, labels, an image tag and replicas, and
// patches its first web Deployment; one in ten raises that Deployment's
// memory limit (drift from the reference) and one in twenty-five moves
// its image to a mutable tag.
func (g *generator) overlay(o int, b *base) string {
	site, env := o/len(environments), environments[o%len(environments)]
	dir := fmt.Sprintf("sites/s%03d/overlays/%s", site, env)
	web := b.apps[0] + "-web"
	tag := fmt.Sprintf("1.4.%d", 2+o%3)
	if o%25 == 7 {
		tag = "latest"
	}
	replicas := map[string]int{"dev": 1, "test": 1, "staging": 2, "prod": 3}[env]
	var k strings.Builder
	fmt.Fprintf(&k, `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: s%03d-%s
resources:
  - ../../../../bases/%s
labels:
  - pairs:
      site: s%03d
      environment: %s
images:
  - name: %s
    newTag: %q
replicas:
  - name: %s
    count: %d
patches:
  - path: patch.yaml
`, site, env, b.dir, site, env, b.images[0], tag, web, replicas)
	g.add(dir+"/kustomization.yaml", k.String())
	patch := fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %s
spec:
  template:
    metadata:
      annotations:
        example.com/site: s%03d
`, web, site)
	if o%10 == 3 {
		patch += `    spec:
      containers:
        - name: web
          resources:
            limits:
              memory: 512Mi
`
	}
	g.add(dir+"/patch.yaml", patch)
	return dir
}
