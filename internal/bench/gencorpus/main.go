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
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus -o DIR [-small] [-seed N]")
		os.Exit(2)
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
