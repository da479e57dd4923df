// Command gencorpus writes the benchmark corpus to a directory, so that
// the real binary can be timed and its memory measured on it:
//
//	go run ./internal/bench/gencorpus -o /tmp/corpus
//	cd /tmp/corpus && /usr/bin/time -v plumb check --reference reference --rules .plumb/rules.yaml
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/plumb-ci/plumb/internal/bench"
)

func main() {
	out := flag.String("o", "", "directory to write the corpus to (created; must be empty or absent)")
	small := flag.Bool("small", false, "the 1,000-object corpus instead of the 10,000-object one")
	seed := flag.Uint64("seed", bench.Default.Seed, "seed of the random choices")
	plain := flag.Int("plain", 0, "write this many plain objects (no kustomize) instead of the kustomize corpus")
	perFile := flag.Int("per-file", 0, "with -plain: objects per file (0: all in one file)")
	bare := flag.Bool("bare", false, "with -plain: small Deployments without the settings the checks ask for, instead of the apps")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus -o DIR [-small | -plain N [-per-file M] [-bare]] [-seed N]")
		os.Exit(2)
	}
	if *plain > 0 {
		writePlain(*out, bench.PlainSpec{Seed: *seed, Objects: *plain, PerFile: *perFile, Bare: *bare})
		return
	}
	spec := bench.Default
	if *small {
		spec = bench.Small
	}
	spec.Seed = *seed
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		fmt.Fprintf(os.Stderr, "gencorpus: %s is not empty\n", *out)
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(2)
	}
	c, err := bench.Generate(*out, spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(2)
	}
	fmt.Printf("%s: %d objects (%d VirtualMachines) in %d overlays, %d Templates, a %d-template reference (%s), %d rules (%s)\n",
		c.Dir, c.Objects, c.VMs, len(c.Overlays), spec.Templates, spec.ReferenceTemplates, c.Reference, spec.Rules, c.RulesFile)
}

// writePlain writes a plain-manifest corpus (all objects in one file when
// s.PerFile is 0).
func writePlain(out string, s bench.PlainSpec) {
	if s.PerFile <= 0 {
		s.PerFile = s.Objects
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		fmt.Fprintf(os.Stderr, "gencorpus: %s is not empty\n", out)
		os.Exit(2)
	}
	c, err := bench.GeneratePlain(out, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(2)
	}
	fmt.Printf("%s: %d plain objects in %d files\n", c.Dir, s.Objects, len(c.Files))
}
